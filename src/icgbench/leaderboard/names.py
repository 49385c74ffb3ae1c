"""Who an entry may say it is: look-alike names and versions, and the reference models.

**Look-alikes.** Two model names are confused when their *skeletons* are equal: the
skeleton is the name in Unicode compatibility form (NFKC), case-folded, with the
substitutions of ``CONFUSABLE_CHARACTERS`` applied (the digits that read as letters: ``0``
as ``o``, ``1`` as ``l``, ``2`` as ``z``, ``5`` as ``s``, ``8`` as ``b``, ``9`` as ``g``;
``i`` (so also ``I``), ``|`` and ``l`` as ``l``; ``q`` as ``g``; ``-``, ``_`` and ``.`` as
one separator), then runs of separators made one and separators at either end dropped
(``logistic__direct``, ``pc_``, ``oracle.``), then the sequences of
``CONFUSABLE_SEQUENCES`` (``rn`` as ``m``, ``vv`` as ``w``, ``cl`` as ``d``). No two digits
share a letter, so versions that differ by a digit (``0.6.0``, ``0.8.0``) never clash. A
new name is refused when its skeleton equals that of a *different* name already known: on
the board (earlier rows, so the board at a pull request's base too) or in the trusted
code's reference registry (``icgbench.models``). Versions of one model follow the same rule
among themselves (``0.3.O``, ``1.`` or ``1_`` beside ``0.3.0`` and ``1``).

**Reference models.** A name of the registry is the trusted code's own: on the public board
an entry under it must carry a version the trusted code produces
(:func:`reference_versions`); a model the registry flags ``oracle`` (it reads the truth) is
never an entry; and the sealed board, which holds no reference entry, refuses every
registry name (and every name that reads like one). Whether an entry is a reference line on
the page (the ``random`` floor) is decided by the registry, that version and the public
tier, never by a name alone.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable

from icgbench import __version__

#: Characters that read alike, replaced first (after case-folding) by their class's one.
CONFUSABLE_CHARACTERS: dict[str, str] = {"0": "o", "1": "l", "2": "z", "5": "s", "8": "b",
                                         "9": "g", "i": "l", "|": "l", "q": "g",
                                         "-": "_", ".": "_"}
#: Sequences that read as one letter, replaced last.
CONFUSABLE_SEQUENCES: dict[str, str] = {"rn": "m", "vv": "w", "cl": "d"}
_TABLE = str.maketrans(CONFUSABLE_CHARACTERS)
_SEPARATOR = "_"
#: The tier whose board holds contributions only (no reference model is graded there).
SEALED_TIER = "sealed"
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
    out = _SEPARATOR.join(part for part in out.split(_SEPARATOR) if part)
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


def is_floor(model: str, version: str, tier: str) -> bool:
    """Whether an entry is the page's floor line: the registry's floor model at a version
    the trusted code produces, on a board other than the sealed one (a stranger's
    ``random 0.3.1``, or any sealed ``random``, is not)."""
    return model == FLOOR_MODEL and model in reference_models() and (
        version in reference_versions()) and tier != SEALED_TIER


def _differ_how(new: str, old: str) -> str:
    if fold(new) == fold(old):
        return "only by case or Unicode compatibility"
    return f"only by look-alike characters (both read as {skeleton(new)!r})"


class Names:
    """The names and versions known so far, to refuse impersonation and look-alikes.

    Starts with the reference registry; ``add`` each accepted (name, version) in board
    order. Lookups are by skeleton, so checking a board is linear in its size.
    """

    def __init__(self, known: Iterable[tuple[str, str]] = (), tier: str = "") -> None:
        self.registry = reference_models()
        self.sealed = tier == SEALED_TIER
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
            if self.sealed:
                return (f"{name} is an icgbench reference model: the sealed board holds no "
                        "reference entry, only contributions; a model of your own needs a "
                        "name of its own")
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


def name_clash(known: Iterable[tuple[str, str]], name: str, version: str, tier: str = ""
               ) -> str | None:
    """Why (name, version) would be confused with a (name, version) already known on a
    board of ``tier``, or None (the reference registry is always known)."""
    return Names(known, tier).problem(name, version)
