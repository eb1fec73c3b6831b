"""Dawid–Skene: a hand-computed step, crowd-kit's published and run values, a simulated crowd.

Sources: docs/references.md#quality-hand-one-iteration (the step by hand),
#crowdkit-ds-step-by-step (crowd-kit's own test values), #crowdkit-quality-runs (crowd-kit
1.4.2 run on shared data), #quality-simulated-crowd (known truth).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from metrics import ReliabilityData
from metrics.quality import as_annotations, dawid_skene

# -- data ------------------------------------------------------------------------------------

# crowd-kit tests/conftest.py `toy_answers_df` (worker, task, label) and its ground truth.
TOY = [
    ("w1", "t1", "no"), ("w1", "t2", "yes"), ("w1", "t3", "yes"), ("w1", "t4", "yes"),
    ("w1", "t5", "yes"), ("w2", "t1", "yes"), ("w2", "t2", "yes"), ("w2", "t3", "no"),
    ("w2", "t4", "yes"), ("w2", "t5", "no"), ("w3", "t2", "yes"), ("w3", "t3", "no"),
    ("w3", "t4", "yes"), ("w3", "t5", "no"), ("w4", "t1", "yes"), ("w4", "t2", "no"),
    ("w4", "t3", "yes"), ("w4", "t4", "yes"), ("w4", "t5", "no"), ("w5", "t1", "no"),
    ("w5", "t2", "no"), ("w5", "t3", "no"), ("w5", "t4", "yes"), ("w5", "t5", "no"),
]  # fmt: skip
TOY_TRUTH = ["yes", "yes", "no", "yes", "no"]

# crowd-kit tests/aggregation/test_ds_aggregation.py fixture `data` (task, worker, label).
STEP = [
    ("t1", "w1", "no"), ("t1", "w2", "yes"), ("t1", "w4", "yes"), ("t1", "w5", "no"),
    ("t2", "w1", "yes"), ("t2", "w2", "yes"), ("t2", "w3", "yes"), ("t2", "w4", "no"),
    ("t2", "w5", "no"), ("t3", "w1", "yes"), ("t3", "w2", "no"), ("t3", "w3", "no"),
    ("t3", "w4", "yes"), ("t3", "w5", "no"), ("t4", "w1", "yes"), ("t4", "w2", "yes"),
    ("t4", "w3", "yes"), ("t4", "w4", "yes"), ("t4", "w5", "yes"), ("t5", "w1", "yes"),
    ("t5", "w2", "no"), ("t5", "w3", "no"), ("t5", "w4", "no"), ("t5", "w5", "no"),
]  # fmt: skip

# Our simulated crowd (seed 2024; c6 always answers "a", c5 at random), written out.
SIMULATED = (
    "i01 c1 b, i01 c2 b, i01 c3 b, i01 c6 a, i02 c1 a, i02 c2 a, i02 c3 a, i02 c4 b, "
    "i03 c1 c, i03 c2 a, i03 c3 c, i03 c5 a, i04 c1 b, i04 c2 b, i04 c4 b, i04 c5 c, "
    "i05 c1 c, i05 c2 c, i05 c3 c, i05 c4 c, i06 c2 a, i06 c3 a, i06 c4 a, i06 c6 a, "
    "i07 c1 a, i07 c4 a, i07 c5 a, i07 c6 a, i08 c1 a, i08 c2 a, i08 c3 a, i08 c5 c, "
    "i09 c2 a, i09 c3 a, i09 c4 a, i09 c6 a, i10 c1 a, i10 c2 a, i10 c3 a, i10 c5 a, "
    "i11 c2 b, i11 c3 b, i11 c4 b, i11 c5 b, i12 c2 b, i12 c3 b, i12 c4 c, i12 c6 a, "
    "i13 c1 a, i13 c2 a, i13 c3 b, i13 c6 a, i14 c3 b, i14 c4 b, i14 c5 b, i14 c6 a, "
    "i15 c1 b, i15 c3 a, i15 c5 b, i15 c6 a, i16 c1 a, i16 c2 a, i16 c3 a, i16 c5 a, "
    "i17 c1 c, i17 c2 c, i17 c3 c, i17 c6 a, i18 c1 b, i18 c3 b, i18 c5 c, i18 c6 a, "
    "i19 c1 b, i19 c2 b, i19 c4 b, i19 c5 a, i20 c3 c, i20 c4 c, i20 c5 b, i20 c6 a, "
    "i21 c1 a, i21 c4 a, i21 c5 c, i21 c6 a, i22 c1 a, i22 c2 c, i22 c3 a, i22 c5 b, "
    "i23 c1 a, i23 c3 a, i23 c4 b, i23 c6 a, i24 c1 c, i24 c2 c, i24 c5 a, i24 c6 a"
)


def toy() -> tuple[list[str], list[str], list[str]]:
    return [t for _, t, _ in TOY], [w for w, _, _ in TOY], [label for _, _, label in TOY]


def step_data() -> tuple[list[str], list[str], list[str]]:
    return [t for t, _, _ in STEP], [w for _, w, _ in STEP], [label for _, _, label in STEP]


def simulated() -> tuple[list[str], list[str], list[str]]:
    rows = [row.split() for row in SIMULATED.split(", ")]
    return [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]


def simulate_crowd(seed: int = 7) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """2,000 items, 4 labels, 7 of 40 coders each: 24 good, 6 at 0.5, 10 spammers (30-39).

    Spammers 30-34 always give label ``coder % 4``; 35-39 give labels at random.
    docs/references.md#quality-simulated-crowd
    """
    rng = np.random.default_rng(seed)
    n_items, k, per_item = 2000, 4, 7
    accuracy = np.r_[rng.uniform(0.75, 0.95, 24), np.full(6, 0.5), np.zeros(10)]
    truth = rng.choice(k, size=n_items, p=[0.4, 0.3, 0.2, 0.1])
    coder = np.argsort(rng.random((n_items, len(accuracy))), axis=1)[:, :per_item].ravel()
    item = np.repeat(np.arange(n_items), per_item)
    correct = rng.random(len(item)) < accuracy[coder]
    wrong = (truth[item] + rng.integers(1, k, size=len(item))) % k
    label = np.where(correct, truth[item], wrong)
    label = np.where((coder >= 30) & (coder < 35), coder % k, label)
    label = np.where(coder >= 35, rng.integers(0, k, size=len(item)), label)
    return item, coder, label, truth


# -- a step by hand --------------------------------------------------------------------------


def test_one_iteration_by_hand() -> None:
    # docs/references.md#quality-hand-one-iteration
    result = dawid_skene(
        (["u1", "u1", "u2", "u2"], ["A", "B", "A", "B"], ["x", "x", "x", "y"]),
        max_iter=1,
        smoothing=1,
    )
    assert result.priors.tolist() == pytest.approx([5 / 8, 3 / 8])
    assert result.confusion[0].ravel().tolist() == pytest.approx([5 / 7, 2 / 7, 3 / 5, 2 / 5])
    assert result.confusion[1].ravel().tolist() == pytest.approx([4 / 7, 3 / 7, 2 / 5, 3 / 5])
    assert result.posterior[:, 0].tolist() == pytest.approx([1250 / 1691, 625 / 1066])
    expected = math.log(3382 / 9800) + math.log(3198 / 9800)
    assert result.log_likelihood == pytest.approx(expected)
    assert result.iterations == 1
    assert not result.converged


# -- crowd-kit's published step-by-step values -----------------------------------------------


def test_crowdkit_step_by_step() -> None:
    # docs/references.md#crowdkit-ds-step-by-step: crowd-kit's iteration 0 is the M step
    # from the vote shares (our first confusion), its iteration 1 posterior our first E step.
    first = dawid_skene(step_data(), max_iter=1, tol=0)
    second = dawid_skene(step_data(), max_iter=2, tol=0)
    no, yes = 0, 1
    assert first.priors.tolist() == pytest.approx([0.46, 0.54], abs=0.005)
    # crowd-kit rows (worker, observed) × columns (true): [no|no, no|yes; yes|no, yes|yes].
    errors_iter_0 = {
        "w1": [[0.22, 0.19], [0.78, 0.81]],
        "w2": [[0.61, 0.22], [0.39, 0.78]],
        "w3": [[0.78, 0.27], [0.22, 0.73]],
        "w4": [[0.52, 0.30], [0.48, 0.70]],
        "w5": [[1.00, 0.63], [0.00, 0.37]],
    }
    errors_iter_1 = {
        "w1": [[0.14, 0.25], [0.86, 0.75]],
        "w2": [[0.75, 0.07], [0.25, 0.93]],
        "w3": [[0.87, 0.09], [0.13, 0.91]],
        "w4": [[0.50, 0.31], [0.50, 0.69]],
        "w5": [[1.00, 0.61], [0.00, 0.39]],
    }
    for result, errors in ((first, errors_iter_0), (second, errors_iter_1)):
        for c, worker in enumerate(result.coders.tolist()):
            # our confusion[c, true, observed] is crowd-kit's errors transposed
            assert result.confusion[c].T.tolist() == [
                pytest.approx(row, abs=0.005) for row in errors[worker]
            ]
    probas_iter_1 = [[0.35, 0.65], [0.26, 0.74], [0.87, 0.13], [0.00, 1.00], [0.95, 0.05]]
    assert first.posterior.tolist() == [pytest.approx(row, abs=0.005) for row in probas_iter_1]
    assert first.labels.tolist() == ["yes", "yes", "no", "yes", "no"]
    assert second.priors[[no, yes]].tolist() == pytest.approx([0.49, 0.51], abs=0.005)


# -- crowd-kit 1.4.2 run on shared data ------------------------------------------------------


def test_toy_matches_crowdkit() -> None:
    # docs/references.md#crowdkit-quality-runs (toy); labels: crowd-kit's toy ground truth
    result = dawid_skene(toy(), tol=1e-5)
    assert result.labels.tolist() == TOY_TRUTH
    assert result.converged
    assert result.priors.tolist() == pytest.approx([0.4, 0.6], abs=1e-6)
    assert result.posterior.tolist() == [
        pytest.approx(row, abs=1e-6) for row in [[0, 1], [0, 1], [1, 0], [0, 1], [1, 0]]
    ]
    confusion = [
        [[0.0, 1.0], [0.333333, 0.666667]],
        [[1.0, 0.0], [0.0, 1.0]],
        [[1.0, 0.0], [0.0, 1.0]],
        [[0.5, 0.5], [0.333333, 0.666667]],
        [[1.0, 0.0], [0.666667, 0.333333]],
    ]
    assert result.confusion.round(6).tolist() == confusion


def test_gold_on_toy_matches_crowdkit() -> None:
    # docs/references.md#crowdkit-quality-runs (toy with gold t1, t2 = yes)
    result = dawid_skene(toy(), gold={"t1": "yes", "t2": "yes"}, tol=1e-5)
    assert result.labels.tolist() == TOY_TRUTH
    assert result.posterior[:2].tolist() == [[0.0, 1.0], [0.0, 1.0]]
    assert result.priors.tolist() == pytest.approx([0.4, 0.6], abs=1e-6)


SIMULATED_POSTERIOR = [
    [0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0],
    [1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0],
    [0.0, 1.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.026587, 0.973413, 0.0],
    [0.001004, 0.998996, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [7.5e-05, 0.999925, 0.0],
    [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0],
    [0.999999, 1e-06, 0.0], [0.0, 0.0, 1.0],
]  # fmt: skip
SIMULATED_CONFUSION = [
    [[0.99988, 0.00012, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
    [[0.875, 0.0, 0.125], [0.0, 1.0, 0.0], [0.25, 0.0, 0.75]],
    [[0.886276, 0.113724, 0.0], [0.167271, 0.832729, 0.0], [0.0, 0.0, 1.0]],
    [[0.663726, 0.336274, 0.0], [0.0, 0.798931, 0.201069], [0.0, 0.0, 1.0]],
    [[0.497705, 0.170479, 0.331816], [0.167439, 0.497696, 0.334865], [0.666667, 0.333333, 0.0]],
    [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]],
]


def test_simulated_matches_crowdkit() -> None:
    # docs/references.md#crowdkit-quality-runs (simulated): crowd-kit stopped after 6 E
    # steps; its posterior is our 6th, its confusion the M step after it (our 7th).
    posterior = dawid_skene(simulated(), max_iter=6, tol=0)
    parameters = dawid_skene(simulated(), max_iter=7, tol=0)
    assert posterior.posterior.tolist() == [
        pytest.approx(row, abs=1e-6) for row in SIMULATED_POSTERIOR
    ]
    assert parameters.priors.tolist() == pytest.approx([0.459486, 0.332181, 0.208333], abs=1e-6)
    for mine, theirs in zip(parameters.confusion.tolist(), SIMULATED_CONFUSION, strict=True):
        assert mine == [pytest.approx(row, abs=1e-6) for row in theirs]


def _crowdkit_frame(data: tuple[list[str], list[str], list[str]]):  # type: ignore[no-untyped-def]
    pd = pytest.importorskip("pandas")
    return pd.DataFrame({"task": data[0], "worker": data[1], "label": data[2]})


@pytest.mark.parametrize("make_data", [toy, step_data, simulated])
@pytest.mark.parametrize("n_iter", [1, 3, 20])
def test_crowdkit_live(make_data, n_iter: int) -> None:  # type: ignore[no-untyped-def]
    # docs/references.md#crowdkit-quality-runs: crowd-kit itself, when installed
    crowdkit = pytest.importorskip("crowdkit.aggregation")
    data = make_data()
    fitted = crowdkit.DawidSkene(n_iter=n_iter, tol=0).fit(_crowdkit_frame(data))
    steps = len(fitted.loss_history_)
    posterior = dawid_skene(data, max_iter=steps, tol=0)
    parameters = dawid_skene(data, max_iter=steps + 1, tol=0)
    domain = list(posterior.domain)
    probas = fitted.probas_.sort_index()[domain].to_numpy()
    np.testing.assert_allclose(posterior.posterior, probas, atol=1e-8)
    errors = fitted.errors_
    for c, worker in enumerate(parameters.coders.tolist()):
        for t, true in enumerate(domain):
            for g, given in enumerate(domain):
                theirs = errors.loc[(worker, given), true] if (worker, given) in errors.index else 0
                assert parameters.confusion[c, t, g] == pytest.approx(theirs, abs=1e-8)


# -- a simulated crowd with known truth ------------------------------------------------------


def test_recovers_the_truth_better_than_the_majority() -> None:
    # docs/references.md#quality-simulated-crowd
    item, coder, label, truth = simulate_crowd()
    votes = np.bincount(item * 4 + label, minlength=2000 * 4).reshape(-1, 4)
    majority = np.mean(votes.argmax(axis=1) == truth)
    result = dawid_skene((item, coder, label))
    recovered = np.mean(result.label_codes == truth)
    assert result.converged
    assert recovered >= 0.95
    assert majority < 0.95
    # the spammers (30-39) are the ten least accurate coders
    assert set(np.argsort(result.coder_accuracy)[:10].tolist()) == set(range(30, 40))


def test_gold_anchors_items_and_corrects_confusion() -> None:
    item, coder, label, truth = simulate_crowd()
    gold = {int(i): int(truth[i]) for i in range(0, 2000, 10)}
    anchored = dawid_skene((item, coder, label), gold=gold)
    gold_items = np.array(sorted(gold))
    assert np.all(anchored.label_codes[gold_items] == truth[gold_items])
    assert np.all(anchored.posterior[gold_items].max(axis=1) == 1.0)
    free = np.setdiff1d(np.arange(2000), gold_items)
    assert np.mean(anchored.label_codes[free] == truth[free]) >= 0.95


def test_gold_overrides_the_coders() -> None:
    # All five coders of t4 said "yes"; gold says "no", and the posterior stays there.
    result = dawid_skene(toy(), gold={"t4": "no"})
    assert result.posterior[3].tolist() == [1.0, 0.0]


# -- inputs ----------------------------------------------------------------------------------


def test_reliability_data_and_triples_agree() -> None:
    items, coders, labels = toy()
    data = ReliabilityData.from_long(items, coders, labels)
    from_matrix = dawid_skene(data)
    from_triples = dawid_skene((items, coders, labels))
    np.testing.assert_allclose(from_matrix.posterior, from_triples.posterior)
    np.testing.assert_allclose(from_matrix.confusion, from_triples.confusion)
    assert from_matrix.items.tolist() == from_triples.items.tolist()
    assert from_matrix.coders.tolist() == from_triples.coders.tolist()


def test_declared_domain_keeps_unused_labels() -> None:
    result = dawid_skene(toy(), domain=["yes", "no", "maybe"])
    assert result.domain == ("yes", "no", "maybe")
    assert result.posterior.shape == (5, 3)
    assert result.labels.tolist() == TOY_TRUTH
    assert result.posterior[:, 2].max() < 1e-6


def test_one_label_only() -> None:
    result = dawid_skene((["a", "b"], ["x", "x"], ["yes", "yes"]))
    assert result.posterior.tolist() == [[1.0], [1.0]]
    assert result.confusion.tolist() == [[[1.0]]]


def test_sparse_at_a_size_no_dense_matrix_fits() -> None:
    # 60,000 coders × 300,000 items would be 1.8e10 cells; 150,000 annotations are not.
    rng = np.random.default_rng(3)
    n = 150_000
    item = rng.integers(0, 300_000, n)
    coder = (item * 7 + rng.integers(0, 3, n) * 20_000) % 60_000
    label = rng.integers(0, 3, n)
    keep = np.unique(item * 60_000 + coder, return_index=True)[1]
    result = dawid_skene((item[keep], coder[keep], label[keep]), max_iter=3)
    assert result.confusion.shape[1:] == (3, 3)
    assert result.posterior.shape[0] == len(np.unique(item[keep]))


@pytest.mark.parametrize(
    ("data", "options", "message"),
    [
        (([], [], []), {}, "no annotations"),
        ([("a", "x", 1), ("b", "x", 1), ("c", "x", 1)], {}, "tuple of three arrays"),
        ((["a", "a"], ["x", "x"], [1, 2]), {}, "more than once"),
        ((["a", "b"], ["x", "x"], [1]), {}, "same length"),
        ((["a"], ["x"], ["yes"]), {"domain": ["no"]}, "outside the declared domain"),
        ((["a"], ["x"], ["yes"]), {"gold": {"b": "yes"}}, "without any annotation"),
        ((["a"], ["x"], ["yes"]), {"gold": {"a": "no"}}, "outside the label domain"),
        ((["a"], ["x"], ["yes"]), {"tol": -1}, "tol"),
        ((["a"], ["x"], ["yes"]), {"max_iter": 0}, "max_iter"),
        ((["a"], ["x"], ["yes"]), {"smoothing": 0}, "smoothing"),
    ],
)
def test_refuses_bad_input(data, options, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        dawid_skene(data, **options)


def test_refuses_anonymous_coders() -> None:
    with pytest.raises(ValueError, match="anonymous"):
        dawid_skene(ReliabilityData.from_agreement_table([[2, 1], [0, 3]]))


def test_annotations_recoded_onto_a_domain() -> None:
    codes = as_annotations(toy())
    result = dawid_skene(codes, domain=["yes", "no"])
    assert result.domain == ("yes", "no")
    assert result.labels.tolist() == TOY_TRUTH


def test_as_annotations_codes_once() -> None:
    codes = as_annotations(([10, 10, 30], ["b", "a", "b"], [2.0, 1.0, 2.0]))
    assert codes.item.tolist() == [0, 0, 1]
    assert codes.coder.tolist() == [1, 0, 1]
    assert codes.label.tolist() == [1, 0, 1]
    assert codes.items.tolist() == [10, 30]
    assert codes.domain == (1.0, 2.0)
