"""Model coders on the pages: the round report's section and the model page.

Everything shown was stored by a worker (``results["model_coders"]``, see
``computations/model_coders.py``); this module only reads it and words it for a team lead
who has not read the paper: whether the model passes the alternative annotator test against
the study's people, why not, and what its labels say about each category's share.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models.fields.json import KeyTransform
from django.urls import reverse

from computations.models import Computation
from computations.selectors import model_history
from pages import charts
from pages.selectors import CoefficientHistory, Point, Series
from studies.kinds import Feature
from studies.models import Coder, Question, Round, Study

# -- wording -----------------------------------------------------------------------------------


def short(value: float | None) -> str:
    """A figure in a sentence: up to three significant decimals, no trailing zeros."""
    if value is None:
        return "—"
    return format(round(float(value), 3), "g")


def model_label(entry: Mapping[str, Any]) -> str:
    """``llm (gpt-4o, prompt v2)``: the coder key, with the model's name and prompt version."""
    details = [str(entry.get("model_name") or "")]
    if entry.get("prompt_version"):
        details.append(f"prompt {entry['prompt_version']}")
    inside = ", ".join(d for d in details if d)
    return f"{entry.get('key')} ({inside})" if inside else str(entry.get("key"))


def verdict(entry: Mapping[str, Any]) -> str:
    """The alternative annotator test in one sentence: pass, fail and why, or why it did not
    run."""
    test = entry.get("alt_test") or {}
    name = model_label(entry)
    if "refused" in test:
        return f"The alternative annotator test of model {name} did not run: {test['refused']}"
    n = int(test.get("n_humans") or 0)
    coders = f"your {n} coder{'s' if n != 1 else ''}"
    figures = f"winning rate {short(test.get('winning_rate'))}, ε = {short(test.get('epsilon'))}"
    if test.get("passed"):
        return f"Model {name} passes the alternative annotator test against {coders} ({figures})."
    wins = sum(1 for human in test.get("humans") or [] if human.get("rejected"))
    return (
        f"Model {name} does not pass the alternative annotator test against {coders} "
        f"({figures}): it is shown to be at least as good as {wins} of them, up to ε, and "
        "needs at least half."
    )


def advantage_text(entry: Mapping[str, Any]) -> str | None:
    """What the advantage probability means, with its value."""
    test = entry.get("alt_test") or {}
    value = test.get("advantage_probability")
    if value is None:
        return None
    return (
        f"Advantage probability {short(value)}: averaged over your coders, on "
        f"{round(100 * float(value))}% of the items the model agreed with the other coders at "
        "least as well as the coder it would replace. It ranks models and prompts (higher is "
        "better), pass or not."
    )


def self_consistency_text(entry: Mapping[str, Any]) -> str | None:
    """The model's self-consistency in one sentence, or why there is none."""
    stored = entry.get("self_consistency")
    if not isinstance(stored, Mapping):
        return None
    runs = ", ".join(str(run) for run in stored.get("runs") or [])
    if "refused" in stored:
        return f"No self-consistency: {stored['refused']}"
    if stored.get("alpha") is None:
        return f"Self-consistency of runs {runs} is undefined: {stored.get('note') or ''}".strip()
    ci = stored.get("ci")
    level = stored.get("confidence")
    interval = (
        f", {round(100 * float(level))}% interval [{short(ci[0])}, {short(ci[1])}]"
        if ci and level is not None
        else ""
    )
    return (
        f"Self-consistency of runs {runs}: Krippendorff's alpha {short(stored['alpha'])}"
        f"{interval}, on {int(stored.get('n_items') or 0)} items labelled by at least two runs; "
        f"every run gave the same label on {round(100 * float(stored.get('identical') or 0))}% "
        "of them."
    )


