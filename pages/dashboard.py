"""The study dashboard: the study page's first screen, one panel per question.

Each panel answers a team lead's four questions from stored results only: is the latest
agreement reliable enough (the headline coefficient, its interval and its one reading), is
it getting better (a sparkline across rounds and the difference with the previous round),
where is the disagreement (the weakest categories, coders and items of the latest computed
round, as the worker stored them), and what to do next (``pages.next_step``), with the
round's open review queue and its adjudications.

Statements are bounded: the history read, the questions, one per question for its
categories, then one each for the stored diagnostics of every question's latest round, the
review queue, the review rules, the adjudications, the plans, the coders named and the
pending computations, whatever the numbers of coders and items; none reads annotations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db.models import Count
from django.db.models.fields.json import KeyTransform
from django.urls import reverse
from django.utils.safestring import SafeString

from adjudication.models import Adjudication
from computations.models import Computation, ComputationStatus
from computations.selectors import study_history
from pages import charts
from pages.label_text import LabelText
from pages.next_step import NextStep, QuestionState, lowest_coder, next_step
from pages.selectors import (
    CoefficientHistory,
    Headline,
    Point,
    Series,
    coefficient_name,
    question_headlines,
)
from planning.models import PlanRequest, PlanStatus
from review.models import ReviewEntry, ReviewRule
from studies.kinds import Feature
from studies.models import Coder, Question, Round, Study

#: How many of the weakest categories, coders and items a panel lists.
WEAKEST = 3
#: The default gap below the other coders' mean that suggests retraining a coder
#: (``AGREEMENT_RETRAIN_GAP``): a convention of this server, not a published cut-off.
RETRAIN_GAP = 0.1
#: Unfinished computations the page lists (and waits for).
PENDING_LISTED = 20


def retrain_gap() -> float:
    return float(getattr(settings, "AGREEMENT_RETRAIN_GAP", RETRAIN_GAP))


@dataclass(frozen=True)
class Weak:
    """One of the weakest categories, coders or items, with its stored value."""

    label: str
    value: float | None
    url: str | None = None


@dataclass
class QuestionPanel:
    question: Question
    headline: Headline
    sparkline: SafeString
    #: The headline coefficient in the latest round minus the previous round's.
    difference: float | None
    categories: list[Weak] = field(default_factory=list)
    category_method: str | None = None
    coders: list[Weak] = field(default_factory=list)
    pair_coefficient: str | None = None
    items: list[Weak] = field(default_factory=list)
    supports_review: bool = False
    review_open: int = 0
    review_rule: bool = False
    review_url: str | None = None
    supports_adjudication: bool = False
    adjudicated: int = 0
    adjudication_url: str | None = None
    round_report_url: str | None = None
    next_step: NextStep | None = None


@dataclass
class Dashboard:
    panels: list[QuestionPanel]
    #: Unfinished computations of the study, oldest first (the page waits for them).
    pending: list[Computation]
    history_url: str

    @property
    def computed(self) -> bool:
        """Whether any question has a finished computation."""
        return any(panel.headline.round_id is not None for panel in self.panels)


def _latest_computations(
    history: Mapping[str, Any], headlines: Sequence[Headline]
) -> dict[int, int]:
    """Per question id, the computation id of its headline round."""
    out = {}
    by_question = {q["question"]: q for q in history["questions"]}
    for headline in headlines:
        if headline.round_id is None:
            continue
        for entry in by_question[headline.question_id]["rounds"]:
            if entry["round"] == headline.round_id and entry["computation"] is not None:
                out[headline.question_id] = entry["computation"]
    return out


def _stored_diagnostics(computation_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
    """The few diagnostics the panels show, never a crowd round's whole stored results."""
    diagnostics = KeyTransform("diagnostics", "results")
    rows = (
        Computation.objects.filter(pk__in=list(computation_ids))
        .annotate(
            per_category=KeyTransform("per_category", diagnostics),
            per_coder=KeyTransform("per_coder", diagnostics),
            disputed=KeyTransform("most_disputed_items", diagnostics),
            pair_coefficient=KeyTransform("coefficient", KeyTransform("coder_pairs", diagnostics)),
        )
        .values("id", "per_category", "per_coder", "disputed", "pair_coefficient")
    )
    return {row["id"]: dict(row) for row in rows}


