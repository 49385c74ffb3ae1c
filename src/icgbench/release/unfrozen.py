"""Cohorts simulated on the fly: a seed or size outside the frozen release.

``simulate_release`` writes one cohort in exactly the release's layout (a descriptor with
hashes, Parquet and CSV files), so the same loaders, validator and scorer work on it. Its
descriptor names the tier ``unfrozen`` and says ``icgbench:frozen: false``; score reports
carry the same flag and a notice, and the leaderboard refuses such submissions.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from icgbench import contract
from icgbench.errors import UsageError
from icgbench.generator import get_variant
from icgbench.generator.memory import fits
from icgbench.generator.simulator import split_sizes
from icgbench.io.atomic import ensure_writable_dir, replaced_dir, write_text
from icgbench.release.descriptor import build_document, load_descriptor
from icgbench.release.freeze import CohortKey, encode_cohort, write_floors
from icgbench.release.tiers import UNFROZEN, UNFROZEN_NOTICE, Tier


def unfrozen_tier(variant: str, seed: int, n_subjects: int | None = None,
                  months: int | None = None) -> Tier:
    """The one-cohort tier of ``(variant, seed)``: the small tier's sizes unless overridden.

    Raises ValueError for sizes the generator refuses or this machine cannot hold.
    """
    v = get_variant(variant)
    sizes = dict(UNFROZEN.sizes) if n_subjects is None else split_sizes(v, n_subjects)
    if months is not None and months < 1:
        raise ValueError(f"months must be at least 1, got {months}")
    problem = fits(sum(sizes.values()), months or v.months)
    if problem is not None:
        raise ValueError(problem)
    return replace(UNFROZEN, seeds=(seed,), sizes=sizes, months=months,
                   calibration=(variant, seed))


def simulate_release(tier: Tier, root: Path) -> Path:
    """Simulate ``tier``'s one cohort into a release folder at ``root``; the descriptor path.

    ``root`` is replaced as a whole: an existing folder must be empty or an earlier output
    of this function.
    """
    variant, seed = tier.calibration
    descriptor = root / tier.descriptor_path
    if descriptor.is_file() and load_descriptor(descriptor).frozen:
        raise UsageError(f"refusing to replace {root}: it holds a frozen release")
    ensure_writable_dir(root.parent)
    with replaced_dir(root, "unfrozen", marker=tier.descriptor_path) as stage:
        (stage / tier.data_dir).mkdir(parents=True)
        key = CohortKey(variant, seed)
        resources, rows = encode_cohort(tier, key, stage / tier.data_dir, f"{tier.data_dir}/")
        resources += write_floors({key: rows}, stage / tier.data_dir, f"{tier.data_dir}/")[key]
        cohort = {"variant": variant, "variant_hash": get_variant(variant).variant_hash,
                  "seed": seed, "sizes": dict(tier.sizes),
                  "months": tier.months or get_variant(variant).months}
        document = build_document(tier, [cohort], resources, {"icgbench:notice": UNFROZEN_NOTICE})
        write_text(stage / tier.descriptor_path, contract.dumps_package(document))
    return root / tier.descriptor_path
