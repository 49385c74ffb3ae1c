"""What a submission check says, as data: one template per message, read by the Python
scorer, the R package and the leaderboard page's in-browser checker alike, so all three say
the same thing in the same words.

A message is ``POINTER: TEXT``: the JSON Pointer of the value (0-based indices; the document
itself is ``/``) and a template filled with :meth:`str.format`. Values quoted back are
written as JSON, numbers as JavaScript writes them (``1``, ``0.5``, ``1e-7``, ``1e+300``), so
every language renders them identically (:func:`json_text`). A check lists at most
``max_errors`` messages (5 unless asked), in document order, then how many there are in all.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Iterable
from typing import Any

from icgbench.io.untrusted import CONSTANT_MESSAGE

MESSAGES: dict[str, str] = {
    # reading the file
    "constant": CONSTANT_MESSAGE,
    # the schema layer, by keyword
    "type": "{value} is not of type {expected}",
    "required": "{name} is required",
    "additionalProperties": "unknown key(s) not allowed: {names}",
    "enum": "{value} is not one of {allowed}",
    "const": "{value} is not {expected}",
    "minimum": "{value} is less than the minimum of {limit}",
    "maximum": "{value} is greater than the maximum of {limit}",
    "exclusiveMinimum": "{value} is not greater than {limit}",
    "exclusiveMaximum": "{value} is not less than {limit}",
    "minItems": "{count} value(s); at least {limit} needed",
    "minProperties": "{count} key(s); at least {limit} needed",
    "minLength": "a string of {count} character(s); at least {limit} needed",
    "maxLength": "a string of {count} characters; at most {limit} allowed",
    "pattern": "{value} is not {rule}",
    "keyword": "{value} fails the schema's {keyword} rule",
    # hints: what the two usual serialisation mistakes and an empty document are named as
    "columnar": ("an array of {count} row objects, but blocks are columnar: one object whose "
                 "fields are equal-length arrays, e.g. {{\"subject_id\": [...], "
                 "\"proba\": [...]}} (R: a list of vectors, or jsonlite's "
                 "dataframe = \"columns\")"),
    "unbox": ("{value} is a one-element array where a single value is expected: unbox "
              "scalars (R: jsonlite::toJSON(..., auto_unbox = TRUE))"),
    "one_block": "at least one task block is required ({blocks})",
    # after the list
    "more_errors": "... and {more} more ({count} in all)",
    # the header: release, tier, variant, cohort
    "lone_surrogate": "character {at} is a lone surrogate (not valid Unicode)",
    "data_version": ("{given} is not the release's version {release} (download or build "
                     "release {plain}, or refit on this one)"),
    "tier": "{given} but scoring against the {tier} tier{hint}",
    "unfrozen_hint": (" (a cohort simulated on the fly: grade it against the folder that "
                      "simulated it, with --release DIR)"),
    "variant_hash": "{given} is not the hash of variant {variant} ({expected})",
    "tier_of_seed": ("{tier} has no cohort ({variant}, seed {seed}) but the {other} tier has: "
                     "is the tier right? (the {tier_name} tier's seeds are {seeds})"),
    "seed": "the {tier} tier has no cohort ({variant}, seed {seed}); its seeds are {seeds}",
    # the blocks: lengths, numbers, ids, edges, tasks
    "lengths": "parallel arrays differ in length ({detail})",
    "length_of": "{path} has {count}",
    "not_finite": "number is not finite ({count} such value(s))",
    "duplicate_ids": "duplicate ids: {ids}",
    "missing_ids": "{count} {split} subject(s) missing: {ids}",
    "unknown_ids": "{count} id(s) not in the {split} split: {ids}",
    "few": "{shown} (and {more} more)",
    "self_loop": "self-loop {node} -> itself ({count} in all)",
    "repeated_edge": "edge {source} -> {target} repeats entry {first}",
    "incomplete_task": "no task can grade this block without {needs} ({users} needs it)",
}

#: Errors at one place are listed in this order of the schema keyword that found them.
KEYWORD_ORDER = ("type", "const", "enum", "required", "additionalProperties", "anyOf",
                 "minProperties", "minItems", "minLength", "maxLength", "pattern", "minimum",
                 "maximum", "exclusiveMinimum", "exclusiveMaximum")
#: The longest value quoted back in a message, in characters of its JSON text.
SHOWN_VALUE = 100
#: How many messages a check lists unless asked for more.
DEFAULT_MAX_ERRORS = 5


def message(key: str, /, **values: Any) -> str:
    """The message ``key`` with ``values`` filled in."""
    return MESSAGES[key].format(**values)


def pointer(parts: Iterable[str | int]) -> str:
    """The JSON Pointer of ``parts`` (RFC 6901; the document itself is shown as ``/``)."""
    out = "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)
    return out or "/"


def line(parts: Iterable[str | int], text: str) -> str:
    """One listed problem: ``POINTER: TEXT``."""
    return f"{pointer(parts)}: {text}"


def js_number(x: float | int) -> str:
    """``x`` as JavaScript's ``String(x)`` writes it: the shortest digits that read back as
    the same double, in fixed notation from 1e-7 up to 1e21, else ``1.5e+300``. Integers
    keep every digit (Python reads them exactly, and so does the page)."""
    if isinstance(x, bool):
        raise TypeError("a boolean is not a number")
    if isinstance(x, int):
        return str(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    _, digits, exponent = decimal.Decimal(repr(abs(x))).as_tuple()
    text = "".join(map(str, digits)).rstrip("0")
    n = len(digits) + int(exponent)  # x = 0.TEXT * 10**n
    k = len(text)
    minus = "-" if x < 0 else ""
    if k <= n <= 21:
        return minus + text + "0" * (n - k)
    if 0 < n <= 21:
        return minus + text[:n] + "." + text[n:]
    if -6 < n <= 0:
        return minus + "0." + "0" * -n + text
    mantissa = text[0] + ("." + text[1:] if k > 1 else "")
    return f"{minus}{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
            "\t": "\\t"}


def json_string(text: str) -> str:
    """``text`` as JSON.stringify writes it (lone surrogates escaped, nothing else)."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif code < 0x20 or 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def json_text(value: Any) -> str:
    """``value`` as compact JSON, written as the page's and R's checker write it."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return json_string(value)
    if isinstance(value, int | float):
        return js_number(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{json_string(str(k))}:{json_text(v)}"
                              for k, v in value.items()) + "}"
    return "[" + ",".join(json_text(v) for v in value) + "]"


def shown(value: Any) -> str:
    """A value quoted back in a message: its JSON text, cut at SHOWN_VALUE characters."""
    text = json_text(value)
    if len(text) <= SHOWN_VALUE:
        return text
    return f"{text[:SHOWN_VALUE]}... ({len(text)} characters)"


def listed(lines: list[str], count: int, max_errors: int) -> list[str]:
    """The first ``max_errors`` of ``lines`` (``count`` problems in all), then how many more."""
    if count <= max_errors:
        return lines[:max_errors]
    return [*lines[:max_errors], message("more_errors", more=count - max_errors, count=count)]
