"""The server states the library's span refusals with its own remedy, chosen by the refusal's
code (``reason_code``): rewording the library's remedy does not change the API's text.

Coder a's X [2, 5) nests in X [0, 8) (alpha_u refuses it) and Y [6, 9) overlaps X [0, 8) at
position 6 (no single token label there).
"""

from __future__ import annotations

import pytest

from computations import engine
from metrics.spans import SpanData, span_report
from metrics.spans import tokens as tokens_module
from metrics.spans import unitizing as unitizing_module

UNITS = [
    ("d", "a", 0, 8, "X"),
    ("d", "a", 2, 5, "X"),
    ("d", "a", 6, 9, "Y"),
    ("d", "b", 0, 6, "X"),
]
PARAMS = {
    "coefficients": ["alpha_u", "span_f1", "token_alpha", "token_kappa"],
    "min_overlap": 0.5,
    "bootstrap": 0,
    "seed": 0,
    "confidence": 0.95,
}
#: The API's texts, as the docs (docs/spans-report.md) quote them.
ALPHA_U_REASON = (
    "document 'd', coder 'a': units [0, 8) and [2, 5) of category 'X' overlap; alpha_U needs "
    "one coder's units of a category to be disjoint (request the computation again with the "
    'parameter "overlapping": "merge" to merge them into their union)'
)
TOKEN_REASON = (
    "Document 'd', coder 'a': position 6 is covered by units of two categories ('X' and "
    "'Y'), so it has no single token label. Token-level agreement needs one category per "
    "position and coder: resolve the overlap in the data (alpha_U and span F1 are computed "
    "without it)."
)


@pytest.fixture
def data() -> SpanData:
    return SpanData.from_units(UNITS, extents={"d": (0, 10)})


@pytest.fixture
def reworded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A library whose remedies read otherwise."""
    monkeypatch.setattr(unitizing_module, "MERGE_REMEDY", "(reworded by the library)")
    monkeypatch.setattr(tokens_module, "OVERLAPS_REMEDY", "Reworded too.")


@pytest.mark.parametrize("library", ["as released", "reworded"])
def test_the_server_builds_its_reasons_from_the_code(
    data: SpanData, library: str, request: pytest.FixtureRequest
) -> None:
    if library == "reworded":
        request.getfixturevalue("reworded")
    report = engine.span_report(data, PARAMS)
    coefficients = report["coefficients"]
    assert coefficients["alpha_u"]["value"] is None
    assert coefficients["alpha_u"]["reason_code"] == "overlapping_units"
    assert coefficients["alpha_u"]["reason"] == ALPHA_U_REASON
    for key in ("token_alpha", "token_kappa"):
        assert coefficients[key]["reason_code"] == "overlapping_token_labels"
        assert coefficients[key]["reason"] == TOKEN_REASON
    assert report["skipped"] == {
        "alpha_u": ALPHA_U_REASON,
        "token_alpha": TOKEN_REASON,
        "token_kappa": TOKEN_REASON,
    }


def test_the_library_itself_keeps_its_own_remedy(data: SpanData, reworded: None) -> None:
    reason = span_report(data)["coefficients"]["alpha_u"]["reason"]
    assert reason.endswith("to be disjoint (reworded by the library)")


def test_a_bootstrap_decomposition_refuses_in_the_servers_words(
    data: SpanData, reworded: None
) -> None:
    with pytest.raises(ValueError, match="request the computation again") as refused:
        engine.span_decompositions(data, ["alpha_u"], min_overlap=0.5)
    assert str(refused.value) == ALPHA_U_REASON
