"""Every coefficient's decomposition has one row per item of its data, unpairable items
included, so that coefficients computed together resample the same items (the server
stacks them into one bootstrap draw)."""

import numpy as np
import pytest

from metrics.coefficients import agreement, alpha, gwet, prevalence, weighted
from metrics.data import MISSING, ReliabilityData


def _data(n_coders: int) -> ReliabilityData:
    rng = np.random.default_rng(4)
    codes = rng.integers(0, 3, (n_coders, 30))
    codes[1:, :3] = MISSING  # three items with a single value: unpairable
    codes[:, 3] = MISSING  # and one with none
    return ReliabilityData(codes, ("a", "b", "c"), tuple(range(30)), tuple(range(n_coders)))


DISTANCE = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]])
CASES = [
    (agreement.decompose_observed_agreement, {}, 3),
    (agreement.decompose_bennett_s, {}, 3),
    (agreement.decompose_scott_pi, {}, 2),
    (agreement.decompose_fleiss_pi, {}, 3),
    (agreement.decompose_cohen_kappa, {}, 2),
    (agreement.decompose_conger_kappa, {}, 3),
    (weighted.decompose_weighted_kappa, {"distance": DISTANCE}, 2),
    (gwet.decompose_gwet_ac1, {}, 3),
    (gwet.decompose_brennan_prediger, {}, 3),
    (alpha.decompose_krippendorff_alpha, {}, 3),
    (alpha.decompose_krippendorff_alpha, {"distance": DISTANCE}, 3),
    (alpha.decompose_alpha_individual, {}, 3),
    (prevalence.decompose_pabak, {}, 2),
    (prevalence.decompose_kappa_max, {}, 2),
]


@pytest.mark.parametrize(("decompose", "options", "n_coders"), CASES)
def test_a_decomposition_has_a_row_for_every_item(
    decompose: object, options: dict[str, object], n_coders: int
) -> None:
    data = _data(n_coders)
    decomposition = decompose(data, **options)  # type: ignore[operator]
    assert decomposition.item_stats.shape[0] == data.n_items
