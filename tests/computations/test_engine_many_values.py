"""The worker's engine on an interval question with many distinct numbers.

Nearly every annotation a different real: the kappa family, its bootstrap and the
diagnostics run without an items × values or coders × values table; the per-label
diagnostics are skipped with the reason; AC2 and Brennan–Prediger take the interval weights
without their values × values matrix.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from computations import engine
from metrics import ReliabilityData, brennan_prediger, gwet_ac1, krippendorff_alpha
from metrics.coefficients.alpha import MAX_MATRIX_VALUES
from metrics.uncertainty.bootstrap import bootstrap_chunk
from studies.models import LabelKind


def _many_reals(n_items: int = 3000, n_coders: int = 3) -> ReliabilityData:
    rng = np.random.default_rng(5)
    values = np.round(rng.normal(size=(n_items, 1)) * 50 + rng.normal(size=(n_items, n_coders)), 6)
    copy = rng.random(n_items) < 0.4
    values[copy, 1] = values[copy, 0]
    return ReliabilityData.from_long(
        np.repeat(np.arange(n_items), n_coders),
        np.tile(np.arange(n_coders), n_items),
        values.ravel(),
    )


def _refuse(self: ReliabilityData) -> None:
    raise AssertionError("a dense items × values or coders × values table was built")


@pytest.fixture
def no_dense_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("item_value_counts", "coder_value_counts"):
        monkeypatch.setattr(ReliabilityData, name, property(_refuse))


def _parameters(coefficients: list[str]) -> dict[str, Any]:
    params = engine.default_parameters(LabelKind.INTERVAL)
    params["coefficients"] = coefficients
    return params


def test_per_label_diagnostics_are_skipped_with_the_reason(no_dense_tables: None) -> None:
    data = _many_reals()
    assert data.n_values > engine.MAX_CATEGORY_VALUES
    out = engine.diagnostics(
        data,
        coder_names={},
        item_names=lambda items: {item: str(item) for item in items},
        categorical=False,
    )
    for key in ("per_category", "coder_distributions"):
        assert key not in out
        assert out["skipped"][key] == (
            f"{data.n_values} distinct labels, more than {engine.MAX_CATEGORY_VALUES}: a row per "
            "label would be about as large as the data, so it is left out."
        )
    assert len(out["most_disputed_items"]) == engine.MOST_DISPUTED
    assert out["most_disputed_items"][0]["disagreement"] == 1.0  # three different reals
    assert set(out["per_coder"]) == {"0", "1", "2"}


def test_the_kappa_family_is_reported_and_weighted_coefficients_skipped(
    no_dense_tables: None,
) -> None:
    data = _many_reals()
    wanted = ["observed_agreement", "s", "pi", "kappa", "alpha", "ac1", "brennan_prediger"]
    result = engine.point_report(data, _parameters(wanted), parents={}, bootstrap=0)
    coefficients = result["coefficients"]
    assert coefficients["alpha"]["value"] == pytest.approx(
        krippendorff_alpha(data, distance="interval").value, abs=1e-12
    )
    # With three coders and (almost) all labels distinct, A_o is the share of agreeing pairs.
    codes = data.value_code.reshape(-1, 3)
    agreeing = (
        (codes[:, 0] == codes[:, 1]).astype(int)
        + (codes[:, 0] == codes[:, 2])
        + (codes[:, 1] == codes[:, 2])
    )
    assert coefficients["observed_agreement"]["value"] == pytest.approx(
        agreeing.mean() / 3, abs=1e-12
    )
    assert {"s", "pi", "kappa"} <= set(coefficients)
    # AC2 and Brennan–Prediger with interval weights: no V × V matrix either.
    assert data.n_values > MAX_MATRIX_VALUES
    assert coefficients["ac1"]["value"] == pytest.approx(
        gwet_ac1(data, distance="interval").value, abs=1e-12
    )
    assert coefficients["brennan_prediger"]["value"] == pytest.approx(
        brennan_prediger(data, distance="interval").value, abs=1e-12
    )


def test_wide_decompositions_resample_alone_with_the_same_values(no_dense_tables: None) -> None:
    data = _many_reals(n_items=2000)
    params = _parameters(["observed_agreement", "pi", "kappa", "alpha"])
    decompositions = engine.decompositions(data, params, parents={})
    assert engine._wide(decompositions["pi"])
    assert engine._wide(decompositions["kappa"])
    assert not engine._wide(decompositions["alpha"])
    chunks = engine.bootstrap_chunks(decompositions, seed=3, start=2, stop=9)
    for name, decomposition in decompositions.items():
        alone = bootstrap_chunk(decomposition, seed=3, start=2, stop=9)
        assert chunks[name] == [None if np.isnan(v) else float(v) for v in alone.tolist()]
