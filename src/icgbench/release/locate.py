"""Finding the release on disk (the folder that holds ``datapackage.json``) and the data home.

Two environment variables, each with one meaning:

- ``ICGBENCH_RELEASE`` names the release root. It must hold an ICg-Bench
  ``datapackage.json``; a wrong one is an error, since the user asked for it.
- ``ICGBENCH_HOME`` is the per-user data home: downloaded archives are cached in its
  ``cache`` folder. It is not required to hold anything, so an empty or missing folder
  never breaks a command. For compatibility with earlier releases, a home that holds a
  ``datapackage.json`` is still taken as the release root.

The release root is, in order: ``ICGBENCH_RELEASE``; ``ICGBENCH_HOME`` if it holds a
descriptor; the current folder or one of its parents holding an ICg-Bench descriptor; the
source checkout this package was installed from (editable installs); for an installed
wheel, the user's release, made on first use from the descriptors the wheel carries
(:mod:`icgbench.release.user_release`). The small tier lives there; the full tier under
``datasets/full/``.

A ``datapackage.json`` that cannot be read (malformed JSON such as a duplicate key, not a
regular file, too large) is never passed over for the next candidate: the search stops
with an error naming the file and the reason, so a command never grades silently against
another release. Only a readable descriptor of another package (its ``name`` does not
start with ``icg-bench``) is passed over.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from icgbench.errors import InvalidInputError, UsageError

if TYPE_CHECKING:
    from icgbench.release.descriptor import Descriptor

PACKAGE_NAME_PREFIX = "icg-bench"
#: The per-user data home (the download cache is ``$ICGBENCH_HOME/cache``).
HOME_ENV = "ICGBENCH_HOME"
#: The release root, when it is neither the current folder nor the source checkout.
RELEASE_ENV = "ICGBENCH_RELEASE"


def _is_release_root(folder: Path, whence: str) -> bool:
    """True when ``folder`` holds an ICg-Bench ``datapackage.json``; False when it holds
    none, or a readable one of another package. An InvalidInputError, naming the file, the
    reason and ``whence`` (how the folder was found), when it cannot be read."""
    descriptor = folder / "datapackage.json"
    if not os.path.lexists(descriptor):
        return False
    from icgbench.io.untrusted import printable
    from icgbench.release.descriptor import read_json

    try:
        document = read_json(descriptor)
    except FileNotFoundError:  # a dangling link, or removed meanwhile
        return False
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise InvalidInputError(f"datapackage.json in {folder}: {printable(str(reason))} "
                                f"({whence}; fix it, or set {RELEASE_ENV} to the release to "
                                "use)") from None
    name = document.get("name", "") if isinstance(document, dict) else ""
    return isinstance(name, str) and name.startswith(PACKAGE_NAME_PREFIX)


def _named_root(variable: str, value: str, hint: str) -> Path:
    """The release root an environment variable names, or a UserError saying why not."""
    root = Path(value)
    if not _is_release_root(root, f"{variable} names it"):
        raise UsageError(f"{variable}={value} does not hold an ICg-Bench datapackage.json "
                         f"({hint})")
    return root


def release_root() -> Path:
    """The release root folder, or a UserError explaining how to get one."""
    named = os.environ.get(RELEASE_ENV)
    if named:
        return _named_root(RELEASE_ENV, named, f"unset {RELEASE_ENV} to use the release "
                           "in the current folder or the source checkout")
    home = data_home()
    if home is not None and os.path.lexists(home / "datapackage.json"):
        return _named_root(HOME_ENV, str(home), f"{HOME_ENV} is the data home and need "
                           f"not hold a release; name a release root with {RELEASE_ENV}")
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if _is_release_root(folder, "the release found from the current folder"):
            return folder
    checkout = Path(__file__).resolve().parents[3]
    if _is_release_root(checkout, "the release of the source checkout"):
        return checkout
    from icgbench.release.user_release import user_release

    installed = user_release(data_home())
    if installed is not None:
        return installed
    raise UsageError(
        "no ICg-Bench release found: run inside the repository, or set "
        f"{RELEASE_ENV} to a folder holding datapackage.json"
    )


def require_tier(tier: str, root: Path | None = None) -> None:
    """Check that the release at ``root`` (default: located) holds ``tier`` when the tier
    is optional: the sealed tier (``datasets/sealed/``) is there only once the board's
    maintainers have published it. A one-line UsageError when it is absent."""
    from icgbench.release.tiers import SEALED

    if tier != SEALED.name:
        return
    root = release_root() if root is None else Path(root)
    if not os.path.lexists(root / SEALED.descriptor_path):
        raise UsageError(f"the release at {root} has no sealed tier (no "
                         f"{SEALED.descriptor_path}): the sealed tier is published with the "
                         "leaderboard's sealed track; name a release that holds one with "
                         f"{RELEASE_ENV}")


def data_home() -> Path | None:
    """The per-user data home ``$ICGBENCH_HOME``, or None when it is not set."""
    home = os.environ.get(HOME_ENV)
    return Path(home) if home else None


def source_root() -> Path:
    """The source checkout this package runs from (where ``freeze`` writes by default)."""
    checkout = Path(__file__).resolve().parents[3]
    if (checkout / "pyproject.toml").is_file() and (checkout / "schemas").is_dir():
        return checkout
    raise UsageError("not running from a source checkout: pass --root DIR")


def tier_descriptor(tier: str = "small", root: Path | None = None) -> Descriptor:
    """The loaded descriptor of ``tier`` in the release at ``root`` (default: located)."""
    from icgbench.release.descriptor import load_descriptor
    from icgbench.release.tiers import get_tier

    root = release_root() if root is None else Path(root)
    return load_descriptor(root / get_tier(tier).descriptor_path)
