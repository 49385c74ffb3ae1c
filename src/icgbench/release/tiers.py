"""What a release contains: its version, and which cohorts each tier holds."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from icgbench.errors import UnknownNameError

#: The data release version (semver, per the Data Package version recipe): bump it whenever
#: freezing would change any byte of the data, and record the change in CHANGELOG.md.
DATA_VERSION = "7.1.0"
#: Earlier minor releases of this major one whose submissions this release grades as its
#: own: every public table of every cohort they held is unchanged here (what a model read
#: then it reads now), so a file fitted on one needs no refit. Per release: its variants and,
#: per open tier, the digest of those cohorts' public tables (``descriptor.public_digest``;
#: a test recomputes it from the committed descriptors). Each descriptor lists them as
#: ``icgbench:compatible_releases``.
COMPATIBLE_RELEASES: dict[str, dict[str, Any]] = {
    "7.0.0": {
        "variants": ("linear_lowhet", "misspecified_signs", "misspecified_signs_v2",
                     "nonlinear_mixhost", "nonlinear_obs", "partial_observability"),
        "digests": {
            "small": "sha256:0032848ea313c342c0cb60dc6cf63770da104c5a9045b3beb4822c312a857707",
            "full": "sha256:b585f059cd035b268639e6615031af540bb346a0528bf351a5e469530566e984",
        },
    },
}
#: Fixed so that re-freezing writes a byte-identical descriptor.
CREATED = "2026-12-02T00:00:00Z"
#: The tier the public board grades; its cohorts choose the floors of the categories whose
#: floor is chosen on other cohorts (:mod:`icgbench.model_free.floors`).
BOARD_TIER = "full"
#: The tier name of a cohort simulated on the fly (``bench run`` with a seed outside the
#: release): graded like any other, never accepted by the board.
UNFROZEN_NAME = "unfrozen"
#: The tier of cohorts generated from the board's secret key (see :mod:`.sealed`).
SEALED_NAME = "sealed"
#: The sealed release's generation: bump it with every new key (a key rotation), so that a
#: new key gives a new sealed release version, ``<DATA_VERSION>+sealed.<generation>``.
SEALED_GENERATION = 1
#: What every output made from an unfrozen cohort says about it.
UNFROZEN_NOTICE = ("not frozen data: this cohort was simulated on the fly, outside the frozen "
                   "release, so its scores are for analysis only and cannot go on the "
                   "leaderboard")


@dataclass(frozen=True)
class Publication:
    """Where a release is published (``icgbench data publish``, docs/releasing.md): a
    Hugging Face dataset repository and a Zenodo record. The descriptor's mirrors and DOI
    are derived from these fields alone."""

    #: The Hub dataset repository (``owner/name``); each release is its tag ``v<version>``.
    hub_repository: str
    #: The Zenodo record of this data version (its DOI is ``10.5281/zenodo.<record>``),
    #: reserved before the release is tagged; None until then (no Zenodo mirror, no DOI).
    zenodo_record: int | None
    hub_endpoint: str = "https://huggingface.co"
    zenodo_endpoint: str = "https://zenodo.org"
    doi_prefix: str = "10.5281/zenodo."

    def archive_name(self, tier: str, version: str) -> str:
        """The release archive's file name, the same on every mirror."""
        return f"icg-bench-{tier}-{version}.tar.gz"

    def hub_revision(self, version: str) -> str:
        """The Hub tag of a release."""
        return f"v{version}"

    def hub_url(self, version: str, path: str) -> str:
        """A file of the release on the Hub (its ``resolve`` URL at the release's tag)."""
        return (f"{self.hub_endpoint}/datasets/{self.hub_repository}/resolve/"
                f"{self.hub_revision(version)}/{path}")

    def zenodo_url(self, path: str) -> str | None:
        """A file of the Zenodo record, or None when no record is configured."""
        if self.zenodo_record is None:
            return None
        return f"{self.zenodo_endpoint}/records/{self.zenodo_record}/files/{path}?download=1"

    @property
    def doi(self) -> str | None:
        """The DOI of the Zenodo record (None when none is configured)."""
        return None if self.zenodo_record is None else f"{self.doi_prefix}{self.zenodo_record}"

    def mirrors(self, tier: str, version: str) -> tuple[str, ...]:
        """The archive's download locations, in the order to try them: Hub, then Zenodo."""
        name = self.archive_name(tier, version)
        urls = (self.hub_url(version, name), self.zenodo_url(name))
        return tuple(u for u in urls if u is not None)


