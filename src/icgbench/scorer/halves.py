"""Grading on a subset of the held-out subjects: the sealed tier's public and private halves.

A sealed cohort's held-out subjects are split, from the board's key, into a public half
(the board shows its scores at admission) and a private half (its scores are published when
the key is retired: :mod:`icgbench.release.sealed`). Grading on a half is grading on a
smaller cohort: every per-subject array of the truth and of the submission's blocks is cut
to the kept subjects, in the same order, and the tasks run unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pyarrow as pa

from icgbench.tasks import BLOCK_SPLITS
from icgbench.tasks.base import Blocks, Truth

#: Splits whose subjects the test-split-only truth fields follow.
TEST = "test"


def _cut(value: Any, keep: np.ndarray) -> Any:
    if isinstance(value, dict):
        return {k: _cut(v, keep) for k, v in value.items()}
    if isinstance(value, np.ndarray) and value.ndim >= 1 and len(value) == len(keep):
        return value[keep]
    return value


def restrict(truth: Truth, blocks: Blocks, keep: Mapping[str, np.ndarray]
             ) -> tuple[Truth, dict[str, Any]]:
    """``truth`` and aligned ``blocks`` cut to the subjects where ``keep[split]`` is True."""
    def per_split(field: Mapping[str, Any]) -> dict[str, Any]:
        return {s: v[keep[s]] if s in keep else v for s, v in field.items()}

    def test_only(field: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {k: v[keep[TEST]] for k, v in field.items()} if TEST in keep else dict(field)

    cut = replace(
        truth,
        ids={s: (v.filter(pa.array(keep[s])) if s in keep else v)
             for s, v in truth.ids.items()},
        event=per_split(truth.event), true_risk=per_split(truth.true_risk),
        reachable_risk=per_split(truth.reachable_risk),
        end_states=test_only(truth.end_states), counterfactual=test_only(truth.counterfactual),
        reachable_counterfactual=test_only(truth.reachable_counterfactual))
    out = {}
    for name, block in blocks.items():
        split = BLOCK_SPLITS.get(name)
        out[name] = _cut(dict(block), keep[split]) if split in keep else dict(block)
    return cut, out
