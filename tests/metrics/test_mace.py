"""MACE: a hand-computed step, crowd-kit's EM from its own starting values, a simulated crowd.

Sources: docs/references.md#quality-hand-one-iteration (the step by hand),
#crowdkit-quality-runs (crowd-kit 1.4.2's MACE, method "em", on shared data),
#quality-simulated-crowd (known truth and planted spammers).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from metrics import ReliabilityData
from metrics.quality import mace
from tests.metrics.test_dawid_skene import simulate_crowd, simulated, toy

# -- a step by hand --------------------------------------------------------------------------


def test_one_iteration_by_hand() -> None:
    # docs/references.md#quality-hand-one-iteration
    result = mace(
        (["u1", "u1", "u2", "u2"], ["A", "B", "A", "B"], ["x", "x", "x", "y"]),
        init=([0.5, 0.5], [[0.5, 0.5], [0.5, 0.5]]),
        max_iter=1,
        smoothing=0.1,
    )
    assert result.competence.tolist() == pytest.approx([31 / 66, 31 / 66])
    assert result.spamming.tolist() == [
        pytest.approx([35 / 38, 3 / 38]),
        pytest.approx([15 / 38, 23 / 38]),
    ]
    assert result.posterior[:, 0].tolist() == pytest.approx([4092309 / 4735434, 1934415 / 4363590])
    scale = 2 * 2508**2
    expected = math.log(4735434 / scale) + math.log(4363590 / scale)
    assert result.log_likelihood == pytest.approx(expected)
    assert result.iterations == 1
    assert result.restart_log_likelihoods == (result.log_likelihood,)


# -- crowd-kit 1.4.2's EM from crowd-kit's starting values ------------------------------------

# crowd-kit draws its start with scipy.stats.uniform(1, 1.5).rvs(random_state=0): competence
# is the "knowing" column of the normalised draw, in our (sorted) coder and label order.
TOY_START = (
    [0.532028172212048, 0.4883352152002505, 0.5462443205699853, 0.5852869062434468,
     0.3917674414553107],
    [[0.46797182778795193, 0.532028172212048], [0.5116647847997495, 0.4883352152002505],
     [0.45375567943001466, 0.5462443205699853], [0.41471309375655313, 0.5852869062434468],
     [0.6082325585446893, 0.3917674414553107]],
)  # fmt: skip
SIMULATED_START = (
    [0.532028172212048, 0.4883352152002505, 0.5462443205699853, 0.5852869062434468,
     0.3917674414553107, 0.4504832810727427],
    [[0.3143402246604925, 0.35736735685427934, 0.32829241848522817],
     [0.3351978451067458, 0.3016577534801264, 0.3631444014131278],
     [0.2572205844206155, 0.36301684789834177, 0.37976256768104266],
     [0.2835018241757042, 0.39372772669633216, 0.32277044912796365],
     [0.3463739179005709, 0.44667811134135815, 0.20694797075807098],
     [0.25639601642627396, 0.23363695487554761, 0.5099670286981784]],
)  # fmt: skip


def _rows(values: list[list[float]]) -> list[object]:
    return [pytest.approx(row, abs=1e-6) for row in values]


def test_toy_five_iterations_match_crowdkit() -> None:
    # docs/references.md#crowdkit-quality-runs (toy, MACE em, n_iter=5)
    result = mace(toy(), init=TOY_START, max_iter=5, tol=0)
    assert result.competence.tolist() == pytest.approx(
        [0.076912, 0.750832, 0.891512, 0.214995, 0.376094], abs=1e-6
    )
    assert result.spamming.tolist() == _rows(
        [[0.189005, 0.810995], [0.121999, 0.878001], [0.367517, 0.632483],
         [0.38331, 0.61669], [0.988878, 0.011122]]
    )  # fmt: skip
    assert result.posterior.tolist() == _rows(
        [[0.265972, 0.734028], [0.038788, 0.961212], [0.998355, 0.001645],
         [0.000183, 0.999817], [0.999335, 0.000665]]
    )  # fmt: skip
    assert result.labels.tolist() == ["yes", "yes", "no", "yes", "no"]


def test_toy_fifty_iterations_match_crowdkit() -> None:
    # docs/references.md#crowdkit-quality-runs (toy, MACE em, n_iter=50)
    result = mace(toy(), init=TOY_START, max_iter=50, tol=0)
    assert result.iterations == 50
    assert result.competence.tolist() == pytest.approx(
        [0.002002, 0.996918, 0.997506, 0.170357, 0.332237], abs=1e-6
    )
    assert result.spamming.tolist() == _rows(
        [[0.200796, 0.799204], [0.350711, 0.649289], [0.499807, 0.500193],
         [0.40034, 0.59966], [0.996311, 0.003689]]
    )  # fmt: skip


def test_simulated_matches_crowdkit() -> None:
    # docs/references.md#crowdkit-quality-runs (simulated, MACE em, n_iter=50; crowd-kit fed
    # the rows sorted by worker and label, see the entry)
    result = mace(simulated(), init=SIMULATED_START, max_iter=50, tol=0)
    assert result.competence.tolist() == pytest.approx(
        [0.999534, 0.820596, 0.826557, 0.667159, 0.070523, 0.000417], abs=1e-6
    )
    assert result.spamming.tolist() == _rows(
        [[0.361111, 0.384476, 0.254413], [0.589626, 0.00186, 0.408514],
         [0.556855, 0.441759, 0.001386], [0.001438, 0.708963, 0.289598],
         [0.395576, 0.31755, 0.286874], [0.999524, 0.000238, 0.000238]]
    )  # fmt: skip
    assert result.posterior[12:16].tolist() == _rows(
        [[0.999755, 0.000226, 1.9e-05], [0.01728, 0.965447, 0.017273],
         [0.00138, 0.998476, 0.000144], [0.999997, 2e-06, 2e-06]]
    )  # fmt: skip
    assert "".join(result.labels.tolist()) == "bacbcaaaaabbabbacbbcaaac"


def test_random_starts_find_the_spammers() -> None:
    # Ten seeded starts: the always-"a" coder c6, then the random coder c5, are the least
    # competent, and the best start reaches crowd-kit's optimum (to within what stopping at
    # tol = 1e-6 per annotation leaves).
    single = mace(simulated(), init=SIMULATED_START, max_iter=50, tol=0)
    result = mace(simulated())
    assert result.log_likelihood == pytest.approx(single.log_likelihood, abs=1e-3)
    assert result.log_likelihood == max(result.restart_log_likelihoods)
    assert len(result.restart_log_likelihoods) == 10
    assert np.argsort(result.competence)[:2].tolist() == [5, 4]


@pytest.mark.parametrize("n_iter", [1, 5, 30])
def test_crowdkit_live(n_iter: int) -> None:
    # docs/references.md#crowdkit-quality-runs: crowd-kit itself, when installed, from the
    # same start
    aggregation = pytest.importorskip("crowdkit.aggregation")
    pd = pytest.importorskip("pandas")
    for data, start in ((toy(), TOY_START), (simulated(), SIMULATED_START)):
        frame = pd.DataFrame({"task": data[0], "worker": data[1], "label": data[2]})
        # crowd-kit 1.4.2 mixes orders unless first appearance is sorted order (see the entry)
        frame = frame.sort_values(["worker", "label"], kind="stable")
        fitted = aggregation.MACE(n_restarts=1, n_iter=n_iter, method="em").fit(frame)
        ours = mace(data, init=start, max_iter=n_iter, tol=0)
        worker_order = np.argsort(np.asarray(pd.factorize(frame["worker"])[1]))
        label_order = np.argsort(np.asarray(pd.factorize(frame["label"])[1]))
        np.testing.assert_allclose(ours.competence, fitted.spamming_[worker_order, 1], atol=1e-9)
        np.testing.assert_allclose(
            ours.spamming, fitted.thetas_[worker_order][:, label_order], atol=1e-9
        )
        probas = fitted.probas_.sort_index()[list(ours.domain)].to_numpy()
        np.testing.assert_allclose(ours.posterior, probas, atol=1e-9)


# -- a simulated crowd with known truth ------------------------------------------------------


def test_planted_spammers_rank_lowest() -> None:
    # docs/references.md#quality-simulated-crowd
    item, coder, label, truth = simulate_crowd()
    result = mace((item, coder, label))
    assert set(np.argsort(result.competence)[:10].tolist()) == set(range(30, 40))
    assert result.competence[30:].max() < result.competence[:24].min()
    assert np.mean(result.label_codes == truth) >= 0.95
    # A fixed-label spammer's spamming distribution is peaked on its label.
    for spammer in range(30, 35):
        assert int(np.argmax(result.spamming[spammer])) == spammer % 4


def test_seeded_restarts_are_reproducible() -> None:
    item, coder, label, _ = simulate_crowd()
    first = mace((item, coder, label), seed=11, n_restarts=3)
    again = mace((item, coder, label), seed=11, n_restarts=3)
    other = mace((item, coder, label), seed=12, n_restarts=3)
    assert first.restart_log_likelihoods == again.restart_log_likelihoods
    np.testing.assert_array_equal(first.competence, again.competence)
    assert first.restart_log_likelihoods != other.restart_log_likelihoods


def test_gold_anchors_items_and_exposes_a_contrarian() -> None:
    # Coder w1 contradicts the gold label on t1; anchoring lowers its competence.
    free = mace(toy(), init=TOY_START, max_iter=50)
    anchored = mace(toy(), gold={"t1": "yes", "t4": "yes"}, init=TOY_START, max_iter=50)
    assert anchored.posterior[0].tolist() == [0.0, 1.0]
    assert anchored.posterior[3].tolist() == [0.0, 1.0]
    assert anchored.labels.tolist() == ["yes", "yes", "no", "yes", "no"]
    assert anchored.competence[0] <= free.competence[0] + 1e-9


def test_converges_before_the_cap() -> None:
    item, coder, label, _ = simulate_crowd()
    result = mace((item, coder, label), n_restarts=1, max_iter=500, tol=1e-6)
    assert result.converged
    assert result.iterations < 500


def test_reliability_data_and_triples_agree() -> None:
    items, coders, labels = toy()
    from_matrix = mace(ReliabilityData.from_long(items, coders, labels), n_restarts=2)
    from_triples = mace((items, coders, labels), n_restarts=2)
    np.testing.assert_allclose(from_matrix.posterior, from_triples.posterior)
    np.testing.assert_allclose(from_matrix.competence, from_triples.competence)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"n_restarts": 0}, "n_restarts"),
        ({"noise": -1}, "noise"),
        ({"tol": float("nan")}, "tol"),
        ({"max_iter": 2.5}, "max_iter"),
        ({"smoothing": -0.1}, "smoothing"),
        ({"init": ([0.5], [[0.5, 0.5]])}, "init needs"),
        ({"init": ([1.0] * 5, [[0.5, 0.5]] * 5)}, "strictly between"),
        ({"gold": {"t9": "yes"}}, "without any annotation"),
    ],
)
def test_refuses_bad_options(options, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        mace(toy(), **options)