def _weakest_categories(per_category: Any, labels: LabelText) -> list[Weak]:
    if not isinstance(per_category, Mapping):
        return []
    pairs = [
        (value, labels.stored(code))
        for code, value in zip(
            per_category.get("categories") or [], per_category.get("values") or [], strict=False
        )
        if isinstance(value, int | float)
    ]
    pairs.sort(key=lambda pair: (pair[0], pair[1]))
    return [Weak(label, value) for value, label in pairs[:WEAKEST]]


def _weakest_coders(per_coder: Any) -> list[tuple[str, float]]:
    if not isinstance(per_coder, Mapping):
        return []
    known = sorted(
        ((float(v), str(c)) for c, v in per_coder.items() if isinstance(v, int | float)),
        key=lambda pair: (pair[0], pair[1]),
    )
    return [(coder, value) for value, coder in known[:WEAKEST]]


def _weakest_items(disputed: Any) -> list[Weak]:
    if not isinstance(disputed, list):
        return []
    # An item all its coders agree on is not disputed, whatever its rank.
    rows = [
        row
        for row in disputed
        if isinstance(row, Mapping) and "item" in row and (row.get("disagreement") or 0) > 0
    ]
    return [Weak(str(row["item"]), row.get("disagreement")) for row in rows[:WEAKEST]]


def _sparkline(history: Mapping[str, Any], headline: Headline) -> SafeString:
    question = next(q for q in history["questions"] if q["question"] == headline.question_id)
    points = []
    for entry in question["rounds"]:
        point = entry["coefficients"].get(headline.coefficient or "") or {}
        points.append(Point(entry["round_name"], point.get("value"), None, None))
    name = coefficient_name(headline.coefficient or "")
    series = CoefficientHistory(
        headline.coefficient or "", name, [p.round_name for p in points],
        [Series(headline.question_key, points)],
    )  # fmt: skip
    return charts.sparkline(series, chart_id=f"spark-{headline.question_id}")


def _counts(rows: Any) -> dict[tuple[int, int], int]:
    return {(row["round_id"], row["question_id"]): row["n"] for row in rows}


def study_dashboard(*, study: Study) -> Dashboard:
    history = study_history(study=study)
    headlines = question_headlines(history, chosen=study.benchmark_scale)
    questions = {q.pk: q for q in Question.objects.filter(study=study)}
    latest = _latest_computations(history, headlines)
    stored = _stored_diagnostics(list(latest.values()))
    rounds = [h.round_id for h in headlines if h.round_id is not None]
    question_ids = [h.question_id for h in headlines]
    open_entries = _counts(
        ReviewEntry.objects.filter(
            round_id__in=rounds, question_id__in=question_ids, resolved_at__isnull=True
        )
        .values("round_id", "question_id")
        .annotate(n=Count("id"))
    )
    rules = {rule.question_id: rule.is_active for rule in ReviewRule.objects.filter(
        question_id__in=question_ids
    )}  # fmt: skip
    decided = _counts(
        Adjudication.objects.filter(
            round_id__in=rounds, question_id__in=question_ids, superseded_at__isnull=True
        )
        .values("round_id", "question_id")
        .annotate(n=Count("id"))
    )
    planned = set(
        PlanRequest.objects.filter(study=study, status=PlanStatus.DONE).values_list(
            "question_id", "pilot_round_id"
        )
    )
    weak_coders = {
        question_id: _weakest_coders(stored.get(computation, {}).get("per_coder"))
        for question_id, computation in latest.items()
    }
    names = {coder for rows in weak_coders.values() for coder, _ in rows}
    for computation in latest.values():
        gap = lowest_coder(stored.get(computation, {}).get("per_coder") or {})
        if gap is not None:
            names.add(gap.coder)
    coder_pks = dict(
        Coder.objects.filter(study=study, key__in=sorted(names)).values_list("key", "pk")
    )
    panels = [
        _panel(
            study,
            questions[h.question_id],
            h,
            history,
            stored.get(latest.get(h.question_id, -1), {}),
            coder_pks=coder_pks,
            review_open=open_entries.get((h.round_id or 0, h.question_id), 0),
            review_rule=rules.get(h.question_id, False),
            adjudicated=decided.get((h.round_id or 0, h.question_id), 0),
            planned=(h.question_id, h.round_id) in planned,
        )
        for h in headlines
    ]
    return Dashboard(
        panels, pending_computations(study=study), reverse("pages:study-history", args=[study.pk])
    )