def calibration_text(entry: Mapping[str, Any]) -> str | None:
    """The model's calibration in one sentence, or why there is none (None when it gave no
    confidence)."""
    stored = entry.get("calibration")
    if not isinstance(stored, Mapping):
        return None
    if "refused" in stored:
        return f"No calibration: {stored['refused']}"
    accuracy, confidence = stored.get("accuracy"), stored.get("mean_confidence")
    lean = ""
    # Sums of confidences carry rounding errors: 0.75 and 0.7500000000000001 are even.
    if accuracy is not None and confidence is not None and abs(accuracy - confidence) > 1e-9:
        lean = (
            " The model is over-confident on the whole: its mean confidence is above its accuracy."
            if confidence > accuracy
            else " The model is under-confident on the whole: its mean confidence is below "
            "its accuracy."
        )
    left_out = int(stored.get("n_without_reference") or 0)
    sources = ""
    if "n_adjudicated" in stored:  # results stored before adjudications counted have none
        adjudicated = int(stored.get("n_adjudicated") or 0)
        sources = (
            f" ({adjudicated} item{'s' if adjudicated != 1 else ''} adjudicated, "
            f"{int(stored.get('n_majority') or 0)} by the people's majority)"
        )
    return (
        f"Expected calibration error {short(stored.get('ece'))} over {int(stored.get('n') or 0)} "
        f"labels with a confidence ({int(stored.get('n_bins') or 0)} equal-mass bins), against "
        f"{stored.get('reference')}{sources}: mean confidence {short(confidence)}, accuracy "
        f"{short(accuracy)}.{lean}"
        + (
            f" {left_out} label{'s' if left_out != 1 else ''} with a confidence had no "
            f"reference and {'are' if left_out != 1 else 'is'} left out."
            if left_out
            else ""
        )
    )


def calibration_chart(entry: Mapping[str, Any], *, chart_id: str) -> Any:
    """The reliability diagram of the model's stored calibration bins, or None."""
    stored = entry.get("calibration")
    if not isinstance(stored, Mapping) or not stored.get("bins"):
        return None
    bins = [
        (float(b["mean_confidence"]), float(b["accuracy"]), int(b["count"])) for b in stored["bins"]
    ]
    return charts.reliability_diagram(
        bins,
        chart_id=chart_id,
        desc=f"Model {entry.get('key')}: each dot is a bin of labels of about equal size, at "
        "its mean confidence and the share of its labels that match the reference; on the "
        "dashed diagonal confidence equals accuracy, below it the model is over-confident. "
        "The table beside the diagram lists the same numbers.",
    )


def position_bias_text(entry: Mapping[str, Any]) -> str | None:
    """The model's position bias on pairwise preferences in one sentence."""
    stored = entry.get("position_bias")
    if not isinstance(stored, Mapping):
        return None
    n = int(stored.get("n") or 0)
    if n == 0 or stored.get("share_first") is None:
        return (
            f"No position bias for model {entry.get('key')}: none of its choices is both a "
            "preference (not a tie) and says which option was shown first."
        )
    share = float(stored["share_first"])
    return (
        f"Model {entry.get('key')} picked the option shown first in {round(share * n)} of its "
        f"{n} non-tie choices (share {short(share)}; exact binomial test against one half, "
        f"p = {format(float(stored['p']), '.3g')})."
    )


# -- the round report's section -----------------------------------------------------------------


@dataclass(frozen=True)
class GroupRow:
    group: str
    title: str
    coefficient: str
    value: float | None
    low: float | None
    high: float | None
    n_coders: int
    n_items: int
    reason: str | None


@dataclass(frozen=True)
class ModelSummary:
    key: str
    name: str
    url: str
    verdict: str
    advantage: str | None
    diagnostics: list[str] = field(default_factory=list)


@dataclass
class ModelCodersSection:
    """The stored model-coder results of one computation, ready for the round report."""

    skipped: str | None = None
    people: list[str] = field(default_factory=list)
    groups: list[GroupRow] = field(default_factory=list)
    distance: str = ""
    confidence: float | None = None
    models: list[ModelSummary] = field(default_factory=list)


GROUP_TITLES = {
    "people": "Among people",
    "models": "Among models",
    "between": "Between people and models",
}
GROUP_COEFFICIENTS = {
    "alpha": "Krippendorff's alpha",
    "between_groups_kappa": "Vanbelle & Albert's κ between groups",
}


