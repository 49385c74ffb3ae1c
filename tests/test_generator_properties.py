"""Property tests over sizes, seeds and follow-up lengths."""

from __future__ import annotations

import numpy as np
import pyarrow.compute as pc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import examples
from icgbench.contract.vocabulary import MODALITIES, RISK_STATE, SPLITS, STATES, feature_columns
from icgbench.generator import get_variant, simulate, variant_names

cohorts = st.builds(
    lambda v, seed, train, test, target, months: (v, seed, {"train": train, "test": test,
                                                             "target_test": target}, months),
    st.sampled_from(variant_names()),
    st.integers(min_value=0, max_value=2**32 - 1),
    st.integers(min_value=1, max_value=30),
    st.integers(min_value=1, max_value=10),
    st.integers(min_value=1, max_value=10),
    st.integers(min_value=1, max_value=30),
)


@pytest.mark.parametrize("n", examples(3, 100))
def test_tables_are_consistent_for_any_size_seed_and_follow_up(n):
    """Each example simulates a cohort at a follow-up no release has (its constants solved
    afresh, about 0.4 s): a few in the fast suite, a campaign in CI."""
    settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.too_slow])(
        given(cohorts)(_consistent))()


def _consistent(case) -> None:
    name, seed, sizes, months = case
    c = simulate(name, seed, sizes=sizes, months=months)
    t = c.tables
    n = sum(sizes.values())
    visits = [m for m in get_variant(name).visit_months if m <= months]
    recorded = sorted(set(visits) | {months})

    ids = t["subjects"]["subject_id"].to_pylist()
    assert len(ids) == n == len(set(ids))
    assert t["subjects"]["split"].to_pylist() == [s for s in SPLITS for _ in range(sizes[s])]
    assert t["observations"].num_rows == n * len(visits)
    assert t["masks"].num_rows == n * len(visits)
    assert t["train_outcomes"].num_rows == sizes["train"]
    assert t["train_states"].num_rows == sizes["train"] * len(recorded)
    held = sizes["test"] + sizes["target_test"]
    assert t["test_outcomes"].num_rows == held == t["counterfactual_risks"].num_rows
    assert t["test_states"].num_rows == held * len(recorded)
    assert set(t["train_states"]["month"].to_pylist()) == set(recorded)

    for name_ in ("test_outcomes", "counterfactual_risks"):
        for col in t[name_].column_names:
            if col == "true_risk" or col.startswith("risk"):
                values = t[name_][col].to_numpy()
                assert np.all((values >= 0) & (values <= 1)), col

    observed = np.stack([t["masks"][m].to_numpy() for m in MODALITIES], axis=1)
    for mi, columns in enumerate(feature_columns().values()):
        for col in columns:
            values = t["observations"][col]
            assert values.null_count == int((~observed[:, mi]).sum())
            present = pc.drop_null(values).to_numpy().astype(float)
            assert np.all(np.isfinite(present))
    assert RISK_STATE not in t["train_states"].column_names  # public: never truth-derived
    for name_, columns in (("train_states", STATES), ("test_states", (*STATES, RISK_STATE))):
        for col in columns:
            assert t[name_][col].null_count == 0
            assert np.all(np.isfinite(t[name_][col].to_numpy()))
