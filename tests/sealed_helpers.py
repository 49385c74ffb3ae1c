"""A sealed release for tests: the sealed tier frozen with a throw-away key."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from icgbench.release import sealed, tiers
from icgbench.release.locate import release_root

#: The sealed tier with small cohorts, so that freezing it takes seconds.
SMALL = replace(tiers.SEALED, sizes={"train": 150, "test": 60, "target_test": 60})


def sealed_release(root: Path, key: str) -> Path:
    """``root`` made a release root (the small tier's descriptor, so ICGBENCH_HOME can name
    it) holding the sealed tier frozen with ``key`` (64 hex digits) at SMALL's sizes."""
    shutil.copyfile(release_root() / "datapackage.json", root / "datapackage.json")
    sealed.freeze_sealed(root, bytes.fromhex(key), SMALL)
    return root


def contributed(doc: dict) -> dict:
    """A reference model's submission under a contributor's name (``my_<model>``): the
    sealed board refuses every reference model's name."""
    doc["model"] = {**doc["model"], "name": f"my_{doc['model']['name']}"}
    return doc
