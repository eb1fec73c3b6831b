"""Agreement among people, among models and between the groups (``metrics.models.groups``).

The between-group value is checked against its definition written as loops over pairs of
labels (Vanbelle & Albert 2009: the mean distance between a label of each group on the same
item, over the mean distance between labels of any items), against Cohen's (weighted) kappa
when each group has one coder, and its closed form for numbers against the matrix form;
the within-group values against ``krippendorff_alpha`` of the group's coders alone.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from metrics import (
    ReliabilityData,
    bootstrap,
    cohen_kappa,
    decompose_krippendorff_alpha,
    krippendorff_alpha,
    weighted_kappa,
)
from metrics.models import (
    between_groups_agreement,
    decompose_between_groups,
    group_agreement,
)
from metrics.models import groups as groups_module


def random_data(
    seed: int, *, n_items: int = 40, people: int = 3, models: int = 2, missing: float = 0.2
) -> tuple[ReliabilityData, list[str], list[str]]:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n_items)
    items, coders, labels = [], [], []
    people_ids = [f"p{k}" for k in range(people)]
    model_ids = [f"m{k}" for k in range(models)]
    for coder in people_ids + model_ids:
        for item in range(n_items):
            if rng.random() < missing:
                continue
            label = truth[item] if rng.random() < 0.7 else rng.integers(0, 3)
            items.append(item)
            coders.append(coder)
            labels.append("abc"[int(label)])
    return ReliabilityData.from_long(items, coders, labels), people_ids, model_ids


def brute_force_between(
    data: ReliabilityData, first: list[str], second: list[str], d: np.ndarray
) -> float:
    """Vanbelle & Albert's definition with loops over labels."""
    by_item: dict[int, tuple[list[int], list[int]]] = {}
    for item, coder, value in zip(
        data.item_index.tolist(), data.coder_index.tolist(), data.value_code.tolist(), strict=True
    ):
        name = data.coders[coder]
        a, b = by_item.setdefault(item, ([], []))
        if name in first:
            a.append(value)
        elif name in second:
            b.append(value)
    kept = [(a, b) for a, b in by_item.values() if a and b]
    observed = np.mean([np.mean([d[x, y] for x in a for y in b]) for a, b in kept])
    share_a = np.mean([np.bincount(a, minlength=d.shape[0]) / len(a) for a, _ in kept], axis=0)
    share_b = np.mean([np.bincount(b, minlength=d.shape[0]) / len(b) for _, b in kept], axis=0)
    expected = sum(
        share_a[k] * d[k, m] * share_b[m] for k, m in itertools.product(range(d.shape[0]), repeat=2)
    )
    return float(1 - observed / expected)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_between_groups_equals_its_definition_on_random_data(seed: int) -> None:
    data, people, models = random_data(seed)
    nominal = 1.0 - np.eye(data.n_values)
    value = between_groups_agreement(data, first=people, second=models)
    assert value == pytest.approx(brute_force_between(data, people, models, nominal), abs=1e-12)


