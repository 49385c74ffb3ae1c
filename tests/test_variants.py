import dataclasses
import hashlib
import json

import pytest

from icgbench.generator import UnknownVariantError, all_variants, get_variant, variant_names

SEED_VARIANTS = [
    "linear_lowhet",
    "nonlinear_mixhost",
    "partial_observability",
    "nonlinear_obs",
    "misspecified_signs",
    "misspecified_signs_v2",
]


def test_registry_holds_the_six_seed_variants_in_order():
    """The seed documentation's six first, in its order; variants added since follow."""
    assert variant_names()[:len(SEED_VARIANTS)] == SEED_VARIANTS
    assert len(set(variant_names())) == len(variant_names())


def test_hash_is_sha256_of_canonical_json_of_all_fields():
    """Every field but one added later and still at its neutral value (ADDED_LATER)."""
    from icgbench.generator.variants import ADDED_LATER

    for v in all_variants():
        fields = {k: x for k, x in dataclasses.asdict(v).items()
                  if k not in ADDED_LATER or x != ADDED_LATER[k]}
        canonical = json.dumps(fields, sort_keys=True, separators=(",", ":"))
        assert v.canonical_json() == canonical
        assert " " not in canonical.replace(v.description, "")
        assert v.variant_hash == hashlib.sha256(canonical.encode()).hexdigest()[:12]
        assert len(v.variant_hash) == 12


def test_a_published_hash_is_pinned():
    """The hash stamped on the frozen release, the board and the docs' examples."""
    assert get_variant("linear_lowhet").variant_hash == "bcfaa11dd012"


def test_every_field_changes_the_hash():
    base = get_variant("linear_lowhet")
    assert base.variant_hash != dataclasses.replace(base, n_train=base.n_train + 1).variant_hash
    assert base.variant_hash != dataclasses.replace(base, description="x").variant_hash


def test_hashes_are_distinct_and_variants_frozen():
    hashes = {v.variant_hash for v in all_variants()}
    assert len(hashes) == len(variant_names())
    with pytest.raises(dataclasses.FrozenInstanceError):
        get_variant("linear_lowhet").months = 12  # type: ignore[misc]


def test_unknown_variant_lists_registered_names():
    with pytest.raises(UnknownVariantError) as info:
        get_variant("no_such_variant")
    message = str(info.value)
    assert "no_such_variant" in message
    for name in variant_names():
        assert name in message


def test_variant_fields_say_what_the_seed_says():
    v = {v.name: v for v in all_variants()}
    assert v["linear_lowhet"].coupling == "linear"
    assert v["linear_lowhet"].host_heterogeneity == "low"
    assert v["nonlinear_mixhost"].archetype_mode == "continuous_mixture"
    assert v["nonlinear_mixhost"].host_heterogeneity == "high"
    assert v["partial_observability"].masking_rate == 0.60
    # the seed masks transcriptomic and epigenomic modules; release 3.0 masks mutational too
    assert {"transcriptomic", "epigenomic"} <= set(v["partial_observability"].masked_modalities)
    assert v["nonlinear_obs"].observation_operator == "nonlinear"
    assert v["nonlinear_obs"].coupling == "linear"
    # the seed flips one sign, then two; which ones each cohort draws from the candidates
    assert v["misspecified_signs"].n_flips == 1 and v["misspecified_signs_v2"].n_flips == 2
    assert len(v["misspecified_signs"].flip_candidates) >= 3
    assert v["misspecified_signs"].flip_candidates == v["misspecified_signs_v2"].flip_candidates
    assert {"epigenetic_age", "immune_clearance"} <= set(v["misspecified_signs"].flip_candidates)
    assert all(v[name].n_flips == 0 for name in v if not name.startswith("misspecified"))