def _computed_diagnostics(entry: Mapping[str, Any]) -> list[str]:
    """The self-consistency and calibration sentences of what was computed (why one is
    missing is the model page's)."""
    out = []
    for name, words in (
        ("self_consistency", self_consistency_text),
        ("calibration", calibration_text),
    ):
        stored = entry.get(name)
        sentence = words(entry)
        if isinstance(stored, Mapping) and "refused" not in stored and sentence is not None:
            out.append(sentence)
    return out


def model_coders_section(
    *, study: Study, results: Mapping[str, Any] | None
) -> ModelCodersSection | None:
    """The round report's model-coder section, or None when the computation had no model
    coder."""
    stored = (results or {}).get("model_coders")
    if not stored:
        return None
    if "skipped" in stored:
        return ModelCodersSection(skipped=str(stored["skipped"]))
    groups = stored.get("groups") or {}
    rows = []
    for group in ("people", "models", "between"):
        entry = groups.get(group) or {}
        ci = entry.get("ci") or [None, None]
        rows.append(
            GroupRow(
                group=group,
                title=GROUP_TITLES[group],
                coefficient=GROUP_COEFFICIENTS.get(entry.get("coefficient", ""), ""),
                value=entry.get("value"),
                low=ci[0],
                high=ci[1],
                n_coders=int(entry.get("n_coders") or 0),
                n_items=int(entry.get("n_items") or 0),
                reason=entry.get("reason") or entry.get("note"),
            )
        )
    models = [
        ModelSummary(
            key=str(entry.get("key")),
            name=model_label(entry),
            url=reverse("pages:model-detail", args=[study.pk, entry["coder"]]),
            verdict=verdict(entry),
            advantage=advantage_text(entry),
            # Only what was computed: why a diagnostic is missing is the model page's.
            diagnostics=_computed_diagnostics(entry),
        )
        for entry in stored.get("per_model") or []
    ]
    return ModelCodersSection(
        people=list(stored.get("people") or []),
        groups=rows,
        distance=str(groups.get("distance") or ""),
        confidence=(stored.get("settings") or {}).get("confidence"),
        models=models,
    )


# -- the model page ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PersonRow:
    coder: str
    n_items: int
    advantage: float | None
    person_advantage: float | None
    p_value: float | None
    rejected: bool


@dataclass(frozen=True)
class EstimateRow:
    label: str
    estimate: float | None
    low: float | None
    high: float | None
    classical: float | None
    classical_low: float | None
    classical_high: float | None
    naive: float | None
    lam: float | None


@dataclass
class ModelQuestion:
    """One question's results of a model: the latest round's in detail, and the history."""

    question: Question
    round_name: str | None = None
    verdict: str | None = None
    advantage: str | None = None
    people: list[PersonRow] = field(default_factory=list)
    excluded: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    estimates: list[EstimateRow] = field(default_factory=list)
    estimates_what: str = "prevalence"
    estimates_refused: str | None = None
    n_labelled: int | None = None
    n_unlabelled: int | None = None
    confidence: float | None = None
    history: list[dict[str, Any]] = field(default_factory=list)
    chart: Any = None
    #: The chart's legend, an HTML list under it (the chart draws none).
    chart_legend: list[charts.LegendEntry] = field(default_factory=list)
    refusal: str | None = None
    self_consistency: str | None = None
    position_bias: str | None = None
    calibration: str | None = None
    calibration_bins: list[dict[str, Any]] = field(default_factory=list)
    calibration_chart: Any = None


def _latest_entry(computation_id: int, coder_id: int) -> Mapping[str, Any] | None:
    stored: dict[str, Any] = (
        Computation.objects.filter(pk=computation_id)
        .annotate(models=KeyTransform("model_coders", "results"))
        .values_list("models", flat=True)
        .first()
    ) or {}
    for entry in stored.get("per_model") or []:
        if entry.get("coder") == coder_id:
            return dict(entry, settings=stored.get("settings") or {})
    return None


