"""Reads for the round report of a span question: the stored span coefficients with their
intervals, unitizing alpha per category, the most disputed documents, the comparison with the
previous round, and alpha_u and span F1 across the study's rounds.

Every number comes from the round's latest finished computation (``Computation.results`` as
``computations.services`` stored it for a span question) or the history read
(``study_history``); nothing here computes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from computations import engine
from computations.comparison import COMPARISON_KEY
from computations.models import Computation
from computations.scope import scope_data_revision
from computations.selectors import computation_is_stale, study_history
from metrics import Reading
from pages.selectors import (
    LOWER_IS_BETTER,
    NO_STORED_COMPARISON,
    CoefficientHistory,
    coefficient_name,
    has_bands,
    history_by_coefficient,
    reading_of,
    round_computation,
)
from studies.models import Question, Round, Study

#: The coefficients charted across rounds on a span question's report.
HISTORY_COEFFICIENTS = ("alpha_u", "span_f1")
#: What each span coefficient's observed and expected numbers are.
TERMS = {
    "alpha_u": ("D_o", "D_e"),
    "gamma": ("D_o", "D_e"),
    "token_alpha": ("D_o", "D_e"),
    "token_kappa": ("A_o", "A_e"),
}


@dataclass(frozen=True)
class SpanCoefficientRow:
    key: str
    name: str
    value: float | None
    observed: float | None
    expected: float | None
    ci: Mapping[str, Any] | None
    #: The value read on its one benchmark scale (token alpha and kappa have one; α_U and
    #: γ, distance based, none unless the study chose one).
    reading: Reading
    reason: str | None
    #: Why a defined coefficient has no interval (it does not decompose over documents, ...).
    ci_reason: str | None
    #: What observed and expected are ("D_o", "D_e" disagreements or "A_o", "A_e").
    terms: tuple[str, str] | None
    lower_is_better: bool
    chance_corrected: bool


@dataclass(frozen=True)
class CategoryRow:
    category: str
    value: float | None
    observed: float | None
    expected: float | None
    reason: str | None = None


@dataclass(frozen=True)
class DocumentRow:
    item_id: int | None
    external_id: str
    n_units: int | None
    coders: Any
    observed_disagreement: float | None
    f1_overlap: float | None
    #: The document's share of α_U's observed disagreement (its part of D_o over D_o).
    share: float | None = None


@dataclass(frozen=True)
class ComparisonRow:
    key: str
    name: str
    later_value: float | None
    earlier_value: float | None
    estimate: float | None
    ci: Mapping[str, Any] | None
    method: str
    reason: str | None


@dataclass
class SpanRoundReport:
    study: Study
    round: Round
    question: Question
    computation: Computation | None
    stale: bool | None = None
    results: dict[str, Any] = field(default_factory=dict)
    coefficients: list[SpanCoefficientRow] = field(default_factory=list)
    per_category: list[CategoryRow] = field(default_factory=list)
    documents: list[DocumentRow] = field(default_factory=list)
    comparison: dict[str, Any] | None = None
    comparison_rows: list[ComparisonRow] = field(default_factory=list)
    comparison_error: str | None = None
    comparison_stale: bool = False
    history: list[CoefficientHistory] = field(default_factory=list)


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def span_coefficient_rows(
    results: Mapping[str, Any], *, chosen: str | None = None
) -> list[SpanCoefficientRow]:
    """The stored coefficients in display order (``engine.SPAN_COEFFICIENTS``)."""
    stored = results.get("coefficients") or {}
    skipped = results.get("skipped") or {}
    rows = []
    for key in [
        *engine.SPAN_COEFFICIENTS,
        *(k for k in stored if k not in engine.SPAN_COEFFICIENTS),
    ]:
        entry = stored.get(key)
        if entry is None:
            continue
        value = _number(entry.get("value"))
        rows.append(
            SpanCoefficientRow(
                key=key,
                name=coefficient_name(key),
                value=value,
                observed=_number(entry.get("observed")) if key in TERMS else None,
                expected=_number(entry.get("expected")) if key in TERMS else None,
                ci=entry.get("ci"),
                reading=reading_of(key, entry, distance=None, chosen=chosen),
                reason=entry.get("reason") or (skipped.get(key) if value is None else None),
                ci_reason=entry.get("ci_reason"),
                terms=TERMS.get(key),
                lower_is_better=key in LOWER_IS_BETTER,
                chance_corrected=has_bands(key),
            )
        )
    return rows


def alpha_u_categories(results: Mapping[str, Any]) -> list[CategoryRow]:
    """Unitizing alpha of each category (its value, D_o and D_e), as stored."""
    alpha_u = (results.get("coefficients") or {}).get("alpha_u") or {}
    categories = alpha_u.get("categories") or {}
    return [
        CategoryRow(
            category=str(label),
            value=_number(entry.get("value")),
            observed=_number(entry.get("observed")),
            expected=_number(entry.get("expected")),
            reason=entry.get("reason"),
        )
        for label, entry in categories.items()
    ]


def disputed_documents(results: Mapping[str, Any]) -> list[DocumentRow]:
    """The most disputed documents as stored; each one's part of α_U's observed
    disagreement (``observed_disagreement``, the parts add up to D_o) also as a share of
    D_o."""
    total = _number(((results.get("coefficients") or {}).get("alpha_u") or {}).get("observed"))
    rows = []
    for entry in results.get("documents") or []:
        part = _number(entry.get("observed_disagreement"))
        rows.append(
            DocumentRow(
                item_id=entry.get("item"),
                external_id=str(entry.get("external_id") or entry.get("document")),
                n_units=entry.get("n_units"),
                coders=entry.get("coders"),
                observed_disagreement=part,
                f1_overlap=_number(entry.get("f1_overlap")),
                share=part / total if part is not None and total else None,
            )
        )
    return rows


def _comparison(report: SpanRoundReport, results: Mapping[str, Any]) -> None:
    stored = results.get(COMPARISON_KEY)
    if not stored:
        report.comparison_error = NO_STORED_COMPARISON
        return
    if stored.get("status") != "done":
        report.comparison_error = str(stored.get("reason") or "unknown reason.")
        return
    report.comparison = dict(stored)
    for key, entry in (stored.get("coefficients") or {}).items():
        difference = entry.get("difference") or {}
        report.comparison_rows.append(
            ComparisonRow(
                key=key,
                name=coefficient_name(key),
                later_value=_number(entry.get("later_value")),
                earlier_value=_number(entry.get("earlier_value")),
                estimate=_number(difference.get("estimate")),
                ci=difference.get("ci"),
                method=str(entry.get("method") or ""),
                reason=entry.get("reason"),
            )
        )
    earlier = stored["earlier"]["round"]
    revision = scope_data_revision(question=report.question, round_ids=[earlier])
    report.comparison_stale = revision != stored.get("earlier_data_revision")


def span_history(*, study: Study, question: Question) -> list[CoefficientHistory]:
    """alpha_u and span F1 of this question, round after round (stored values only)."""
    history = study_history(study=study, question_id=question.pk)
    by_name = {
        h.coefficient: h for h in history_by_coefficient(history, chosen=study.benchmark_scale)
    }
    return [by_name[name] for name in HISTORY_COEFFICIENTS if name in by_name]


def span_round_report(*, study: Study, round_: Round, question: Question) -> SpanRoundReport:
    """Everything the round report shows for a span question."""
    computation = round_computation(study=study, round_=round_, question=question)
    report = SpanRoundReport(study=study, round=round_, question=question, computation=computation)
    report.history = span_history(study=study, question=question)
    if computation is None:
        return report
    results = computation.results or {}
    report.stale = computation_is_stale(computation)
    report.results = results
    report.coefficients = span_coefficient_rows(results, chosen=study.benchmark_scale)
    report.per_category = alpha_u_categories(results)
    report.documents = disputed_documents(results)
    _comparison(report, results)
    return report