#: The one place the publication is configured (docs/releasing.md says how to set it).
PUBLICATION = Publication(hub_repository="icg-bench/icg-bench", zenodo_record=None)


@dataclass(frozen=True)
class Tier:
    """One tier of the release: the seeds of every variant and the cohort sizes."""

    name: str
    seeds: tuple[int, ...]
    sizes: dict[str, int] = field(hash=False)
    committed: bool
    description: str
    #: (variant, seed) of the cohort on which models choose structure_recovery's K*.
    calibration: tuple[str, int] = ("linear_lowhet", 0)
    #: Follow-up in months (None: each variant's own).
    months: int | None = None
    #: False only for cohorts simulated on the fly: never on the board.
    frozen: bool = True
    #: True for the sealed tier: generated from a secret key, published without its truth.
    sealed: bool = False

    @property
    def version(self) -> str:
        """The release version of the tier's descriptor."""
        return f"{DATA_VERSION}+{SEALED_NAME}.{SEALED_GENERATION}" if self.sealed else (
            DATA_VERSION)

    @property
    def mirrors(self) -> tuple[str, ...]:
        """URLs of this tier's release archive, tried in order by ``icgbench data download``
        (the descriptor's ``icgbench:mirrors``): the publication's, for a tier of the
        release that is not committed (the committed tiers, the sealed one and any tier
        outside :data:`TIERS`, such as a test's, list none)."""
        if self.committed or TIERS.get(self.name) is not self:
            return ()
        return PUBLICATION.mirrors(self.name, self.version)

    @property
    def descriptor_path(self) -> str:
        """Descriptor location relative to the release root."""
        if self.name in ("small", UNFROZEN_NAME):
            return "datapackage.json"
        return f"datasets/{self.name}/datapackage.json"

    @property
    def data_dir(self) -> str:
        """Folder of the tier's files relative to the release root."""
        return f"datasets/{self.name}"


TIERS: dict[str, Tier] = {
    "small": Tier(
        name="small",
        seeds=(0,),
        sizes={"train": 1200, "test": 400, "target_test": 400},
        committed=True,
        description="One seed per variant, 2,000 subjects per cohort; committed to the "
        "repository and used by every command offline.",
    ),
    "full": Tier(
        name="full",
        seeds=tuple(range(1, 61)),
        sizes={"train": 600, "test": 200, "target_test": 200},
        committed=False,
        description="Sixty seeds per variant, 1,000 subjects per cohort (the shape a power "
        "analysis chose: docs/baselines.md); its descriptor is committed, its files are "
        "built locally (icgbench data build) or downloaded.",
        calibration=("linear_lowhet", 1),
    ),
}


#: Cohorts of every variant generated from the board's secret key; the seeds are public
#: labels (the generation seed comes from the key), the sizes the full tier's.
SEALED = Tier(
    name=SEALED_NAME,
    seeds=(0,),
    sizes=dict(TIERS["full"].sizes),
    committed=True,
    description="One cohort per variant generated from a secret key held by the "
    "leaderboard's CI: only the public tables are published, with a commitment to the truth "
    "(the content digest of each truth table); grading needs the key.",
    sealed=True,
)


#: The template of an on-the-fly cohort's tier; ``release.unfrozen`` fills in its one
#: cohort, sizes and months.
UNFROZEN = Tier(
    name=UNFROZEN_NAME,
    seeds=(),
    sizes=dict(TIERS["small"].sizes),
    committed=False,
    frozen=False,
    description="One cohort simulated on the fly, outside the frozen release: it can be "
    "scored locally but never goes on the leaderboard.",
)


def get_tier(name: str) -> Tier:
    """The tier called ``name`` (a frozen tier or ``unfrozen``), or an UnknownNameError."""
    if name == UNFROZEN_NAME:
        return UNFROZEN
    if name == SEALED_NAME:
        return SEALED
    try:
        return TIERS[name]
    except KeyError:
        raise UnknownNameError("tier", name, [*TIERS, SEALED_NAME]) from None
