"""The sealed tier's generations: which keys have graded the sealed board, and which are retired.

Every sealed release is a generation (``SEALED_GENERATION``: a new key is a new generation).
The repository records each one in ``datasets/sealed-generations/generations.json``, beside
the release and outside the board (a leaderboard pull request cannot change it): its number,
its release version, its key's id and the date it was sealed; once retired, the date it was
retired and its key, published. A retired generation's descriptor is kept beside the record
(``<version>.datapackage.json``), so its entries stay gradable after a new generation
replaces ``datasets/sealed/``: with the published key, anyone regenerates the truth, checks
it against the commitment made at publication, and re-grades.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass
from pathlib import Path

from icgbench import contract
from icgbench.errors import InvalidInputError, UsageError, UserError
from icgbench.io.atomic import ensure_writable_dir, write_bytes, write_text
from icgbench.release import tiers
from icgbench.release.descriptor import SEALED_FIELD, Descriptor, load_descriptor, read_json
from icgbench.release.tiers import Tier

FOLDER = "datasets/sealed-generations"
RECORD = "generations.json"


@dataclass(frozen=True)
class Generation:
    """One sealed generation as the repository records it."""

    generation: int
    data_version: str
    key_id: str
    sealed_on: str
    retired_on: str | None = None
    key: str | None = None  # published when retired

    @property
    def retired(self) -> bool:
        return self.retired_on is not None


def record_path(root: Path) -> Path:
    return Path(root) / FOLDER / RECORD


def _descriptor_copy(root: Path, version: str) -> Path:
    return Path(root) / FOLDER / f"{version}.datapackage.json"


FIELDS = {"generation": int, "data_version": str, "key_id": str, "sealed_on": str,
          "retired_on": (str, type(None)), "key": (str, type(None))}


def load(root: Path) -> list[Generation]:
    """The recorded generations (none when the record is absent), oldest first."""
    path = record_path(root)
    if not path.exists():
        return []
    try:
        document = read_json(path)
    except UserError:  # refused above with its own message
        raise
    except (OSError, ValueError) as exc:
        raise InvalidInputError(f"cannot read {path}: {exc}") from None
    items = document.get("generations") if isinstance(document, dict) else None
    if not isinstance(items, list):
        raise InvalidInputError(f"{path}: expected an object with a generations list")
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or set(item) != set(FIELDS) or not all(
                isinstance(item[f], t) for f, t in FIELDS.items()):
            raise InvalidInputError(f"{path}: generations[{i}] must have exactly the fields "
                                    f"{', '.join(FIELDS)} with their types")
        g = Generation(**item)
        if g.retired != (g.key is not None):
            raise InvalidInputError(f"{path}: generations[{i}]: a retired generation "
                                    "publishes its key, a current one does not")
        out.append(g)
    return out


def _write(root: Path, generations: list[Generation]) -> None:
    ensure_writable_dir(Path(root) / FOLDER)
    write_text(record_path(root), contract.dumps(
        {"generations": [asdict(g) for g in generations]}))


def find(root: Path, data_version: str) -> Generation | None:
    """The recorded generation whose release version is ``data_version``, or None."""
    return next((g for g in load(root) if g.data_version == data_version), None)


def require_sealable(root: Path, version: str) -> None:
    """Refuse to seal release ``version`` at ``root`` when its generation is retired (its
    key is public) or when another generation is still current (retire it first, so that
    its entries stay gradable). Checked before anything is written."""
    generations = load(root)
    if any(g.data_version == version and g.retired for g in generations):
        raise UsageError(f"sealed release {version} is retired and its key published: a "
                         "new key is a new generation (bump SEALED_GENERATION in "
                         "src/icgbench/release/tiers.py and record it in CHANGELOG.md)")
    if any(not g.retired and g.data_version != version for g in generations):
        raise UsageError("the recorded sealed generation is not retired: retire it first "
                         "(`icgbench freeze --tier sealed --retire` with its key), so that "
                         "its entries stay gradable")


def record_sealed(root: Path, d: Descriptor, today: dt.date) -> Generation:
    """Record the generation that ``d`` (a freshly sealed descriptor, which
    :func:`require_sealable` allowed) belongs to; an unchanged one keeps its record."""
    sealed = d.document[SEALED_FIELD]
    generations = load(root)
    same = [g for g in generations if g.data_version == d.version]
    if same and same[0].key_id == sealed["key_id"]:
        return same[0]
    new = Generation(sealed["generation"], d.version, sealed["key_id"], today.isoformat())
    _write(root, [g for g in generations if g.data_version != d.version] + [new])
    return new


def retire(root: Path, key: bytes, today: dt.date, tier: Tier | None = None) -> Generation:
    """Retire the current generation: publish ``key`` (which must be its key) and keep its
    descriptor, so that its entries can be re-graded by anyone from then on."""
    tier = tiers.SEALED if tier is None else tier
    from icgbench.release.keys import key_id

    descriptor_path = Path(root) / tier.descriptor_path
    d = load_descriptor(descriptor_path)
    generations = load(root)
    mine = [g for g in generations if g.data_version == d.version]
    if not mine:
        raise UsageError(f"{record_path(root)} does not record sealed release {d.version}: "
                         "nothing to retire")
    g = mine[0]
    if g.retired:
        raise UsageError(f"generation {g.generation} ({g.data_version}) was retired on "
                         f"{g.retired_on}")
    if key_id(key) != g.key_id:
        raise UsageError(f"the key given (key id {key_id(key)}) is not generation "
                         f"{g.generation}'s (key id {g.key_id}): nothing was retired")
    ensure_writable_dir(Path(root) / FOLDER)
    write_bytes(_descriptor_copy(root, d.version), descriptor_path.read_bytes())
    done = Generation(g.generation, g.data_version, g.key_id, g.sealed_on, today.isoformat(),
                      key.hex())
    _write(root, [done if x is g else x for x in generations])
    return done


def descriptor_of(root: Path, g: Generation, tier: Tier | None = None) -> Descriptor:
    """The descriptor a generation's entries are graded against: the current sealed
    release's, or the copy kept when the generation was retired."""
    tier = tiers.SEALED if tier is None else tier
    path = _descriptor_copy(root, g.data_version) if g.retired else (
        Path(root) / tier.descriptor_path)
    d = load_descriptor(path)
    if d.version != g.data_version or d.document.get(SEALED_FIELD, {}).get("key_id") != (
            g.key_id):
        raise InvalidInputError(f"{path} is not the descriptor of generation {g.generation} "
                                f"({g.data_version}, key id {g.key_id})")
    return d


def published_key(g: Generation) -> bytes:
    """A retired generation's published key, checked against its recorded key id."""
    from icgbench.release.keys import key_id, parse_key

    key = parse_key(g.key or "")
    if key_id(key) != g.key_id:
        raise InvalidInputError(f"generation {g.generation}'s published key does not have its "
                                f"recorded key id {g.key_id}")
    return key


def retired_key(data_version: str) -> bytes | None:
    """The published key of the retired generation ``data_version`` in the located release,
    or None (not retired, not recorded, or no release found)."""
    from icgbench.release import locate

    try:
        g = find(locate.release_root(), data_version)
    except UsageError:
        return None
    return published_key(g) if g is not None and g.retired else None