def _question_detail(
    question: Question, coder: Coder, points: Sequence[dict[str, Any]]
) -> ModelQuestion:
    detail = ModelQuestion(question=question, history=list(points))
    if not question.label_kind.supports(Feature.MODELS):
        try:
            question.label_kind.require(Feature.MODELS)
        except ValueError as refusal:
            detail.refusal = str(refusal)
    if not points:
        return detail
    latest = points[-1]
    entry = _latest_entry(int(latest["computation"]), coder.pk)
    if entry is None:
        return detail
    detail.round_name = str(latest["round_name"])
    detail.self_consistency = self_consistency_text(entry)
    detail.position_bias = position_bias_text(entry)
    detail.calibration = calibration_text(entry)
    detail.calibration_bins = list((entry.get("calibration") or {}).get("bins") or [])
    detail.calibration_chart = calibration_chart(
        entry, chart_id=f"model-q{question.pk}-calibration"
    )
    if detail.refusal:
        return detail
    detail.verdict = verdict(entry)
    detail.advantage = advantage_text(entry)
    test = entry.get("alt_test") or {}
    detail.people = [
        PersonRow(
            coder=str(row.get("coder")),
            n_items=int(row.get("n_items") or 0),
            advantage=row.get("advantage_probability"),
            person_advantage=row.get("human_advantage_probability"),
            p_value=row.get("p_value"),
            rejected=bool(row.get("rejected")),
        )
        for row in test.get("humans") or []
    ]
    detail.excluded = dict(test.get("excluded_humans") or {})
    detail.notes = list(test.get("notes") or [])
    ppi = entry.get("ppi") or {}
    if "refused" in ppi:
        detail.estimates_refused = str(ppi["refused"])
    else:
        detail.estimates_what = str(ppi.get("what") or "prevalence")
        detail.n_labelled = ppi.get("n_labelled")
        detail.n_unlabelled = ppi.get("n_unlabelled")
        detail.confidence = ppi.get("confidence")
        for row in ppi.get("estimates") or []:
            ci = row.get("ci") or [None, None]
            classical = row.get("classical_ci") or [None, None]
            detail.estimates.append(
                EstimateRow(
                    label=str(row.get("label")),
                    estimate=row.get("estimate"),
                    low=ci[0],
                    high=ci[1],
                    classical=row.get("classical_estimate"),
                    classical_low=classical[0],
                    classical_high=classical[1],
                    naive=row.get("naive"),
                    lam=row.get("lambda"),
                )
            )
    return detail


def _advantage_chart(
    detail: ModelQuestion, coder: Coder, rounds: Sequence[Round], *, chart_id: str
) -> tuple[Any, list[charts.LegendEntry]]:
    """The advantage probability across rounds, and its legend (listed under the chart,
    which never overlaps it however many rounds)."""
    by_round = {point["round_name"]: point for point in detail.history}
    points = [
        Point(
            r.name,
            (by_round.get(r.name) or {}).get("advantage_probability"),
            None,
            None,
        )
        for r in rounds
    ]
    history = CoefficientHistory(
        coefficient="advantage_probability",
        name="Advantage probability",
        rounds=[r.name for r in rounds],
        series=[Series(coder.key, points)],
        bands=False,
    )
    svg = charts.history_chart(
        history,
        chart_id=chart_id,
        legend=False,
        desc=f"The advantage probability of model {coder.key} on question "
        f"{detail.question.key} in each round; the table beside the chart lists the same "
        "numbers with each round's prompt version.",
    )
    return svg, charts.legend_of([history])


def model_page(*, study: Study, coder: Coder) -> list[ModelQuestion]:
    """Per question: the model's latest stored result in detail, and its history."""
    history = model_history(study=study, coder_id=coder.pk)
    series: dict[int, list[dict[str, Any]]] = {}
    for entry in history["questions"]:
        for model in entry["models"]:
            series[entry["question"]] = list(model["rounds"])
    rounds = list(Round.objects.filter(study=study).order_by("position"))
    out = []
    for question in Question.objects.filter(study=study).order_by("position", "id"):
        detail = _question_detail(question, coder, series.get(question.pk, []))
        if any(point.get("advantage_probability") is not None for point in detail.history):
            detail.chart, detail.chart_legend = _advantage_chart(
                detail, coder, rounds, chart_id=f"model-q{question.pk}"
            )
        out.append(detail)
    return out
