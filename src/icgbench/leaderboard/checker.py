"""What the submission checker needs to know, as one JSON document of public facts.

The checker (``templates/checker_core.js``) runs ``icgbench validate``'s checks with its
messages: on the leaderboard page's "check a submission" (in the browser: nothing is
uploaded) and in the R package (in V8). It reads ajv's validator compiled ahead of time
(``schemas/checker/submission_schema.js``, built from the published schema by
``tools/ajv/build-checker.js`` in ``make contract``) and these facts: the message templates
and limits of :mod:`icgbench.scorer.messages`, the schema, the blocks each task reads, the variants'
hashes, each tier's seeds and, for the page, each release tier's version and each cohort's
held-out subject ids (from its public ``subjects`` table, as runs of consecutive ids). The R
package ships the release-independent part (:func:`static_facts`) and reads the rest from
the release it is given. Nothing here comes from a truth table; the messages and limits are
read from the scorer, never restated.
"""

from __future__ import annotations

import copy
import json
import logging
import re
from typing import Any

from icgbench import contract
from icgbench.contract.json_schemas import pattern_words
from icgbench.errors import InvalidInputError, UsageError
from icgbench.generator.interventions import intervention_names
from icgbench.generator.variants import get_variant, variant_names
from icgbench.io.unprintable import RANGES as UNPRINTABLE
from icgbench.release.tiers import SEALED, TIERS, UNFROZEN_NAME, get_tier
from icgbench.scorer.messages import DEFAULT_MAX_ERRORS, KEYWORD_ORDER, MESSAGES, SHOWN_VALUE
from icgbench.scorer.parse import DEFAULT_MAX_BYTES, MAX_STRING_CHARS
from icgbench.scorer.pipeline import task_blocks
from icgbench.scorer.semantic import SHOW
from icgbench.tasks import BLOCK_SPLITS, CATEGORIES, TASKS

log = logging.getLogger(__name__)
_NUMBERED = re.compile(r"(.*?)([0-9]+)")


def id_runs(ids: list[str]) -> list[list[Any]]:
    """``ids`` as runs ``[prefix, first number, count, digits]`` of consecutive ids
    (``TE000001`` ... ``TE001000`` is one run); an id that ends in no number is a run of
    one with number -1. Decoding the runs gives ``ids`` back, in order."""
    runs: list[list[Any]] = []
    for text in ids:
        match = _NUMBERED.fullmatch(text)
        prefix, number, width = (match[1], int(match[2]), len(match[2])) if match else (
            text, -1, 0)
        last = runs[-1] if runs else None
        if (last is not None and number >= 0 and last[0] == prefix and last[3] == width
                and last[1] + last[2] == number):
            last[2] += 1
        else:
            runs.append([prefix, number, 1, width])
    return runs


#: Each tier's facts by what names them: the descriptor's path, version and fingerprint (a
#: SHA-256 over every resource's content digest, so over the truth read below).
_FACTS: dict[tuple[str, str, str, str], dict[str, Any]] = {}


def _tier_facts(tier: str) -> dict[str, Any] | None:
    """One tier's version, seeds per variant and held-out ids (None: not in this release);
    computed once per descriptor content (reading the truth is about a second a page)."""
    from icgbench.api.tables import tier_descriptor
    from icgbench.scorer.truth import public_truth

    cohorts: dict[str, dict[str, Any]] = {}
    try:
        d = tier_descriptor(tier)
        key = (tier, str(d.path), d.version, d.fingerprint())
        if key in _FACTS:
            return copy.deepcopy(_FACTS[key])
        for c in d.cohorts():
            ids = public_truth(d, c["variant"], c["seed"]).truth.ids
            cohorts.setdefault(c["variant"], {})[str(c["seed"])] = {
                split: id_runs(values.to_pylist()) for split, values in ids.items()}
    except UsageError as exc:  # no such tier in this release (the sealed one, often)
        log.info("the check page leaves out the %s tier: %s", tier, exc)
        return None
    except (InvalidInputError, OSError) as exc:  # its files are not all here
        log.warning("the check page leaves out the %s tier: %s", tier, exc)
        return None
    _FACTS[key] = {"version": d.version, "compatible": list(d.compatible_versions),
                   "cohorts": cohorts}
    return copy.deepcopy(_FACTS[key])


def checker_facts() -> dict[str, Any]:
    """Every public fact the in-browser check reads (see the module docstring)."""
    tiers = {name: facts for name in (*TIERS, SEALED.name)
             if (facts := _tier_facts(name)) is not None}
    return {**static_facts(), "tiers": tiers}


def static_facts() -> dict[str, Any]:
    """The facts that do not depend on a release (the R package ships them and reads each
    tier's version, seeds and ids from the release it is given)."""
    return {
        "messages": MESSAGES,
        "limits": {"max_bytes": DEFAULT_MAX_BYTES, "max_string": MAX_STRING_CHARS,
                   "max_errors": DEFAULT_MAX_ERRORS, "shown_value": SHOWN_VALUE, "show": SHOW},
        "keyword_order": list(KEYWORD_ORDER),
        "pattern_words": pattern_words(),
        "schema": contract.json_schema("submission"),
        "task_blocks": task_blocks(),
        "tasks": [[name, list(task.blocks)] for name, task in TASKS.items()],
        "block_splits": BLOCK_SPLITS,
        "categories": list(CATEGORIES),
        "task_categories": {name: task.category for name, task in TASKS.items()},
        "interventions": intervention_names(),
        # what no message shows as it is (icgbench.io.unprintable), for R's printing
        "unprintable": [list(r) for r in UNPRINTABLE],
        "variant_hashes": {v: get_variant(v).variant_hash for v in variant_names()},
        "frozen_seeds": [[name, list(t.seeds)] for name, t in TIERS.items()],
        # an on-the-fly cohort is checked, by default, against the release's own descriptor
        "descriptor_tier": {UNFROZEN_NAME: next(
            name for name, t in TIERS.items()
            if t.descriptor_path == get_tier(UNFROZEN_NAME).descriptor_path)},
    }


#: The checker's static facts, published with the schemas (``make contract`` writes them;
#: the R package's ``configure`` copies them with the schemas and the checker's code).
FACTS_FILE = ("schemas", "checker", "facts.json")


def facts_json(facts: dict[str, Any]) -> str:
    """The facts as the page embeds them (in a ``<script type="application/json">``: no
    ``</`` can end the element early). Key order is kept: the checker orders errors by
    the schema's keyword order, as jsonschema does."""
    return json.dumps(facts, separators=(",", ":")).replace("</", "<\\/")
