"""A sealed release for tests: the sealed tier frozen with a throw-away key."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from conftest import built_once
from icgbench.release import sealed, tiers
from icgbench.release.locate import release_root

#: The sealed tier with small cohorts, so that freezing it takes seconds.
SMALL = replace(tiers.SEALED, sizes={"train": 150, "test": 60, "target_test": 60})


#: The key of the sealed release most tests share (a fixed one: the same bytes every run).
KEY = "5e" * 32


def sealed_release(root: Path, key: str = KEY) -> Path:
    """``root`` made a release root (the small tier's descriptor, so ICGBENCH_HOME can name
    it) holding the sealed tier frozen with ``key`` (64 hex digits) at SMALL's sizes.

    Each key's release is frozen once per test session and copied, so that a test may
    change its copy (retire the generation, freeze another)."""
    def freeze(path: Path) -> None:
        path.mkdir(parents=True)
        shutil.copyfile(release_root() / "datapackage.json", path / "datapackage.json")
        sealed.freeze_sealed(path, bytes.fromhex(key), SMALL)

    shutil.copytree(built_once(f"sealed-releases/{key}", freeze), root, symlinks=True,
                    dirs_exist_ok=True)
    return root


def contributed(doc: dict) -> dict:
    """A reference model's submission under a contributor's name (``my_<model>``): the
    sealed board refuses every reference model's name."""
    doc["model"] = {**doc["model"], "name": f"my_{doc['model']['name']}"}
    return doc