def test_between_groups_with_a_matrix_distance_equals_its_definition() -> None:
    data, people, models = random_data(5)
    d = np.array([[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [4.0, 1.0, 0.0]])
    value = between_groups_agreement(data, first=people, second=models, distance=d)
    assert value == pytest.approx(brute_force_between(data, people, models, d), abs=1e-12)


def test_one_coder_per_group_is_cohens_kappa() -> None:
    data, _, _ = random_data(3, people=1, models=1, missing=0.0)
    pair = ReliabilityData.from_long(
        [data.items[i] for i in data.item_index],
        [data.coders[c] for c in data.coder_index],
        [data.domain[v] for v in data.value_code],
    )
    value = between_groups_agreement(pair, first=["p0"], second=["m0"])
    assert value == pytest.approx(cohen_kappa(pair).value, abs=1e-12)


def test_one_coder_per_group_with_numbers_is_quadratic_weighted_kappa() -> None:
    rng = np.random.default_rng(4)
    first = rng.integers(1, 6, 50)
    second = np.clip(first + rng.integers(-1, 2, 50), 1, 5)
    data = ReliabilityData.from_matrix(np.vstack([first, second]).astype(float))
    coders = list(data.coders)
    value = between_groups_agreement(
        data, first=[coders[0]], second=[coders[1]], distance="interval"
    )
    assert value == pytest.approx(weighted_kappa(data, distance="interval").value, abs=1e-12)


def test_numbers_closed_form_equals_the_matrix_form(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(6)
    items = np.repeat(np.arange(60), 4)
    coders = np.tile(["p0", "p1", "m0", "m1"], 60)
    labels = np.round(rng.normal(3, 1, 240) + np.repeat(rng.normal(0, 2, 60), 4), 1)
    data = ReliabilityData.from_long(items, coders, labels)
    matrix = decompose_between_groups(
        data, first=["p0", "p1"], second=["m0", "m1"], distance="interval"
    )
    monkeypatch.setattr(groups_module, "MAX_GROUP_VALUES", 2)
    closed = decompose_between_groups(
        data, first=["p0", "p1"], second=["m0", "m1"], distance="interval"
    )
    assert closed.item_stats.shape[1] == 6
    assert float(closed.evaluate()) == pytest.approx(float(matrix.evaluate()), abs=1e-10)
    weights = np.random.default_rng(0).multinomial(60, np.full(60, 1 / 60), size=5).astype(float)
    assert closed.evaluate(weights) == pytest.approx(matrix.evaluate(weights), abs=1e-10)


def test_other_distances_refuse_many_values(monkeypatch: pytest.MonkeyPatch) -> None:
    data, people, models = random_data(0)
    monkeypatch.setattr(groups_module, "MAX_GROUP_VALUES", 2)
    result = group_agreement(data, first=people, second=models, replicates=0)
    assert result.between.value is None
    assert result.between.reason == (
        "3 distinct labels, more than 2: the agreement between the groups with the nominal "
        "distance needs a 3 × 3 matrix per replicate."
    )


def test_group_agreement_within_each_group_is_alpha_with_its_bootstrap() -> None:
    data, people, models = random_data(1)
    result = group_agreement(data, first=people, second=models, replicates=200, seed=7)
    for entry, group in ((result.first, people), (result.second, models)):
        subset = data.restricted_to_coders([data.coders.index(c) for c in group])
        alpha = krippendorff_alpha(subset)
        assert entry.value == pytest.approx(alpha.value, abs=1e-12)
        assert entry.observed == pytest.approx(alpha.observed, abs=1e-12)
        assert entry.n_items == alpha.n_pairable_items
        expected = bootstrap(decompose_krippendorff_alpha(subset), replicates=200, seed=7)
        assert entry.ci == pytest.approx((expected.low, expected.high), abs=1e-12)
        assert entry.method == expected.method
    between = bootstrap(
        decompose_between_groups(data, first=people, second=models), replicates=200, seed=7
    )
    assert result.between.value == pytest.approx(between.estimate, abs=1e-12)
    assert result.between.ci == pytest.approx((between.low, between.high), abs=1e-12)
    assert result.between.observed is not None
    assert result.between.expected is not None
    assert 1 - result.between.observed / result.between.expected == pytest.approx(
        result.between.value
    )


def test_group_agreement_says_why_a_value_is_missing() -> None:
    data = ReliabilityData.from_long(
        [1, 2, 1, 2, 3, 4], ["p0", "p0", "p1", "p1", "m0", "m0"], list("ababab")
    )
    result = group_agreement(data, first=["p0", "p1"], second=["m0"], replicates=0)
    assert result.first.value == 1.0
    assert result.first.note == "No interval: the computation asked for no bootstrap replicates."
    assert result.second.reason == "Agreement among a group needs at least two coders; there is 1."
    assert result.between.reason == "No item was labelled by both groups."
    same = ReliabilityData.from_long([1, 2, 1, 2], ["p0", "p0", "m0", "m0"], list("aaaa"))
    flat = group_agreement(same, first=["p0"], second=["m0"], replicates=0)
    assert flat.between.value is None
    assert flat.between.reason is not None
    assert "expected disagreement" in flat.between.reason


def test_a_coder_in_both_groups_is_refused() -> None:
    data, people, _ = random_data(0)
    with pytest.raises(ValueError, match="in both groups"):
        group_agreement(data, first=people, second=[people[0]])


def test_group_agreement_json_names_the_coders() -> None:
    data, people, models = random_data(2)
    body = group_agreement(data, first=people, second=models, replicates=0).to_json()
    assert body["first"]["coders"] == people
    assert body["second"]["coders"] == models
    assert body["between"]["coefficient"] == "between_groups_kappa"
