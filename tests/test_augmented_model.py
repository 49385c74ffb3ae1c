"""mbcnet_sign_constrained_augmented: synthetic rows labelled by the prior's equation."""

from __future__ import annotations

import numpy as np

from icgbench.models import CohortData, get_model
from icgbench.models.mbcnet_sign_constrained import SIGN_FLOOR, SignConstrainedLogistic
from icgbench.models.mbcnet_sign_constrained_augmented import (
    SAMPLES_PER_INTERVENTION,
    augmented_rows,
)
from icgbench.vocabulary import STATES


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


def test_the_synthetic_rows_pull_the_flipped_coefficient_towards_the_prior():
    data = CohortData.load("misspecified_signs")
    model = get_model("mbcnet_sign_constrained_augmented")
    model.fit(data)
    signs = [data.prior_signs()[s] for s in STATES]
    plain = SignConstrainedLogistic(signs).fit(model.z_train, model.y_train)
    epigenetic = STATES.index("epigenetic_age")
    # the data say negative: without the synthetic rows the coefficient sits on its bound
    assert plain.coefficients()[epigenetic] < 10 * SIGN_FLOOR
    # the prior's equation says +0.45 on the standardised scale: the rows pull it up
    assert model.stage2.coefficients()[epigenetic] > 100 * SIGN_FLOOR
    reset = model.submission(data)["intervention_conformity"]
    delta = np.mean(np.subtract(reset["interventions"]["do_epigenetic_memory_reset"],
                                reset["proba"]))
    assert delta < 0  # the prior's direction; the DGP's is the opposite
