"""mbcnet_sign_constrained_augmented: synthetic rows labelled by the prior's equation."""

from __future__ import annotations

import numpy as np
import pytest

from icgbench.contract.vocabulary import STATES
from icgbench.generator import INTERVENTIONS, get_variant, prior_direction
from icgbench.generator.reference import cohort_mechanism
from icgbench.models import CohortData, get_model
from icgbench.models.mbcnet_sign_constrained import SIGN_FLOOR, SignConstrainedLogistic
from icgbench.models.mbcnet_sign_constrained_augmented import (
    SAMPLES_PER_INTERVENTION,
    augmented_rows,
)


def test_two_rows_per_intervention_per_subject_weighing_one_copy_in_all():
    states = np.ones((5, len(STATES)))
    scales = {"a": {"ROS": 0.5}, "b": {"DNA_adducts": 2.0, "ROS": 3.0}}
    rows, labels, weight = augmented_rows(states, scales, lambda x: x[:, 1] / 4,
                                          np.random.default_rng(0))
    assert SAMPLES_PER_INTERVENTION == 2
    assert rows.shape == (2 * 2 * 5, len(STATES)) and len(labels) == len(weight) == 20
    assert weight.sum() == 5.0
    ros = STATES.index("ROS")
    assert set(rows[:10, ros]) == {0.5} and set(rows[10:, ros]) == {3.0}
    assert set(rows[10:, STATES.index("DNA_adducts")]) == {2.0}
    assert set(labels) <= {0.0, 1.0}


@pytest.mark.slow
def test_the_synthetic_rows_pull_the_reversed_coefficients_towards_the_prior():
    """misspecified_signs seed 0 reverses a state (drawn; truth only). The data say the
    opposite of the prior, so without the synthetic rows its coefficient sits on its
    bound; the prior's equation pulls it off it, and the interventions on it then move the
    risk the prior's way (the DGP's is the opposite)."""
    variant = "misspecified_signs"
    data = CohortData.load(variant)
    model = get_model("mbcnet_sign_constrained_augmented")
    model.fit(data)
    signs = [data.prior_signs()[s] for s in STATES]
    plain = SignConstrainedLogistic(signs).fit(model.z_train, model.y_train)
    reversed_ = cohort_mechanism(get_variant(variant), 0).flipped
    assert len(reversed_) == 1
    for state in reversed_:
        j = STATES.index(state)
        assert abs(plain.coefficients()[j]) < 10 * SIGN_FLOOR, state
        assert signs[j] * model.stage2.coefficients()[j] > 100 * SIGN_FLOOR, state
    block = model.submission(data)["intervention_conformity"]
    for name, scales in INTERVENTIONS.items():
        if set(reversed_) & set(scales):
            delta = np.mean(np.subtract(block["interventions"][name], block["proba"]))
            assert np.sign(delta) == prior_direction(name), name
