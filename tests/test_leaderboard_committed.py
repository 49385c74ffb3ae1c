"""The committed public board: complete, and every number reproduced from its submission.

This is what CI runs on a leaderboard pull request. It needs the full tier, which it builds
(and verifies against the committed descriptor) when it is not there yet.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from icgbench.generator import variant_names
from icgbench.leaderboard.verify import verify
from icgbench.models import MODELS, competitors
from icgbench.release.descriptor import load_descriptor
from icgbench.release.tiers import TIERS

ROOT = Path(__file__).resolve().parents[1]
BOARD = ROOT / "leaderboard"


@pytest.mark.slow
def test_committed_board_reproduces_every_recorded_number(full_tier_root):
    entries, problems = verify(BOARD, jobs=2)
    assert [str(p) for p in problems] == []
    assert {e.tier for e in entries} == {"full"}
    assert all(e.submission_path == e.canonical_path for e in entries)
    cohorts = {(v, s) for v in variant_names() for s in TIERS["full"].seeds}
    for model in competitors():
        covered = {(e.variant_name, e.seed) for e in entries if e.model_name == model}
        assert covered == cohorts, model
    assert not any(MODELS[e.model_name].oracle for e in entries if e.model_name in MODELS)
    assert {e.data_version for e in entries} == {load_descriptor(
        ROOT / "datapackage.json").version}
