"""What a submission check says, as data: one template per message, read by the scorer and
by the leaderboard page's in-browser checker alike, so both say the same thing.

A template is formatted with :meth:`str.format` (``{name}`` is the value's ``str``,
``{name!r}`` its ``repr``); the page's checker implements the same two conversions with
Python's rules for JSON values. Changing a message here changes it in both places.
"""

from __future__ import annotations

from typing import Any

MESSAGES: dict[str, str] = {
    # the schema layer: what replaces a validator's wording
    "columnar": ("an array of {count} row objects, but blocks are columnar: one object whose "
                 "fields are equal-length arrays, e.g. {{\"subject_id\": [...], "
                 "\"proba\": [...]}} (R: a list of vectors, or jsonlite's "
                 "dataframe = \"columns\")"),
    "unbox": ("{value} is a one-element array where a single value is expected: unbox "
              "scalars (R: jsonlite::toJSON(..., auto_unbox = TRUE))"),
    "one_block": "at least one task block is required ({blocks})",
    "unknown_keys": "unknown key(s) not allowed",
    "more_errors": "... and {count} more",
    # the header: release, tier, variant, cohort
    "lone_surrogate": "{path}: character {at} is a lone surrogate (not valid Unicode)",
    "data_version": ("$.data_version: {given!r} is not the release's version {release!r} "
                     "(download or build release {given}, or refit on this one)"),
    "tier": "$.tier: {given!r} but scoring against the {tier!r} tier{hint}",
    "unfrozen_hint": (" (a cohort simulated on the fly: grade it against the folder that "
                      "simulated it, with --release DIR)"),
    "variant_hash": ("$.variant_hash: {given!r} is not the hash of variant {variant!r} "
                     "({expected!r})"),
    "tier_of_seed": ("$.tier: {tier!r} has no cohort ({variant}, seed {seed}) but the {other} "
                     "tier has: is the tier right? (the {tier} tier's seeds are {seeds})"),
    "seed": ("$.seed: the {tier} tier has no cohort ({variant}, seed {seed}); its seeds are "
             "{seeds}"),
    # the blocks: lengths, numbers, ids, edges, tasks
    "lengths": "{block}: parallel arrays differ in length ({detail})",
    "length_of": "{path} has {count}",
    "not_finite": "{path}: number is not finite ({count} such value(s))",
    "duplicate_ids": "{path}: duplicate ids: {ids}",
    "missing_ids": "{path}: {count} {split} subject(s) missing: {ids}",
    "unknown_ids": "{path}: {count} id(s) not in the {split} split: {ids}",
    "few": "{shown} (and {more} more)",
    "self_loop": "{path}: self-loop {node!r} -> itself ({count} in all)",
    "repeated_edge": "{path}: edge {source!r} -> {target!r} repeats entry {first}",
    "incomplete_task": ("$.{block}: no task can grade this block without {needs} ({users} "
                        "needs it)"),
}


def message(name: str, **values: Any) -> str:
    """The message ``name`` with ``values`` filled in."""
    return MESSAGES[name].format(**values)
