"""span_report: the JSON contract, undefined measures as null with a reason, one shared
bootstrap resample, the most disputed documents, and the table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from metrics import bootstrap
from metrics.cli import main
from metrics.spans import tokens as tokens_module
from metrics.spans import unitizing as unitizing_module
from metrics.spans.data import SpanData
from metrics.spans.f1 import decompose_span_f1
from metrics.spans.gamma import gamma_agreement
from metrics.spans.refusal import RefusalError
from metrics.spans.report import SPAN_COEFFICIENT_KEYS, format_span_table, span_report
from metrics.spans.segmentation import decompose_segmentation
from metrics.spans.tokens import decompose_token_agreement, token_agreement
from metrics.spans.unitizing import decompose_unitizing_alpha, unitizing_alpha

# docs/references.md#span-f1-hand-case (the report's three documents).
# d1: exact F1 1/2 (PER matches; LOC [10,14) vs [11,14) only by overlap, IoU 0.75).
# d2: ann ORG [3, 8), bob found nothing: F1 0. d3: ann PER [2,6); bob PER [2,6), LOC [8,12):
# F1 2/3. Pooled exact: TP 2, FP 2, FN 2 -> 1/2; overlap (IoU >= 0.5): TP 3, FP 1, FN 1 -> 3/4.
UNITS = [
    ("d1", "ann", 0, 5, "PER"),
    ("d1", "ann", 10, 14, "LOC"),
    ("d1", "bob", 0, 5, "PER"),
    ("d1", "bob", 11, 14, "LOC"),
    ("d2", "ann", 3, 8, "ORG"),
    ("d3", "ann", 2, 6, "PER"),
    ("d3", "bob", 2, 6, "PER"),
    ("d3", "bob", 8, 12, "LOC"),
]
EXTENTS = {"d1": (0, 20), "d2": (0, 12), "d3": (0, 15)}


@pytest.fixture
def data() -> SpanData:
    return SpanData.from_units(UNITS, extents=EXTENTS, annotated=[("d2", "bob")])


def test_contract_keys_and_values(data: SpanData) -> None:
    result = span_report(data)
    assert list(result) == [
        "level", "n_documents", "n_coders", "n_units", "coefficients", "documents"
    ]  # fmt: skip
    assert (result["level"], result["n_documents"], result["n_coders"]) == ("span", 3, 2)
    assert result["n_units"] == 8
    coefficients = result["coefficients"]
    assert list(coefficients) == [key for key in SPAN_COEFFICIENT_KEYS if key != "gamma"]
    assert set(coefficients["alpha_u"]) == {"value", "observed", "expected", "categories"}
    assert coefficients["span_f1"] == {
        "value": 0.5,
        "categories": {"LOC": 0.0, "ORG": 0.0, "PER": 1.0},
    }
    overlap = coefficients["span_f1_overlap"]
    assert overlap["value"] == pytest.approx(0.75)
    assert overlap["categories"] == pytest.approx({"LOC": 2 / 3, "ORG": 0.0, "PER": 1.0})
    assert overlap["min_overlap"] == 0.5
    assert set(coefficients["token_alpha"]) >= {"value", "observed", "expected"}
    assert set(coefficients["pk"]) == {"value", "pairs"}
    assert coefficients["pk"]["pairs"][0]["coders"] == ["ann", "bob"]
    json.dumps(result)  # JSON-ready


def test_undefined_measures_are_null_with_a_reason() -> None:
    # Offsets in seconds: no positions, so token and segmentation measures are undefined,
    # while F1 is computed.
    seconds = SpanData.from_units([("d", "a", 0.5, 2.0, "X"), ("d", "b", 0.5, 2.5, "X")])
    coefficients = span_report(seconds)["coefficients"]
    assert coefficients["span_f1"]["value"] == 0.0
    assert coefficients["span_f1_overlap"]["value"] == 1.0
    for key in ("token_alpha", "token_kappa", "pk", "window_diff"):
        assert coefficients[key]["value"] is None
        assert "integer" in coefficients[key]["reason"]


def test_bootstrap_shares_one_resample_of_documents(data: SpanData) -> None:
    result = span_report(data, bootstrap=300, seed=7, confidence=0.9)
    for key in ("span_f1", "span_f1_overlap", "token_alpha", "pk", "window_diff"):
        ci = result["coefficients"][key]["ci"]
        assert set(ci) == {"low", "high", "confidence", "method", "replicates"}
        assert (ci["confidence"], ci["replicates"]) == (0.9, 300)
    # Every measure is bootstrapped with the same seed over the same documents, so each
    # interval is the one its own decomposition gives with that seed.
    for key, decomposition in (
        ("span_f1", decompose_span_f1(data)),
        ("token_alpha", decompose_token_agreement(data)),
        ("window_diff", decompose_segmentation(data, "window_diff")),
    ):
        expected = bootstrap(decomposition, replicates=300, seed=7, confidence=0.9)
        assert result["coefficients"][key]["ci"]["low"] == expected.low
        assert result["coefficients"][key]["ci"]["high"] == expected.high


def test_alpha_u_and_gamma_entries(data: SpanData) -> None:
    result = span_report(data, gamma=True, bootstrap=100, seed=2)
    alpha_u = result["coefficients"]["alpha_u"]
    expected = unitizing_alpha(data)
    assert (alpha_u["value"], alpha_u["observed"], alpha_u["expected"]) == (
        expected.value, expected.observed, expected.expected
    )  # fmt: skip
    assert alpha_u["categories"]["PER"]["value"] == expected.categories["PER"].value
    interval = bootstrap(decompose_unitizing_alpha(data), replicates=100, seed=2)
    assert (alpha_u["ci"]["low"], alpha_u["ci"]["high"]) == (interval.low, interval.high)
    gamma = result["coefficients"]["gamma"]
    assert gamma["value"] == gamma_agreement(data, seed=2).value
    assert set(gamma) == {"value", "observed", "expected", "samples", "seed", "ci"}


def test_documents_most_disputed_first(data: SpanData) -> None:
    documents = span_report(data)["documents"]
    # d2 holds the largest part of alpha_U's D_o (ann's ORG unit against bob's "nothing").
    assert [entry["document"] for entry in documents] == ["d2", "d3", "d1"]
    parts = [entry["observed_disagreement"] for entry in documents]
    assert parts == sorted(parts, reverse=True)
    assert sum(parts) == pytest.approx(unitizing_alpha(data).observed)
    first = documents[0]
    assert first == first | {"n_units": 1, "coders": ["ann", "bob"], "f1_overlap": 0.0}


def test_alpha_u_undefined_keeps_the_documents(data: SpanData) -> None:
    # Overlapping units of one category: alpha_U refuses them, the rest is reported.
    overlapping = SpanData.from_units(
        [("d", "a", 0, 5, "X"), ("d", "a", 3, 8, "X"), ("d", "b", 0, 8, "X")],
        extents={"d": (0, 10)},
    )
    result = span_report(overlapping)
    assert result["coefficients"]["alpha_u"]["value"] is None
    assert "overlap" in result["coefficients"]["alpha_u"]["reason"]
    assert result["documents"][0]["observed_disagreement"] is None
    assert result["coefficients"]["span_f1_overlap"]["value"] is not None


def test_options_are_checked(data: SpanData) -> None:
    with pytest.raises(ValueError, match="confidence"):
        span_report(data, confidence=1.5)
    with pytest.raises(ValueError, match="bootstrap"):
        span_report(data, bootstrap=-1)
    with pytest.raises(ValueError, match="min_overlap"):
        span_report(data, min_overlap=2)


def test_table(data: SpanData) -> None:
    table = format_span_table(span_report(data, bootstrap=50))
    assert "Span F1, overlap (IoU ≥ 0.5)" in table
    assert "WindowDiff (error rate)" in table
    assert "most disputed documents" in table
    assert "ann / bob" in table


# -- overlapping units and alpha_U -----------------------------------------------------------

#: One coder's nested units of one category (a: X [0, 8) holds X [2, 5)) and the same units
#: merged by hand into their union (docs/references.md#span-polish-nested).
NESTED = [("d", "a", 0, 8, "X"), ("d", "a", 2, 5, "X"), ("d", "b", 0, 6, "X")]
MERGED = [("d", "a", 0, 8, "X"), ("d", "b", 0, 6, "X")]


def test_overlapping_merge_gives_alpha_u_of_the_union() -> None:
    nested = SpanData.from_units(NESTED, extents={"d": (0, 10)})
    merged = SpanData.from_units(MERGED, extents={"d": (0, 10)})
    refused = span_report(nested)["coefficients"]["alpha_u"]
    assert refused["value"] is None
    assert refused["reason"].endswith("(pass overlapping='merge' to merge them into their union)")
    result = span_report(nested, overlapping="merge", bootstrap=20)
    by_hand = span_report(merged, bootstrap=20)
    alpha_u = result["coefficients"]["alpha_u"]
    assert alpha_u["overlapping"] == "merge"
    assert alpha_u["value"] == by_hand["coefficients"]["alpha_u"]["value"]
    assert alpha_u["ci"] == by_hand["coefficients"]["alpha_u"]["ci"]
    assert result["documents"][0]["observed_disagreement"] == pytest.approx(alpha_u["observed"])
    assert "overlapping" not in by_hand["coefficients"]["alpha_u"]
    # F1 reads the units as given: a's nested unit is an unmatched one (exact: 0 of 3).
    assert result["coefficients"]["span_f1"]["value"] == 0.0
    with pytest.raises(ValueError, match="overlapping must be 'error' or 'merge'; got 'union'"):
        span_report(nested, overlapping="union")


def test_cli_overlapping(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nested.csv"
    path.write_text(
        "document,coder,begin,end,label\n"
        + "".join(f"{d},{c},{b},{e},{label}\n" for d, c, b, e, label in NESTED),
        encoding="utf-8",
    )
    assert main(["report", str(path), "--level", "span", "--json"]) == 0
    refused = json.loads(capsys.readouterr().out)["coefficients"]["alpha_u"]
    assert refused["value"] is None
    assert refused["reason"].endswith("(pass --overlapping merge to merge them into their union)")
    assert main(["report", str(path), "--level", "span", "--json", "--overlapping", "merge"]) == 0
    merged = json.loads(capsys.readouterr().out)["coefficients"]["alpha_u"]
    assert merged["overlapping"] == "merge"
    assert merged["value"] is not None
    assert main(["report", str(path), "--level", "nominal", "--overlapping", "merge"]) == 2
    assert "--overlapping applies to --level span only." in capsys.readouterr().err


# -- refusals with a code --------------------------------------------------------------------

#: Coder a's X [2, 5) nests in X [0, 8) (alpha_U refuses it) and Y [6, 9) overlaps X [0, 8)
#: at position 6 (no single token label there).
BOTH_OVERLAPS = [*NESTED, ("d", "a", 6, 9, "Y")]
UNITS_PROBLEM = (
    "document 'd', coder 'a': units [0, 8) and [2, 5) of category 'X' overlap; alpha_U needs "
    "one coder's units of a category to be disjoint"
)
TOKEN_PROBLEM = (
    "Document 'd', coder 'a': position 6 is covered by units of two categories ('X' and "
    "'Y'), so it has no single token label."
)
TOKEN_REMEDY = (
    "Use overlaps='first' to take the first unit's category, or resolve the overlap in the data."
)


def _overlapping_file(tmp_path: Path) -> Path:
    path = tmp_path / "overlapping.csv"
    path.write_text(
        "document,coder,begin,end,label\n"
        + "".join(f"{d},{c},{b},{e},{label}\n" for d, c, b, e, label in BOTH_OVERLAPS),
        encoding="utf-8",
    )
    return path


def test_refused_entries_carry_their_code_and_problem_apart_from_the_remedy() -> None:
    data = SpanData.from_units(BOTH_OVERLAPS, extents={"d": (0, 10)})
    coefficients = span_report(data)["coefficients"]
    assert coefficients["alpha_u"] == {
        "value": None,
        "reason": f"{UNITS_PROBLEM} (pass overlapping='merge' to merge them into their union)",
        "reason_code": "overlapping_units",
        "reason_problem": UNITS_PROBLEM,
    }
    for key in ("token_alpha", "token_kappa"):
        assert coefficients[key] == {
            "value": None,
            "reason": f"{TOKEN_PROBLEM} {TOKEN_REMEDY}",
            "reason_code": "overlapping_token_labels",
            "reason_problem": TOKEN_PROBLEM,
        }
    # One coder leaves alpha_U undefined for a reason no option lifts: a reason, no code.
    lonely = span_report(SpanData.from_units([("d", "a", 0, 2, "X")], extents={"d": (0, 4)}))
    assert set(lonely["coefficients"]["alpha_u"]) == {"value", "reason"}


def test_the_library_raises_a_refusal_with_code_problem_and_remedy() -> None:
    data = SpanData.from_units(BOTH_OVERLAPS, extents={"d": (0, 10)})
    with pytest.raises(RefusalError) as units:
        unitizing_alpha(data)
    assert (units.value.code, units.value.problem, units.value.remedy) == (
        "overlapping_units",
        UNITS_PROBLEM,
        "(pass overlapping='merge' to merge them into their union)",
    )
    with pytest.raises(RefusalError) as tokens:
        token_agreement(data, "alpha")
    assert (tokens.value.code, tokens.value.problem, tokens.value.remedy) == (
        "overlapping_token_labels",
        TOKEN_PROBLEM,
        TOKEN_REMEDY,
    )
    assert isinstance(tokens.value, ValueError)


def test_cli_states_its_remedy_from_the_code_whatever_the_library_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(unitizing_module, "MERGE_REMEDY", "(reworded by the library)")
    monkeypatch.setattr(tokens_module, "OVERLAPS_REMEDY", "Reworded too.")
    assert main(["report", str(_overlapping_file(tmp_path)), "--level", "span", "--json"]) == 0
    coefficients = json.loads(capsys.readouterr().out)["coefficients"]
    assert coefficients["alpha_u"]["reason"] == (
        f"{UNITS_PROBLEM} (pass --overlapping merge to merge them into their union)"
    )
    assert coefficients["alpha_u"]["reason_code"] == "overlapping_units"
    # The command line has no option for token labels: the library's remedy stays.
    assert coefficients["token_alpha"]["reason"] == f"{TOKEN_PROBLEM} Reworded too."


def test_cli_table_shows_the_command_line_remedy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(_overlapping_file(tmp_path)), "--level", "span"]) == 0
    table = capsys.readouterr().out
    assert (
        f"undefined alpha_u: {UNITS_PROBLEM} (pass --overlapping merge to merge them into "
        "their union)"
    ) in table
    assert f"undefined token_alpha: {TOKEN_PROBLEM} {TOKEN_REMEDY}" in table
