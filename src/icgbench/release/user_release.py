"""The release of a user who installed the wheel: no clone, no file placed by hand.

The wheel carries every open tier's descriptor (``icgbench/descriptors``, the committed
``datapackage.json`` and ``datasets/full/datapackage.json``). Where no release is found
otherwise (:func:`icgbench.release.locate.release_root`), the release root is a folder of
the user's data home, ``release-<data version>``: the descriptors are copied there on
first use, and the small tier is regenerated there from the code, offline, and installed
only if every table matches the descriptor's digests: by ``icgbench data build --tier
small``, run as a child process (its progress bar shows on a terminal). The full tier then
downloads into the same root with ``icgbench data download --tier full``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

#: The descriptors inside the installed package (absent in a source checkout).
PACKAGED = Path(__file__).resolve().parents[1] / "descriptors"
#: The descriptors the wheel carries, relative to the release root.
DESCRIPTORS = ("datapackage.json", "datasets/full/datapackage.json")


def release_dir(home: Path | None) -> Path:
    """``<home>/release-<version>`` (the data home, ``$ICGBENCH_HOME``), else the user
    data folder's."""
    from icgbench.release.tiers import DATA_VERSION

    if home is None:
        import platformdirs

        home = Path(platformdirs.user_data_dir("icgbench", appauthor=False))
    return home / f"release-{DATA_VERSION}"


def user_release(home: Path | None) -> Path | None:
    """The user's release root under the data ``home`` (see :func:`release_dir`), made
    ready on first use; None when the package carries no descriptors (a source checkout,
    which has its own release)."""
    if not (PACKAGED / DESCRIPTORS[0]).is_file():
        return None
    root = release_dir(home)
    _install_descriptors(root)
    _ensure_small_tier(root)
    return root


def _install_descriptors(root: Path) -> None:
    from icgbench.io.atomic import write_bytes

    for relative in DESCRIPTORS:
        source, target = PACKAGED / relative, root / relative
        if source.is_file() and not target.exists():
            write_bytes(target, source.read_bytes())


def _ensure_small_tier(root: Path) -> None:
    """Build the small tier into ``root`` unless every one of its files is there; one
    process builds while the others wait (a lock on ``root/.small.lock``)."""
    from icgbench.errors import UsageError
    from icgbench.io import locks
    from icgbench.release.descriptor import load_descriptor

    descriptor = load_descriptor(root / DESCRIPTORS[0])
    if all(os.path.lexists(descriptor.base / r.path) for r in descriptor.resources):
        return
    try:
        fd = os.open(root / ".small.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        raise UsageError(f"cannot write the release into {root}: {exc.strerror or exc} "
                         "(set ICGBENCH_HOME to a writable folder)") from None
    try:
        locks.lock(fd)
        if all(os.path.lexists(descriptor.base / r.path) for r in descriptor.resources):
            return
        print(f"icgbench: first use of release {descriptor.version}: regenerating the small "
              f"tier from the code into {root} (offline; installed only if every table "
              "matches the release's digests)", file=sys.stderr, flush=True)
        built = subprocess.run([sys.executable, "-m", "icgbench", "data", "build", "--tier",
                                "small"], env={**os.environ, "ICGBENCH_RELEASE": str(root)},
                               stdout=subprocess.DEVNULL, check=False)
        if built.returncode != 0:
            raise UsageError(f"could not build the small tier into {root} (icgbench data "
                             f"build --tier small exited {built.returncode}; see above)")
        print(f"icgbench: the small tier is ready in {root}", file=sys.stderr)
    finally:
        os.close(fd)