def pending_computations(
    *, study: Study, question: Question | None = None, round_: Round | None = None
) -> list[Computation]:
    """The study's unfinished computations (of one question and round when given), oldest
    first (at most ``PENDING_LISTED``)."""
    queryset = Computation.objects.filter(
        study=study, status__in=(ComputationStatus.QUEUED, ComputationStatus.RUNNING)
    )
    if question is not None:
        queryset = queryset.filter(question=question)
    if round_ is not None:
        queryset = queryset.filter(rounds=round_)
    return list(
        queryset.defer("results", "item_plan", "parameters")
        .select_related("question")
        .prefetch_related("rounds")
        .order_by("created_at", "id")[:PENDING_LISTED]
    )


def _panel(
    study: Study,
    question: Question,
    headline: Headline,
    history: Mapping[str, Any],
    stored: Mapping[str, Any],
    *,
    coder_pks: Mapping[str, int],
    review_open: int,
    review_rule: bool,
    adjudicated: int,
    planned: bool,
) -> QuestionPanel:
    kind = question.label_kind
    difference = (
        headline.value - headline.previous_value
        if headline.value is not None and headline.previous_value is not None
        else None
    )
    panel = QuestionPanel(
        question=question,
        headline=headline,
        sparkline=_sparkline(history, headline),
        difference=difference,
        supports_review=kind.supports(Feature.REVIEW),
        supports_adjudication=kind.supports(Feature.ADJUDICATION),
        review_open=review_open,
        review_rule=review_rule,
        adjudicated=adjudicated,
    )
    per_category = stored.get("per_category")
    panel.categories = _weakest_categories(per_category, LabelText.for_question(question))
    if isinstance(per_category, Mapping):
        panel.category_method = per_category.get("method")
    panel.pair_coefficient = stored.get("pair_coefficient")
    coder_base = reverse("pages:coder-detail", args=[study.pk, 0]).removesuffix("0/")
    panel.coders = [
        Weak(coder, value, f"{coder_base}{coder_pks[coder]}/" if coder in coder_pks else None)
        for coder, value in _weakest_coders(stored.get("per_coder"))
    ]
    panel.items = _weakest_items(stored.get("disputed"))
    round_id = headline.round_id
    if round_id is not None:
        args = [study.pk, round_id, question.pk]
        panel.round_report_url = (
            reverse("pages:round-report", args=[study.pk, round_id]) + f"?question={question.pk}"
        )
        if panel.supports_review:
            panel.review_url = reverse("pages:review-queue", args=args)
        if panel.supports_adjudication:
            panel.adjudication_url = reverse("pages:adjudication", args=args)
    gap = lowest_coder(stored.get("per_coder") or {})
    can_plan = kind.supports(Feature.PLANNING) and bool(kind.plan_model)
    state = QuestionState(
        question_key=question.key,
        round_name=headline.round_name,
        computed=round_id is not None,
        stale=bool(headline.stale),
        stale_changes=headline.stale_changes,
        computation_id=headline.computation_id,
        review_open=review_open if panel.supports_review else 0,
        lowest_coder=gap,
        pair_coefficient=coefficient_name(panel.pair_coefficient or "")
        if panel.pair_coefficient
        else "pairwise",
        planned=planned,
        can_plan=can_plan,
        compute_url=reverse("pages:study-detail", args=[study.pk]) + "#compute-heading",
        review_url=panel.review_url,
        coder_url=f"{coder_base}{coder_pks[gap.coder]}/"
        if gap is not None and gap.coder in coder_pks
        else None,
        plan_url=reverse("pages:plans", args=[study.pk])
        + f"?question={question.pk}&pilot={round_id}"
        if can_plan and round_id is not None
        else None,
        report_url=reverse("pages:round-reliability", args=[study.pk, round_id])
        if round_id is not None
        else None,
    )
    panel.next_step = next_step(state, retrain_gap=retrain_gap())
    return panel
