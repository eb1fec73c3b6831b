"""Reads for the site's pages: study list rows, the study history, round reports, coder pages.

Every number comes from a finished computation (``Computation.results``: coefficients,
diagnostics, the comparison with the previous round) or the history reads (``study_history``,
``coder_drift``); nothing here computes. Views and templates only format.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db.models import Count, Exists, OuterRef, QuerySet
from django.urls import reverse

from computations import engine
from computations.comparison import COMPARISON_KEY, headline_coefficient
from computations.models import Computation, ComputationScope, ComputationStatus
from computations.scope import coder_keys, scope_data_revision
from computations.selectors import (
    Staleness,
    coder_drift,
    computation_staleness,
    done_computations_for_history,
    study_history,
)
from metrics import Reading, benchmark_scale_for, read_coefficient
from pages.label_text import LabelText
from studies.access import Actor
from studies.labels import label_of
from studies.models import Annotation, Coder, Item, Question, Round, RoundStatus, Study
from studies.selectors import item_counts, study_list

#: Krippendorff's cut-offs drawn on the charts of chance-corrected coefficients.
REFERENCE_LINES = (0.667, 0.8)
#: Coefficients without an expected (chance) term: Krippendorff's reliability bands do not
#: apply to them, and they have no expected value to show. Span F1 is an agreement share;
#: P_k and WindowDiff are error rates (lower is better).
NOT_CHANCE_CORRECTED = frozenset(
    {"observed_agreement", "span_f1", "span_f1_overlap", "pk", "window_diff"}
)
#: Coefficients where a lower value is better agreement.
LOWER_IS_BETTER = frozenset({"pk", "window_diff"})
#: A difference smaller than this is shown as "no change".
TREND_TOLERANCE = 0.005

COEFFICIENT_NAMES = {
    "observed_agreement": "Observed agreement",
    "s": "Bennett's S",
    "pi": "Scott's / Fleiss' pi",
    "kappa": "Cohen's kappa / multi-kappa",
    "alpha": "Krippendorff's alpha",
    "kappa_w": "Weighted kappa",
    "light_kappa": "Light's kappa",
    "ac1": "Gwet's AC1 / AC2",
    "brennan_prediger": "Brennan–Prediger",
    "alpha_u": "Unitizing alpha (αᵤ)",
    "gamma": "Mathet et al.'s gamma (γ)",
    "span_f1": "Span F1, exact match",
    "span_f1_overlap": "Span F1, overlapping match",
    "token_alpha": "Token-level alpha",
    "token_kappa": "Token-level kappa",
    "pk": "Pₖ",
    "window_diff": "WindowDiff",
}


def coefficient_name(key: str) -> str:
    return COEFFICIENT_NAMES.get(key, key)


def has_bands(coefficient: str | None) -> bool:
    """Whether the coefficient is chance-corrected (it has an expected term; charts draw the
    reference lines only where its reading has Krippendorff's scale, ``reference_lines``)."""
    return coefficient not in NOT_CHANCE_CORRECTED


def reading_of(
    key: str,
    entry: Mapping[str, Any] | None,
    *,
    distance: str | None,
    chosen: str | None = None,
) -> Reading:
    """A stored coefficient read on its one benchmark scale (``metrics.read_coefficient``: the
    rule the CLI and the API's ``readings`` follow too), from its value and stored benchmarks."""
    entry = entry or {}
    value = entry.get("value")
    if isinstance(value, float) and math.isnan(value):
        value = None
    benchmarks = (entry.get("ci") or {}).get("benchmarks")
    return read_coefficient(key, value, benchmarks, distance=distance, chosen=chosen or None)


def reference_lines(coefficient: str, distances: Sequence[str | None], chosen: str | None) -> bool:
    """Draw Krippendorff's 0.667 and 0.8 on a chart of ``coefficient`` when every series
    (one per question, with its distance) is read on Krippendorff's scale."""
    return bool(distances) and all(
        benchmark_scale_for(coefficient, distance=d, chosen=chosen or None).scale == "krippendorff"
        for d in distances
    )


def trend(current: float | None, previous: float | None) -> str | None:
    """ "up", "down" or "flat" from the previous round's value to this one's."""
    if current is None or previous is None:
        return None
    if current - previous > TREND_TOLERANCE:
        return "up"
    if previous - current > TREND_TOLERANCE:
        return "down"
    return "flat"


# -- study list -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Headline:
    """A question's latest agreement: the newest round with a value of its headline coefficient."""

    question_id: int
    question_key: str
    coefficient: str | None
    round_id: int | None = None
    round_name: str | None = None
    value: float | None = None
    ci: Mapping[str, Any] | None = None
    previous_value: float | None = None
    previous_round_name: str | None = None
    trend: str | None = None
    stale: bool | None = None
    #: What changed after it: "annotations changed since", "distance table replaced since".
    stale_short: str | None = None
    #: The same as phrases: ("the annotations changed", "the distance table was replaced").
    stale_changes: tuple[str, ...] = ()
    #: The computation the value comes from.
    computation_id: int | None = None
    #: The value read on its one benchmark scale (or why none applies).
    reading: Reading | None = None


def question_headlines(history: Mapping[str, Any], *, chosen: str | None = None) -> list[Headline]:
    """One headline per question of a ``study_history`` result; ``chosen``: the study's
    benchmark scale (empty: the rule)."""
    out = []
    for question in history["questions"]:
        names: list[str] = []
        for entry in question["rounds"]:
            names.extend(n for n in entry["coefficients"] if n not in names)
        name = headline_coefficient(names)
        valued = [
            entry
            for entry in question["rounds"]
            if name is not None and (entry["coefficients"].get(name) or {}).get("value") is not None
        ]
        if name is None or not valued:
            out.append(Headline(question["question"], question["question_key"], name))
            continue
        last = valued[-1]
        point = last["coefficients"][name]
        previous = valued[-2] if len(valued) >= 2 else None
        previous_value = previous["coefficients"][name]["value"] if previous else None
        out.append(
            Headline(
                question_id=question["question"],
                question_key=question["question_key"],
                coefficient=name,
                round_id=last["round"],
                round_name=last["round_name"],
                value=point["value"],
                ci=point.get("ci"),
                previous_value=previous_value,
                previous_round_name=previous["round_name"] if previous else None,
                trend=trend(point["value"], previous_value),
                stale=last["stale"],
                stale_short=last.get("stale_short"),
                stale_changes=tuple(last.get("stale_changes") or ()),
                computation_id=last.get("computation"),
                reading=reading_of(name, point, distance=last.get("distance"), chosen=chosen),
            )
        )
    return out


@dataclass(frozen=True)
class StudyRow:
    study: Study
    rounds_open: int
    rounds_closed: int
    n_coders: int
    n_items: int
    headlines: list[Headline]


def _counts_by_study(queryset: QuerySet[Any], study_ids: list[int]) -> dict[int, int]:
    rows = queryset.filter(study_id__in=study_ids).values("study_id").annotate(n=Count("id"))
    return {row["study_id"]: row["n"] for row in rows}


def study_list_rows(*, actor: Actor) -> list[StudyRow]:
    """The actor's studies with their latest agreement per question and their sizes."""
    studies = list(study_list(actor=actor))
    ids = [s.pk for s in studies]
    # Grouped counts, one query per table, rather than joins that multiply rows.
    rounds: dict[tuple[int, str], int] = {
        (row["study_id"], row["status"]): row["n"]
        for row in Round.objects.filter(study_id__in=ids)
        .values("study_id", "status")
        .annotate(n=Count("id"))
    }
    coders = _counts_by_study(Coder.objects.all(), ids)
    items = item_counts(study_ids=ids)
    return [
        StudyRow(
            study=study,
            rounds_open=rounds.get((study.pk, RoundStatus.OPEN), 0),
            rounds_closed=rounds.get((study.pk, RoundStatus.CLOSED), 0),
            n_coders=coders.get(study.pk, 0),
            n_items=items.get(study.pk, 0),
            headlines=question_headlines(study_history(study=study), chosen=study.benchmark_scale),
        )
        for study in studies
    ]


# -- study page --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Point:
    round_name: str
    value: float | None
    low: float | None
    high: float | None


@dataclass(frozen=True)
class Series:
    """One question's values of one coefficient, one point per round of the study."""

    question_key: str
    points: list[Point]
    #: The question's place in the study (its colour and dash on every chart); None: the
    #: series' place on its chart.
    number: int | None = None


@dataclass(frozen=True)
class CoefficientHistory:
    coefficient: str
    name: str
    rounds: list[str]
    series: list[Series]
    #: Draw Krippendorff's reference lines (chance-corrected coefficients only).
    bands: bool = True


def history_by_coefficient(
    history: Mapping[str, Any], *, chosen: str | None = None
) -> list[CoefficientHistory]:
    """The history regrouped for charts: per coefficient, one series per question; the
    reference lines only where every series is read on Krippendorff's scale."""
    names: list[str] = []
    rounds: list[str] = []
    for question in history["questions"]:
        for entry in question["rounds"]:
            names.extend(n for n in entry["coefficients"] if n not in names)
        if not rounds:
            rounds = [entry["round_name"] for entry in question["rounds"]]
    known = (*engine.ALL_COEFFICIENTS, *engine.SPAN_COEFFICIENTS)
    ordered = [n for n in known if n in names] + [n for n in names if n not in known]
    out = []
    for name in ordered:
        series = []
        distances: list[str | None] = []
        for number, question in enumerate(history["questions"]):
            points = []
            for entry in question["rounds"]:
                point = entry["coefficients"].get(name) or {}
                ci = point.get("ci") or {}
                points.append(
                    Point(entry["round_name"], point.get("value"), ci.get("low"), ci.get("high"))
                )
            if any(p.value is not None for p in points):
                series.append(Series(question["question_key"], points, number))
                distances.append(
                    next((e.get("distance") for e in question["rounds"] if e.get("distance")), None)
                )
        out.append(
            CoefficientHistory(
                name,
                coefficient_name(name),
                rounds,
                series,
                reference_lines(name, distances, chosen),
            )
        )
    return out


def latest_annotated_rounds(
    *, questions: Sequence[Question], rounds: Sequence[Round]
) -> dict[int, Round]:
    """Per question id, the latest of ``rounds`` (by position) holding annotations for it.

    Questions without annotations are left out. One query per question, an EXISTS per round
    on the annotations' (round, question, ...) index: the page never scans annotations.
    """
    by_id = {round_.pk: round_ for round_ in rounds}
    latest: dict[int, Round] = {}
    for question in questions:
        labelled = Annotation.objects.filter(round=OuterRef("pk"), question=question)
        found = (
            Round.objects.filter(pk__in=list(by_id))
            .filter(Exists(labelled))
            .order_by("-position")
            .values_list("pk", flat=True)
            .first()
        )
        if found is not None:
            latest[question.pk] = by_id[found]
    return latest


@dataclass(frozen=True)
class CoderLink:
    pk: int
    key: str
    name: str
    url: str

    def __str__(self) -> str:
        return self.name or self.key


@dataclass(frozen=True)
class StudyCoders:
    """The first ``limit`` coders by key, with their page's URL, and how many there are."""

    shown: list[CoderLink]
    total: int

    @property
    def hidden(self) -> int:
        return self.total - len(self.shown)


def study_coders(*, study: Study, limit: int) -> StudyCoders:
    # One reverse() for all: a URL per coder through the resolver costs ~50 µs each.
    base = reverse("pages:coder-detail", args=[study.pk, 0]).removesuffix("0/")
    rows = Coder.objects.filter(study=study).order_by("key").values_list("pk", "key", "name")
    shown = [CoderLink(pk, key, name, f"{base}{pk}/") for pk, key, name in rows[:limit]]
    total = len(shown) if len(shown) < limit else Coder.objects.filter(study=study).count()
    return StudyCoders(shown, total)


def study_computations(*, study: Study, limit: int = 20) -> list[Computation]:
    # The question key is shown for each row.
    return list(
        Computation.objects.filter(study=study)
        .defer("results")  # the list shows status and timestamps, not the stored results
        .select_related("question")
        .prefetch_related("rounds")
        .order_by("-created_at", "-id")[:limit]
    )


# -- round report ------------------------------------------------------------------------------


def round_computation(*, study: Study, round_: Round, question: Question) -> Computation | None:
    """The latest done one-round computation of this question in this round."""
    return (
        done_computations_for_history(study_id=study.pk, question_id=question.pk)
        .filter(rounds=round_, scope=ComputationScope.ROUND)
        .first()
    )


@dataclass(frozen=True)
class CoefficientRow:
    key: str
    name: str
    value: float | None
    observed: float | None
    expected: float | None
    kind: str | None
    ci: Mapping[str, Any] | None
    se: float | None
    bootstrap_se: float | None
    #: The value read on its one benchmark scale, or why none applies.
    reading: Reading


def coefficient_rows(
    results: Mapping[str, Any], *, chosen: str | None = None
) -> list[CoefficientRow]:
    """The stored coefficients in the report's order, each with its one reading."""
    stored = results.get("coefficients") or {}
    known = (*engine.ALL_COEFFICIENTS, *engine.SPAN_COEFFICIENTS)
    order = [k for k in known if k in stored] + [k for k in stored if k not in known]
    rows = []
    for key in order:
        entry = stored[key]
        rows.append(
            CoefficientRow(
                key=key,
                name=coefficient_name(key),
                value=entry.get("value"),
                observed=entry.get("observed"),
                expected=entry.get("expected") if has_bands(key) else None,
                kind=entry.get("kind"),
                ci=entry.get("ci"),
                se=entry.get("se"),
                bootstrap_se=entry.get("bootstrap_se"),
                reading=reading_of(key, entry, distance=results.get("distance"), chosen=chosen),
            )
        )
    return rows


@dataclass(frozen=True)
class Matrix:
    """A labelled square (or rectangular) table of numbers."""

    rows: list[str]
    columns: list[str]
    values: list[list[float | None]]


@dataclass(frozen=True)
class DisputedItem:
    item: str
    disagreement: float | None
    labels: dict[str, str]


@dataclass
class RoundExtras:
    """The diagnostics shown beside the coefficients, as the worker stored them."""

    kappa_comparisons: list[dict[str, Any]] = field(default_factory=list)
    annotator_bias: dict[str, Any] | None = None
    coincidence: Matrix | None = None
    skipped: dict[str, str] = field(default_factory=dict)

    @property
    def few_pairs(self) -> int:
        """How many pairs of the Di Eugenio & Glass table share fewer items than the minimum."""
        return sum(1 for row in self.kappa_comparisons if row.get("few"))


#: The most coders the round report's coder quality table lists (the least competent).
MAX_QUALITY_ROWS = 30


@dataclass(frozen=True)
class CoderQualityRow:
    coder: str
    competence: float | None
    accuracy: float | None
    lowest: bool


@dataclass(frozen=True)
class CoderQualityTable:
    """The stored coder quality of a round: rows least competent first, or why there is none."""

    rows: list[CoderQualityRow]
    n_coders: int
    n_items: int | None
    agreement_with_majority: float | None
    restarts: int | None
    skipped: str | None = None


def coder_quality_table(results: Mapping[str, Any]) -> CoderQualityTable | None:
    """Coders sorted by MACE competence (lowest first, flagged), with their Dawid–Skene
    accuracy; None for a computation stored before coder quality existed."""
    stored = results.get("coder_quality")
    if not stored:
        return None
    if stored.get("skipped"):
        return CoderQualityTable([], 0, None, None, None, skipped=str(stored["skipped"]))
    competence = {c: e.get("competence") for c, e in stored["mace"]["coders"].items()}
    accuracy = {c: e.get("accuracy") for c, e in stored["dawid_skene"]["coders"].items()}
    order = sorted(competence, key=lambda c: (_missing_last(competence[c]), c))
    lowest = order[0] if order else None
    rows = [
        CoderQualityRow(c, competence[c], accuracy.get(c), c == lowest)
        for c in order[:MAX_QUALITY_ROWS]
    ]
    posterior = stored.get("posterior_labels") or {}
    return CoderQualityTable(
        rows,
        len(order),
        posterior.get("n_items"),
        posterior.get("agreement_with_majority"),
        stored["mace"].get("n_restarts"),
    )


def _missing_last(value: float | None) -> float:
    return float("inf") if value is None else float(value)


@dataclass
class RoundReport:
    study: Study
    round: Round
    question: Question
    computation: Computation | None
    stale: bool | None = None
    #: What changed after the computation (its annotations, the adjudications its
    #: calibration read).
    staleness: Staleness | None = None
    results: dict[str, Any] = field(default_factory=dict)
    coefficients: list[CoefficientRow] = field(default_factory=list)
    headline: str | None = None
    per_category: list[dict[str, Any]] = field(default_factory=list)
    coder_pairs: Matrix | None = None
    coder_pairs_coefficient: str | None = None
    #: The same pairs with their shared items and flags (``coder_pairs`` is its heatmap).
    pairs: PairwiseTable | None = None
    disputed: list[DisputedItem] = field(default_factory=list)
    disputed_coders: list[str] = field(default_factory=list)
    extras: RoundExtras = field(default_factory=RoundExtras)
    #: The comparison with the previous round the worker stored (status "done") ...
    comparison: dict[str, Any] | None = None
    #: ... or why there is none.
    comparison_error: str | None = None
    #: The earlier round's annotations changed after the comparison was stored.
    comparison_stale: bool = False
    #: The ICC forms of an interval or ratio question (``results["icc"]``), or None.
    icc: list[dict[str, Any]] | None = None
    #: Coders by MACE competence, least competent first (``results["coder_quality"]``).
    coder_quality: CoderQualityTable | None = None


def pair_min_items() -> int:
    """The fewest shared items for a pair's agreement to be shown (``AGREEMENT_PAIR_MIN_ITEMS``)."""
    return int(getattr(settings, "AGREEMENT_PAIR_MIN_ITEMS", 10))


@dataclass(frozen=True)
class PairCell:
    """One pair of coders in the coder × coder table: its value, the items both labelled,
    and whether they are fewer than the minimum (``few``)."""

    value: float | None
    shared: int | None
    few: bool
    diagonal: bool = False


@dataclass(frozen=True)
class PairwiseTable:
    """The stored coder × coder matrix with each pair's shared items. ``matrix`` (for the
    heatmap) leaves blank the pairs that share fewer than ``minimum`` items; ``rows`` keeps
    every value with its count and flag."""

    coefficient: str
    coders: list[str]
    rows: list[list[PairCell]]
    matrix: Matrix
    minimum: int
    n_pairs: int
    n_few: int
    #: Light's kappa as the mean of every defined pair (each pair weighted equally), and the
    #: same over the pairs with at least ``minimum`` shared items.
    mean_all: float | None
    mean_enough: float | None


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _matrix_of_pairs(pairs: Mapping[str, Any], names: Mapping[int, str]) -> PairwiseTable | None:
    coders = [names.get(int(c), str(c)) if str(c).isdigit() else str(c) for c in pairs["coders"]]
    values = pairs.get("values")
    if not values:
        return None
    n = len(coders)
    defined = pairs.get("defined") or [[True] * n for _ in coders]
    shared = pairs.get("n_shared_items")
    minimum = pair_min_items()
    rows: list[list[PairCell]] = []
    for i in range(n):
        row = []
        for j in range(n):
            value = values[i][j] if defined[i][j] else None
            count = None if shared is None else int(shared[i][j])
            few = i != j and count is not None and count < minimum
            row.append(PairCell(value, count, few, diagonal=i == j))
        rows.append(row)
    upper = [rows[i][j] for i in range(n) for j in range(i + 1, n)]
    heat = [[None if cell.few else cell.value for cell in row] for row in rows]
    return PairwiseTable(
        coefficient=str(pairs.get("coefficient") or ""),
        coders=coders,
        rows=rows,
        matrix=Matrix(coders, coders, heat),
        minimum=minimum,
        n_pairs=len(upper),
        n_few=sum(1 for cell in upper if cell.few),
        mean_all=_mean([c.value for c in upper if c.value is not None]),
        mean_enough=_mean([c.value for c in upper if c.value is not None and not c.few]),
    )


def _per_category_rows(per_category: Mapping[str, Any], labels: LabelText) -> list[dict[str, Any]]:
    """The stored per-category agreement; a set question's per member (``members``), in the
    question's declared category order."""
    categories = per_category.get("categories") or []
    values = per_category.get("values") or []
    observed = per_category.get("observed") or [None] * len(categories)
    expected = per_category.get("expected") or [None] * len(categories)
    rows = [
        {"code": c, "category": labels.stored(c), "value": v, "observed": o, "expected": e}
        for c, v, o, e in zip(categories, values, observed, expected, strict=False)
    ]
    if per_category.get("members"):
        rows.sort(key=lambda row: labels.rank(row["code"]))
    return rows


def _labels_by_item(
    *, round_: Round, question: Question, external_ids: Sequence[str] | None
) -> tuple[dict[str, dict[str, str]], list[str]]:
    """Each coder's label text of the items (all items when ``external_ids`` is None)."""
    text = LabelText.for_question(question)
    queryset = Annotation.objects.filter(round=round_, question=question)
    if external_ids is not None:
        # The items' ids first: then the annotations' (round, question, item) index finds
        # the few rows, instead of a join over the whole round (seconds for a crowd round).
        item_ids = Item.objects.filter(
            study_id=round_.study_id, external_id__in=list(external_ids)
        ).values_list("id", flat=True)
        queryset = queryset.filter(item_id__in=list(item_ids))
    labels: dict[str, dict[str, str]] = defaultdict(dict)
    coders: set[str] = set()
    for item, coder, category, number, category_set in queryset.values_list(
        "item__external_id", "coder__key", "category_id", "number", "category_set"
    ).order_by("item_id", "coder__key"):
        labels[item][coder] = text.annotation(label_of(category, number, category_set))
        coders.add(coder)
    return dict(labels), sorted(coders)


def _round_extras(diagnostics: Mapping[str, Any], labels: LabelText) -> RoundExtras:
    """The two-coder reports, annotator bias and coincidences the worker stored."""
    extras = RoundExtras(
        kappa_comparisons=[
            {**row, "few": row.get("n_items") is not None and row["n_items"] < pair_min_items()}
            for row in diagnostics.get("kappa_comparisons") or []
        ],
        annotator_bias=diagnostics.get("annotator_bias"),
        skipped={
            key: reason
            for key, reason in (diagnostics.get("skipped") or {}).items()
            if key in ("kappa_comparisons", "annotator_bias", "coincidence")
        },
    )
    coincidence = diagnostics.get("coincidence")
    if coincidence:
        names = [labels.stored(label) for label in coincidence["labels"]]
        extras.coincidence = Matrix(names, names, coincidence["matrix"])
    return extras


#: Shown for a computation finished before comparisons were stored with computations.
NO_STORED_COMPARISON = (
    "this computation was made before comparisons were stored with it; request it again."
)


def _stored_comparison(report: RoundReport, results: Mapping[str, Any]) -> None:
    """The comparison with the previous round as the worker stored it (never computed here)."""
    stored = results.get(COMPARISON_KEY)
    if not stored:
        report.comparison_error = NO_STORED_COMPARISON
        return
    if stored.get("status") != "done":
        report.comparison_error = str(stored.get("reason") or "unknown reason.")
        return
    report.comparison = {**stored, "coefficient_name": coefficient_name(stored["coefficient"])}
    earlier = stored["earlier"]["round"]
    revision = scope_data_revision(question=report.question, round_ids=[earlier])
    report.comparison_stale = revision != stored.get("earlier_data_revision")


def round_report(*, study: Study, round_: Round, question: Question) -> RoundReport:
    """Everything the round report shows for one question."""
    computation = round_computation(study=study, round_=round_, question=question)
    report = RoundReport(study=study, round=round_, question=question, computation=computation)
    if computation is None:
        return report
    results = computation.results or {}
    report.staleness = computation_staleness(computation)
    report.stale = bool(report.staleness)
    report.results = results
    report.coefficients = coefficient_rows(results, chosen=study.benchmark_scale)
    report.headline = headline_coefficient([row.key for row in report.coefficients])
    diagnostics = results.get("diagnostics") or {}
    label_text = LabelText.for_question(question)
    if diagnostics.get("per_category"):
        report.per_category = _per_category_rows(diagnostics["per_category"], label_text)
    pairs = diagnostics.get("coder_pairs")
    if pairs:
        names = coder_keys(int(c) for c in pairs["coders"] if str(c).isdigit())
        report.pairs = _matrix_of_pairs(pairs, names)
        report.coder_pairs = report.pairs.matrix if report.pairs is not None else None
        report.coder_pairs_coefficient = pairs.get("coefficient")
    disputed = diagnostics.get("most_disputed_items") or []
    if disputed:
        labels, coders = _labels_by_item(
            round_=round_, question=question, external_ids=[d["item"] for d in disputed]
        )
        report.disputed = [
            DisputedItem(d["item"], d.get("disagreement"), labels.get(d["item"], {}))
            for d in disputed
        ]
        report.disputed_coders = coders
    report.extras = _round_extras(diagnostics, label_text)
    report.icc = _icc_rows(results.get("icc"))
    report.coder_quality = coder_quality_table(results)
    _stored_comparison(report, results)
    return report


#: How the ICC table names each model.
ICC_MODELS = {
    "oneway": "one-way random",
    "twoway_random": "two-way random",
    "twoway_mixed": "two-way mixed",
}


def _icc_rows(table: Mapping[str, Any] | None) -> list[dict[str, Any]] | None:
    """The stored ICC forms with their model, type and unit in words."""
    if not table:
        return None
    return [
        {
            **form,
            "model_name": ICC_MODELS.get(form["model"], form["model"]),
            "measure": f"{form['type']}, {'single' if form['unit'] == 'single' else 'average'}",
            "confidence": table.get("confidence"),
        }
        for form in table.get("forms") or []
    ]


# -- coder page --------------------------------------------------------------------------------


@dataclass(frozen=True)
class CoderQuestion:
    question: Question
    rounds: list[str]
    own: list[float | None]
    others: dict[str, list[float | None]]
    change: float | None
    distribution_round: str | None
    distribution: list[dict[str, Any]]
    divergence: float | None
    #: Per round with a stored coder quality: the coder's accuracy and competence.
    quality: list[dict[str, Any]] = field(default_factory=list)


def _distribution(
    computation: Computation | None, coder: Coder, labels: LabelText
) -> tuple[list[dict[str, Any]], float | None]:
    if computation is None:
        return [], None
    table = ((computation.results or {}).get("diagnostics") or {}).get("coder_distributions")
    if not table:
        return [], None
    coders = [str(c) for c in table["coders"]]
    if str(coder.pk) not in coders:
        return [], None
    index = coders.index(str(coder.pk))
    proportions = table["proportions"][index]
    counts = table["counts"][index]
    rows = [
        {"category": labels.stored(cat), "count": n, "share": share, "pooled": pooled}
        for cat, n, share, pooled in zip(
            table["categories"], counts, proportions, table["pooled"], strict=False
        )
    ]
    divergence = (table.get("divergence") or [None] * len(coders))[index]
    return rows, divergence


def _coder_quality_rows(rounds: Sequence[Mapping[str, Any]], coder: Coder) -> list[dict[str, Any]]:
    """The coder's Dawid–Skene accuracy and MACE competence in each round whose latest
    computation stored them, with whether the coder was the round's least competent."""
    ids = [r["computation"] for r in rounds if r["computation"] is not None]
    stored = dict(
        Computation.objects.filter(pk__in=ids, status=ComputationStatus.DONE).values_list(
            "pk", "results__coder_quality"
        )
    )
    rows = []
    for entry in rounds:
        quality = stored.get(entry["computation"]) or {}
        competence = (quality.get("mace") or {}).get("coders") or {}
        if coder.key not in competence:
            continue
        own = competence[coder.key].get("competence")
        known = [
            e.get("competence") for e in competence.values() if e.get("competence") is not None
        ]
        rows.append(
            {
                "round": entry["round_name"],
                "accuracy": quality["dawid_skene"]["coders"].get(coder.key, {}).get("accuracy"),
                "competence": own,
                "n_coders": len(competence),
                "lowest": own is not None and len(known) > 1 and own <= min(known),
            }
        )
    return rows


def coder_history(entry: CoderQuestion, coder: Coder) -> CoefficientHistory:
    """The coder's series first, then every other coder's, for a chart across rounds."""
    series = [
        Series(
            key,
            [
                Point(name, value, None, None)
                for name, value in zip(entry.rounds, values, strict=True)
            ],
        )
        for key, values in [(coder.key, entry.own), *entry.others.items()]
    ]
    return CoefficientHistory(
        "per-coder", "Mean agreement with the other coders", entry.rounds, series
    )


def coder_report(*, study: Study, coder: Coder) -> list[CoderQuestion]:
    """Per question: the coder's mean agreement with the others over rounds, and their label
    distribution against the pooled one in the latest round with a computation."""
    out = []
    for question in Question.objects.filter(study=study).order_by("position", "id"):
        drift = coder_drift(study=study, question=question)
        own: list[float | None] = [None] * len(drift["rounds"])
        others: dict[str, list[float | None]] = {}
        change = None
        for row in drift["coders"]:
            if row["coder"] == coder.key:
                own, change = row["values"], row["change"]
            else:
                others[row["coder"]] = row["values"]
        latest = None
        latest_name = None
        for entry in reversed(drift["rounds"]):
            if entry["computation"] is not None:
                latest = (
                    Computation.objects.filter(
                        pk=entry["computation"], status=ComputationStatus.DONE
                    )
                    .only("results")
                    .first()
                )
                latest_name = entry["round_name"]
                break
        distribution, divergence = _distribution(latest, coder, LabelText.for_question(question))
        out.append(
            CoderQuestion(
                question=question,
                rounds=[r["round_name"] for r in drift["rounds"]],
                own=own,
                others=others,
                change=change,
                distribution_round=latest_name,
                distribution=distribution,
                divergence=divergence,
                quality=_coder_quality_rows(drift["rounds"], coder),
            )
        )
    return out
