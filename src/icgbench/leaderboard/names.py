"""Who an entry may say it is: look-alike names and versions, and the reference models.

**Look-alikes.** Two model names are confused when their *skeletons* are equal: the
skeleton is the name in Unicode compatibility form (NFKC), case-folded, with the
substitutions of ``CONFUSABLE_CHARACTERS`` then ``CONFUSABLE_SEQUENCES`` applied (``0``
reads as ``o``; ``1``, ``i`` (so also ``I``), ``|`` and ``l`` as ``l``; ``-``, ``_`` and
``.`` as one separator; then ``rn`` as ``m``, ``vv`` as ``w``, ``cl`` as ``d``). A new
name is refused when its skeleton equals that of a *different* name already known: on
the board (earlier rows, so the board at a pull request's base too) or in the trusted
code's reference registry (``icgbench.models``).
Versions of one model follow the same rule among themselves (``0.3.O`` beside ``0.3.0``).

**Reference models.** A name of the registry is the trusted code's own: an entry under it
must carry a version the trusted code produces (:func:`reference_versions`), and a model
the registry flags ``oracle`` (it reads the truth) is never an entry. Whether an entry is
a reference line on the page (the ``random`` floor) is decided by the registry and that
version, never by a name alone.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable

from icgbench import __version__

#: Characters that read alike, replaced first (after case-folding) by their class's one.
CONFUSABLE_CHARACTERS: dict[str, str] = {"0": "o", "1": "l", "i": "l", "|": "l",
                                         "-": "_", ".": "_"}
#: Sequences that read as one letter, replaced next.
CONFUSABLE_SEQUENCES: dict[str, str] = {"rn": "m", "vv": "w", "cl": "d"}
_TABLE = str.maketrans(CONFUSABLE_CHARACTERS)
#: The registry model drawn as the floor line on the page (at a reference version).
FLOOR_MODEL = "random"
#: Package versions whose reference-model entries a board may keep besides the running
#: package's: add the old version here when the package is bumped without regenerating
#: the board (entries under a registry name must carry one of these or the current one).
EARLIER_REFERENCE_VERSIONS: tuple[str, ...] = ()


def fold(text: str) -> str:
    """What two names must not share unless equal: NFKC compatibility form, case-folded."""
    return unicodedata.normalize("NFKC", text).casefold()


@functools.lru_cache(maxsize=4096)
def skeleton(text: str) -> str:
    """The confusable skeleton of a name or version (see the module docstring); cached: a
    board repeats each model's name and version once per cohort."""
    out = fold(text).translate(_TABLE)
    for sequence, letter in CONFUSABLE_SEQUENCES.items():
        out = out.replace(sequence, letter)
    return out


def reference_models() -> dict[str, bool]:
    """The trusted code's reference registry: model name -> its ``oracle`` flag."""
    from icgbench.models import DECLARATIONS

    return {name: d.oracle for name, d in DECLARATIONS.items()}


def reference_versions() -> frozenset[str]:
    """The versions the trusted code's reference models carry (the package's)."""
    return frozenset({__version__, *EARLIER_REFERENCE_VERSIONS})


def truth_readers() -> tuple[str, ...]:
    """The registry's models flagged ``oracle`` (they read the truth): reference lines
    scored at render time, never entries."""
    return tuple(name for name, oracle in reference_models().items() if oracle)


def is_floor(model: str, version: str) -> bool:
    """Whether an entry is the page's floor line: the registry's floor model at a version
    the trusted code produces (a stranger's ``random 0.3.1`` is not)."""
    return model == FLOOR_MODEL and model in reference_models() and (
        version in reference_versions())


def _differ_how(new: str, old: str) -> str:
    if fold(new) == fold(old):
        return "only by case or Unicode compatibility"
    return f"only by look-alike characters (both read as {skeleton(new)!r})"


class Names:
    """The names and versions known so far, to refuse impersonation and look-alikes.

    Starts with the reference registry; ``add`` each accepted (name, version) in board
    order. Lookups are by skeleton, so checking a board is linear in its size.
    """

    def __init__(self, known: Iterable[tuple[str, str]] = ()) -> None:
        self.registry = reference_models()
        self.versions = reference_versions()
        self._names: dict[str, tuple[str, str]] = {
            skeleton(n): (n, "an icgbench reference model") for n in self.registry}
        self._versions: dict[str, dict[str, str]] = {}
        for name, version in known:
            self.add(name, version)

    def add(self, name: str, version: str) -> None:
        """Record (name, version) as known (on the board)."""
        self._names.setdefault(skeleton(name), (name, "already on the board"))
        self._versions.setdefault(name, {}).setdefault(skeleton(version), version)

    def problem(self, name: str, version: str) -> str | None:
        """Why (name, version) would impersonate or be confused with a known one, or None."""
        if name in self.registry:
            if self.registry[name]:
                return (f"{name} reads the truth (the registry flags it oracle): it is a "
                        "reference line, never an entry")
            if version not in self.versions:
                return (f"{name} is an icgbench reference model: its entries carry a version "
                        f"the trusted code produces ({', '.join(sorted(self.versions))}), not "
                        f"{version!r}; a model of your own needs a name of its own")
        other, where = self._names.get(skeleton(name), (name, ""))
        if other != name:
            return (f"model name {name!r} differs from {other!r} ({where}) "
                    f"{_differ_how(name, other)}; use the same name or a distinct one")
        if name in self.registry:
            return None  # its versions are the reference versions, checked above
        old = self._versions.get(name, {}).get(skeleton(version), version)
        if old != version:
            return (f"version {version!r} of {name} differs from {old!r}, already on the "
                    f"board, {_differ_how(version, old)}")
        return None


def name_clash(known: Iterable[tuple[str, str]], name: str, version: str) -> str | None:
    """Why (name, version) would be confused with a (name, version) already known, or None
    (the reference registry is always known)."""
    return Names(known).problem(name, version)
