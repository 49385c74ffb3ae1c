"""Finding the release on disk: the folder that holds ``datapackage.json``.

Order: the ``ICGBENCH_HOME`` environment variable; the current folder or one of its
parents holding an ICg-Bench descriptor; the source checkout this package was installed
from (editable installs). The small tier lives there; the full tier under
``datasets/full/``.
"""

from __future__ import annotations

import os
from pathlib import Path

from icgbench.errors import UsageError

PACKAGE_NAME_PREFIX = "icg-bench"
ENV_VAR = "ICGBENCH_HOME"


def _is_release_root(folder: Path) -> bool:
    descriptor = folder / "datapackage.json"
    if not descriptor.is_file():
        return False
    from icgbench.release.descriptor import read_json

    try:
        document = read_json(descriptor)
    except (OSError, ValueError):
        return False
    name = document.get("name", "") if isinstance(document, dict) else ""
    return isinstance(name, str) and name.startswith(PACKAGE_NAME_PREFIX)


def release_root() -> Path:
    """The release root folder, or a UsageError explaining how to get one."""
    env = os.environ.get(ENV_VAR)
    if env:
        root = Path(env)
        if not _is_release_root(root):
            raise UsageError(f"{ENV_VAR}={env} does not hold an ICg-Bench datapackage.json")
        return root
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if _is_release_root(folder):
            return folder
    checkout = Path(__file__).resolve().parents[3]
    if _is_release_root(checkout):
        return checkout
    raise UsageError(
        "no ICg-Bench release found: run inside the repository, or set "
        f"{ENV_VAR} to a folder holding datapackage.json"
    )


def source_root() -> Path:
    """The source checkout this package runs from (where ``freeze`` writes by default)."""
    checkout = Path(__file__).resolve().parents[3]
    if (checkout / "pyproject.toml").is_file() and (checkout / "schemas").is_dir():
        return checkout
    raise UsageError("not running from a source checkout: pass --root DIR")
