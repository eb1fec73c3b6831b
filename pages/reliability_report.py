"""The reliability report of a round, or of a study across its rounds, by the GRRAS checklist.

Kottner et al. (2011), *Guidelines for Reporting Reliability and Agreement Studies (GRRAS)
were proposed*, J Clin Epidemiol 64(1):96–106, list 15 items a reliability study reports
(``GRRAS`` below; docs/reliability-report.md). The server knows some of them from what the
workers stored (the numbers of coders, items and annotations, the coefficients with their
intervals, how they were computed); the study records the others
(``studies.models.GRRAS_STUDY_FIELDS``: populations, sampling, blinding, independence,
training, how the sample size was chosen). An item neither gives is named as missing, with
where to record it.

Every number comes from a stored computation (``Computation.results``, its
``metrics_version`` and ``fingerprint``), read with one query; nothing here computes. The
report is one :class:`ReliabilityReport`; ``report_json``, ``report_markdown`` and
``report_latex`` write it, and ``templates/pages/reliability_report.html`` shows it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models.fields.json import KeyTransform
from django.urls import reverse

from computations import engine
from computations.comparison import headline_coefficient
from computations.models import Computation, ComputationScope, ComputationStatus
from computations.selectors import Staleness, adjudications_now, rounds_staleness, tables_now
from metrics import BENCHMARK_SCALE_NAMES, Reading
from pages.number_text import number_text
from pages.selectors import coefficient_name, reading_of
from studies.models import GRRAS_STUDY_FIELDS, Category, Question, Round, Study

CITATION = (
    "Kottner J, Audigé L, Brorson S, Donner A, Gajewski BJ, Hróbjartsson A, Roberts C, "
    "Shoukri M, Streiner DL. Guidelines for Reporting Reliability and Agreement Studies "
    "(GRRAS) were proposed. J Clin Epidemiol. 2011;64(1):96–106. "
    "doi:10.1016/j.jclinepi.2010.03.002"
)

#: How many of a question's categories the instrument's description lists by code.
CATEGORIES_LISTED = 12


@dataclass(frozen=True)
class GrrasItem:
    """One item of the checklist: its number, section and what it asks."""

    number: int
    section: str
    asks: str


#: The 15 items of Kottner et al. (2011), Table 1, in their order.
GRRAS: tuple[GrrasItem, ...] = (
    GrrasItem(
        1,
        "Title and abstract",
        "Identify in title or abstract that interrater/intrarater reliability or agreement "
        "was investigated.",
    ),
    GrrasItem(
        2, "Introduction", "Name and describe the diagnostic or measurement device of interest."
    ),
    GrrasItem(3, "Introduction", "Specify the subject population of interest."),
    GrrasItem(4, "Introduction", "Specify the rater population of interest (if applicable)."),
    GrrasItem(
        5,
        "Introduction",
        "Describe what is already known about reliability and agreement and give a rationale "
        "for the study (if applicable).",
    ),
    GrrasItem(
        6,
        "Methods",
        "Explain how the sample size was chosen; state the determined number of raters, "
        "subjects/objects and replicate observations.",
    ),
    GrrasItem(7, "Methods", "Describe the sampling method."),
    GrrasItem(
        8,
        "Methods",
        "Describe the measurement/rating process (time interval between repeated "
        "measurements, availability of information, blinding).",
    ),
    GrrasItem(9, "Methods", "State whether measurements/ratings were made independently."),
    GrrasItem(10, "Methods", "Describe the statistical analysis."),
    GrrasItem(
        11,
        "Results",
        "State the actual number of raters and subjects/objects included and the number of "
        "replicate observations made.",
    ),
    GrrasItem(
        12,
        "Results",
        "Describe the sample characteristics of raters and subjects (training, experience).",
    ),
    GrrasItem(
        13,
        "Results",
        "Report estimates of reliability and agreement with measures of statistical uncertainty.",
    ),
    GrrasItem(14, "Discussion", "Discuss the practical relevance of the results."),
    GrrasItem(15, "Auxiliary material", "Provide detailed results if possible (e.g. online)."),
)

#: The study field that answers an item, by item number (the inverse of GRRAS_STUDY_FIELDS).
FIELD_OF_ITEM: dict[int, str] = {number: name for name, number in GRRAS_STUDY_FIELDS.items()}
#: How each study field is named where the report says it is missing.
FIELD_TITLES: dict[str, str] = {
    "subject_population": "the subject population",
    "rater_population": "the rater population",
    "background": "the background and rationale",
    "sample_size_rationale": "how the sample size was chosen",
    "sampling": "the sampling",
    "blinding": "the rating process and blinding",
    "independence": "whether the coders labelled independently",
    "rater_training": "the coders' training and experience",
    "practical_relevance": "the practical relevance",
}
#: Coefficients whose name is a common noun: lower case inside a sentence.
COMMON_NAMES = frozenset(
    {"observed_agreement", "kappa_w", "token_alpha", "token_kappa", "span_f1", "span_f1_overlap"}
)
#: How distances are named in text (the others by their key).
DISTANCE_TITLES = {"masi": "MASI", "jaccard": "Jaccard"}
#: How interval methods are named in text.
INTERVAL_METHODS = {"bca": "BCa", "percentile": "percentile", "basic": "basic"}


# -- the stored results ---------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """One stored coefficient with its interval."""

    coefficient: str
    name: str
    #: The name inside a sentence ("observed agreement", "Krippendorff's alpha").
    in_sentence: str
    value: float | None
    low: float | None
    high: float | None
    confidence: float | None
    method: str | None
    replicates: int | None
    #: The value read on its one benchmark scale (``metrics.read_coefficient``).
    reading: Reading

    @property
    def band_text(self) -> str:
        """ "tentative on Krippendorff's scale", or "no benchmark scale"."""
        reading = self.reading
        if reading.scale is None:
            return "no benchmark scale"
        if reading.band is None:
            return f"on {reading.rule.scale_name}'s scale"
        return f"{reading.band} on {reading.rule.scale_name}'s scale"

    @property
    def interval_text(self) -> str:
        """ "95 % BCa interval 0.381 to 1.000", or "no interval"."""
        if self.low is None or self.high is None:
            return "no interval"
        return (
            f"{confidence_text(self.confidence)} {method_text(self.method)} interval "
            f"{number_text(self.low)} to {number_text(self.high)}"
        )


@dataclass(frozen=True)
class StoredResult:
    """The latest done one-round computation of a question in a round: what the report
    reads of it."""

    question: Question
    round: Round
    computation_id: int
    finished_at: datetime | None
    metrics_version: str
    fingerprint: str
    n_items: int | None
    n_coders: int | None
    n_annotations: int | None
    n_pairable_items: int | None
    level: str | None
    distance: str | None
    replicates: int | None
    seed: int | None
    estimates: list[Estimate]
    headline: str | None
    #: What changed after the result (its annotations, the distance table it used, the
    #: adjudications its calibration read).
    staleness: Staleness
    skipped: dict[str, str] = field(default_factory=dict)

    @property
    def stale(self) -> bool:
        return bool(self.staleness)

    @property
    def headline_estimate(self) -> Estimate | None:
        return next((e for e in self.estimates if e.coefficient == self.headline), None)

    @property
    def observed(self) -> Estimate | None:
        """Observed agreement, when stored (GRRAS's "agreement" beside "reliability")."""
        if self.headline == "observed_agreement":
            return None
        return next((e for e in self.estimates if e.coefficient == "observed_agreement"), None)


def _in_sentence(key: str) -> str:
    name = coefficient_name(key)
    return name[:1].lower() + name[1:] if key in COMMON_NAMES else name


def confidence_text(confidence: float | None) -> str:
    return "—" if confidence is None else f"{100 * float(confidence):g} %"


def method_text(method: str | None) -> str:
    return INTERVAL_METHODS.get(method or "", method or "bootstrap")


def _estimates(
    coefficients: Mapping[str, Any] | None, *, distance: str | None, chosen: str | None
) -> list[Estimate]:
    """The stored coefficients in the report's order (PostgreSQL's jsonb keeps no order)."""
    out = []
    stored = coefficients or {}
    known = (*engine.ALL_COEFFICIENTS, *engine.SPAN_COEFFICIENTS)
    order = [k for k in known if k in stored] + sorted(k for k in stored if k not in known)
    for key in order:
        entry = stored[key]
        ci = entry.get("ci") or {}
        confidence = ci.get("confidence", ci.get("level"))
        out.append(
            Estimate(
                coefficient=key,
                name=coefficient_name(key),
                in_sentence=_in_sentence(key),
                value=entry.get("value"),
                low=ci.get("low"),
                high=ci.get("high"),
                confidence=None if confidence is None else float(confidence),
                method=ci.get("method"),
                replicates=ci.get("replicates"),
                reading=reading_of(key, entry, distance=distance, chosen=chosen),
            )
        )
    return out


#: The keys of the stored results the report reads (never the diagnostics: a crowd round's
#: run to megabytes).
_RESULT_KEYS = (
    "coefficients",
    "n_items",
    "n_coders",
    "n_pairable_items",
    "level",
    "distance",
    "bootstrap",
    "skipped",
)


def stored_results(
    *, study: Study, questions: Sequence[Question], rounds: Sequence[Round]
) -> list[StoredResult]:
    """The latest done one-round computation of each question in each of ``rounds``, in
    round then question order: one query for the computations (only the keys the report
    reads), then the staleness check per question (grouped over its rounds)."""
    by_round = {r.pk: r for r in rounds}
    by_question = {q.pk: q for q in questions}
    rows = (
        Computation.objects.filter(
            study=study,
            question_id__in=list(by_question),
            rounds__in=list(by_round),
            status=ComputationStatus.DONE,
            scope=ComputationScope.ROUND,
        )
        .order_by("finished_at", "id")
        .annotate(**{f"r_{key}": KeyTransform(key, "results") for key in _RESULT_KEYS})
        .values(
            "id",
            "question_id",
            "rounds__id",
            "finished_at",
            "metrics_version",
            "fingerprint",
            "n_annotations",
            "data_revision",
            "distance_table_fingerprint",
            "adjudications_fingerprint",
            *(f"r_{key}" for key in _RESULT_KEYS),
        )
    )
    latest: dict[tuple[int, int], dict[str, Any]] = {}
    for row in rows:  # later rows win: the latest finished
        latest[(row["question_id"], row["rounds__id"])] = row
    tables = tables_now((q, row["distance_table_fingerprint"]) for (q, _), row in latest.items())
    adjudicated = adjudications_now(
        (key, row["adjudications_fingerprint"]) for key, row in latest.items()
    )
    stale: dict[int, dict[int, Staleness]] = {}
    for question_id in by_question:
        rows_of = {round_id: row for (q, round_id), row in latest.items() if q == question_id}
        stale[question_id] = (
            rounds_staleness(
                question_id=question_id,
                revisions={
                    r: (row["data_revision"], row["n_annotations"]) for r, row in rows_of.items()
                },
                tables_used={r: row["distance_table_fingerprint"] for r, row in rows_of.items()},
                table_now=tables.get(question_id),
                adjudications_used={
                    r: row["adjudications_fingerprint"] for r, row in rows_of.items()
                },
                adjudications=adjudicated,
            )
            if rows_of
            else {}
        )
    out = []
    for round_ in rounds:
        for question in questions:
            row = latest.get((question.pk, round_.pk))
            if row is None:
                continue
            estimates = _estimates(
                row["r_coefficients"],
                distance=row["r_distance"],
                chosen=study.benchmark_scale or None,
            )
            bootstrap = row["r_bootstrap"] or {}
            out.append(
                StoredResult(
                    question=question,
                    round=round_,
                    computation_id=row["id"],
                    finished_at=row["finished_at"],
                    metrics_version=row["metrics_version"],
                    fingerprint=row["fingerprint"],
                    n_items=row["r_n_items"],
                    n_coders=row["r_n_coders"],
                    n_annotations=row["n_annotations"],
                    n_pairable_items=row["r_n_pairable_items"],
                    level=row["r_level"],
                    distance=row["r_distance"],
                    replicates=bootstrap.get("replicates"),
                    seed=bootstrap.get("seed"),
                    estimates=estimates,
                    headline=headline_coefficient([e.coefficient for e in estimates]),
                    staleness=stale[question.pk].get(round_.pk) or Staleness(),
                    skipped=dict(row["r_skipped"] or {}),
                )
            )
    return out


# -- the report -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ReportItem:
    """What the report says for one GRRAS item, or that it is missing and where to add it."""

    item: GrrasItem
    text: str
    missing: str | None = None

    @property
    def status(self) -> str:
        return "missing" if self.missing else "reported"


@dataclass
class ReliabilityReport:
    study: Study
    #: The round reported on; None for the whole study across its rounds.
    round: Round | None
    title: str
    items: list[ReportItem]
    results: list[StoredResult]
    #: Questions without a stored result in the rounds reported on (by key).
    without_result: list[str]
    methods: str
    findings: str
    #: Links to the detailed results (GRRAS 15), relative to the site: (label, URL).
    downloads: list[tuple[str, str]] = field(default_factory=list)

    @property
    def missing(self) -> list[ReportItem]:
        return [item for item in self.items if item.missing]


def _join(words: Sequence[str], separator: str = ", ") -> str:
    """ "a", "a and b", "a, b and c" (or "a; b and c")."""
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return f"{separator.join(words[:-1])} and {words[-1]}"


def _sentence(text: str) -> str:
    """A recorded text as a sentence: stripped, ending with a full stop."""
    text = " ".join(str(text).split())
    return text if not text or text[-1] in ".!?" else f"{text}."


def _plural(n: int | None, one: str, many: str | None = None) -> str:
    if n is None:
        return f"an unknown number of {many or one + 's'}"
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _instrument(
    study: Study, questions: Sequence[Question], categories: Mapping[int, list[str]]
) -> str:
    """GRRAS 2: each question with its kind, categories and wording."""
    parts = []
    for question in questions:
        text = f"{question.key} (kind: {question.label_kind.title.lower()}"
        codes = categories.get(question.pk) or []
        if codes:
            listed = ", ".join(codes[:CATEGORIES_LISTED])
            more = len(codes) - CATEGORIES_LISTED
            text += f"; categories: {listed}" + (f" and {more} more" if more > 0 else "")
        text += ")"
        if question.text.strip():
            text += f", worded “{' '.join(question.text.split())}”"
        parts.append(text)
    if not parts:
        return ""
    questions_text = "one question" if len(parts) == 1 else f"{len(parts)} questions"
    return f"The study “{study.name}” asks {questions_text}: {'; '.join(parts)}."


def _analysis(results: Sequence[StoredResult], chosen: str | None) -> str:
    """GRRAS 10, from the stored results: coefficients, level, intervals, software."""
    sentences = []
    by_question: dict[int, list[StoredResult]] = defaultdict(list)
    for result in results:
        by_question[result.question.pk].append(result)
    for group in by_question.values():
        first = group[-1]
        names = [e.in_sentence for e in first.estimates]
        # Names that hold a comma ("span F1, exact match") are listed with semicolons.
        listed = _join(names, "; " if any("," in n for n in names) else ", ")
        how = [f"{first.level} level" if first.level else first.question.label_kind.title.lower()]
        if first.distance and first.distance != first.level:
            how.append(f"{DISTANCE_TITLES.get(first.distance, first.distance)} distance")
        sentences.append(
            f"For question {first.question.key} ({', '.join(how)}), agreement was estimated "
            f"with {listed}."
        )
    with_interval = [e for r in results for e in r.estimates if e.low is not None]
    if with_interval:
        one = with_interval[0]
        replicates = sorted({r.replicates for r in results if r.replicates is not None})
        seeds = sorted({r.seed for r in results if r.seed is not None})
        sentences.append(
            f"Intervals are {confidence_text(one.confidence)} {method_text(one.method)} "
            f"bootstrap intervals over items ("
            f"{' or '.join(str(n) for n in replicates) or 'an unknown number of'} replicates"
            + (f", seed {', '.join(str(s) for s in seeds)}" if seeds else "")
            + ")."
        )
    if chosen:
        name = BENCHMARK_SCALE_NAMES.get(chosen, chosen)
        sentences.append(
            f"Each chance-corrected coefficient is read on {name}'s benchmark scale, chosen for "
            "this study; observed agreement, which is not chance-corrected, on none."
        )
    else:
        sentences.append(
            "Each coefficient is read on at most one benchmark scale: Krippendorff's (2004) "
            "for alpha with the nominal distance, Landis and Koch's (1977) for the unweighted "
            "kappa family, none for observed agreement and for weighted or distance-based "
            "coefficients; the probability of each band comes from the bootstrap replicates "
            "(Gwet 2014)."
        )
    sentences.append(
        "Missing labels are left missing: each coefficient uses every pair of labels given "
        "to the same item, and an item labelled by one coder only does not count as pairable."
    )
    versions = sorted({r.metrics_version for r in results if r.metrics_version})
    if versions:
        sentences.append(
            f"Computed by the agreement server (metrics library {', '.join(versions)}); each "
            "result names its computation and the SHA-256 fingerprint of the annotations it read."
        )
    return " ".join(sentences)


def _counts(results: Sequence[StoredResult]) -> str:
    """GRRAS 11: per round and question, coders, items, annotations, pairable items."""
    sentences = []
    for r in results:
        pairable = (
            f"; {_plural(r.n_pairable_items, 'item')} labelled by two coders or more"
            if r.n_pairable_items is not None
            else ""
        )
        sentences.append(
            f"In round {r.round.name}, question {r.question.key}: "
            f"{_plural(r.n_coders, 'coder')} labelled {_plural(r.n_items, 'item')} "
            f"({_plural(r.n_annotations, 'annotation')}{pairable})."
        )
    return " ".join(sentences)


def estimate_text(estimate: Estimate) -> str:
    """ "Krippendorff's alpha 0.743 (95 % BCa interval 0.381 to 1.000; tentative on
    Krippendorff's scale)"; a coefficient read on no scale says nothing of scales."""
    reading = f"; {estimate.band_text}" if estimate.reading.scale is not None else ""
    return (
        f"{estimate.in_sentence} {number_text(estimate.value)} ({estimate.interval_text}{reading})"
    )


def _estimates_text(results: Sequence[StoredResult]) -> str:
    """GRRAS 13 in a sentence per result: the headline coefficient and observed agreement."""
    sentences = []
    for r in results:
        headline = r.headline_estimate
        if headline is None:
            continue
        text = f"Round {r.round.name}, question {r.question.key}: {estimate_text(headline)}"
        if r.observed is not None:
            text += f"; {estimate_text(r.observed)}"
        text += "."
        if r.stale:
            reason = r.staleness.reason or ""
            text += f" ({reason[:1].upper()}{reason[1:]}: request it again.)"
        sentences.append(text)
    return " ".join(sentences)


def _field_item(study: Study, item: GrrasItem) -> ReportItem:
    name = FIELD_OF_ITEM[item.number]
    text = str(getattr(study, name) or "").strip()
    if text:
        return ReportItem(item, _sentence(text))
    return ReportItem(
        item, "", missing=f"Record {FIELD_TITLES[name]} on the study's reporting form."
    )


#: How the paragraphs introduce each recorded item (the others are whole sentences).
PARAGRAPH_LABELS = {
    3: "Subjects",
    4: "Coders",
    5: "Background",
    6: "Sample size",
    7: "Sampling",
    8: "Rating process",
    9: "Independence",
    12: "Coders' training and experience",
    14: "Practical relevance",
}
METHODS_ITEMS = (2, 3, 4, 6, 7, 8, 9, 10)
RESULTS_ITEMS = (11, 12, 13)


def _paragraph(items: Mapping[int, ReportItem], numbers: Iterable[int]) -> str:
    parts = []
    for number in numbers:
        text = items[number].text
        if not text:
            continue
        label = PARAGRAPH_LABELS.get(number)
        parts.append(f"{label}: {text}" if label else text)
    return " ".join(parts)


def _categories(questions: Sequence[Question]) -> dict[int, list[str]]:
    codes: dict[int, list[str]] = defaultdict(list)
    for question_id, code in (
        Category.objects.filter(question__in=list(questions))
        .order_by("question_id", "position", "id")
        .values_list("question_id", "code")
    ):
        codes[question_id].append(code)
    return codes


def reliability_report(
    *,
    study: Study,
    round_: Round | None,
    urls: Callable[[StoredResult], list[tuple[str, str]]] | None = None,
) -> ReliabilityReport:
    """The report of ``round_`` (every question with a stored result in it), or of the whole
    study across its rounds when ``round_`` is None."""
    questions = list(Question.objects.filter(study=study).order_by("position", "id"))
    rounds = [round_] if round_ is not None else list(round_list_of(study))
    results = stored_results(study=study, questions=questions, rounds=rounds)
    with_result = {r.question.pk for r in results}
    without = [q.key for q in questions if q.pk not in with_result]
    reported_questions = [q for q in questions if q.pk in with_result] or questions
    scope = f"round {round_.name}" if round_ is not None else "all rounds"
    title = f"Interrater reliability and agreement of “{study.name}” ({scope})"
    by_number = {item.number: item for item in GRRAS}
    methods = _analysis(results, study.benchmark_scale or None) if results else ""
    counts = _counts(results)
    findings = _estimates_text(results)
    no_result = "Request a computation of each question in this round on the study page."
    items = [
        ReportItem(by_number[1], title),
        ReportItem(
            by_number[2], _instrument(study, reported_questions, _categories(reported_questions))
        )
        if reported_questions
        else ReportItem(by_number[2], "", missing="Add the study's questions."),
        _field_item(study, by_number[3]),
        _field_item(study, by_number[4]),
        _field_item(study, by_number[5]),
        _field_item(study, by_number[6]),
        _field_item(study, by_number[7]),
        _field_item(study, by_number[8]),
        _field_item(study, by_number[9]),
        ReportItem(by_number[10], methods)
        if results
        else ReportItem(by_number[10], "", missing=no_result),
        ReportItem(by_number[11], counts)
        if results
        else ReportItem(by_number[11], "", missing=no_result),
        _field_item(study, by_number[12]),
        ReportItem(by_number[13], findings)
        if findings
        else ReportItem(by_number[13], "", missing=no_result),
        _field_item(study, by_number[14]),
    ]
    downloads = [link for r in results for link in (urls(r) if urls else [])]
    items.append(
        ReportItem(
            by_number[15],
            "Detailed results: the stored results (JSON, CSV), the per-item diagnostics and "
            "the annotations of each question and round are downloadable"
            + (f" ({len(downloads)} files listed below)." if downloads else ".")
            + " This report's JSON holds every number above with its computation.",
        )
        if results
        else ReportItem(by_number[15], "", missing=no_result)
    )
    by_item = {entry.item.number: entry for entry in items}
    return ReliabilityReport(
        study=study,
        round=round_,
        title=title,
        items=items,
        results=results,
        without_result=without,
        methods=_paragraph(by_item, METHODS_ITEMS),
        findings=_paragraph(by_item, RESULTS_ITEMS),
        downloads=downloads,
    )


def round_list_of(study: Study) -> Iterable[Round]:
    return Round.objects.filter(study=study).order_by("position")


def result_downloads(result: StoredResult) -> list[tuple[str, str]]:
    """The downloads of one stored result (GRRAS 15), as site paths."""
    args = [result.round.study_id, result.round.pk, result.question.pk]
    name = f"{result.round.name}, {result.question.key}"
    return [
        (f"{name}: results JSON", reverse("pages:results-download", args=[*args, "json"])),
        (f"{name}: per-item diagnostics CSV", reverse("pages:items-download", args=args)),
        (
            f"{name}: annotations CSV",
            reverse("pages:annotations-download", args=[*args, "long"]),
        ),
    ]


# -- writing it --------------------------------------------------------------------------------


def _ci_json(estimate: Estimate) -> dict[str, Any] | None:
    if estimate.low is None or estimate.high is None:
        return None
    return {
        "low": estimate.low,
        "high": estimate.high,
        "confidence": estimate.confidence,
        "method": estimate.method,
        "replicates": estimate.replicates,
    }


def report_json(report: ReliabilityReport, *, base_url: str = "") -> dict[str, Any]:
    """The report as JSON: the checklist, the paragraphs and every stored number."""
    return {
        "study": {"id": report.study.pk, "name": report.study.name},
        "round": None
        if report.round is None
        else {"id": report.round.pk, "name": report.round.name},
        "title": report.title,
        "guideline": {"name": "GRRAS", "citation": CITATION},
        "items": [
            {
                "item": entry.item.number,
                "section": entry.item.section,
                "asks": entry.item.asks,
                "status": entry.status,
                "text": entry.text,
                "missing": entry.missing,
            }
            for entry in report.items
        ],
        "missing": [entry.item.number for entry in report.missing],
        "methods": report.methods,
        "results_text": report.findings,
        "results": [
            {
                "question": r.question.key,
                "round": r.round.name,
                "computation": r.computation_id,
                "finished_at": r.finished_at.isoformat() if r.finished_at else None,
                "metrics_version": r.metrics_version,
                "fingerprint": r.fingerprint,
                "stale": r.stale,
                "stale_reason": r.staleness.reason,
                "n_items": r.n_items,
                "n_coders": r.n_coders,
                "n_annotations": r.n_annotations,
                "n_pairable_items": r.n_pairable_items,
                "level": r.level,
                "distance": r.distance,
                "headline": r.headline,
                "coefficients": [
                    {
                        "coefficient": e.coefficient,
                        "name": e.name,
                        "value": e.value,
                        "ci": _ci_json(e),
                        "reading": e.reading.as_json(),
                    }
                    for e in r.estimates
                ],
                "skipped": r.skipped,
            }
            for r in report.results
        ],
        "without_result": report.without_result,
        "downloads": [{"name": name, "url": base_url + url} for name, url in report.downloads],
    }


def _markdown_cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def estimate_rows(report: ReliabilityReport) -> list[list[str]]:
    """The estimates table: round, question, coefficient, value, interval, computation."""
    rows = []
    for r in report.results:
        for e in r.estimates:
            interval = (
                "—"
                if e.low is None or e.high is None
                else f"[{number_text(e.low)}, {number_text(e.high)}] "
                f"{confidence_text(e.confidence)} {method_text(e.method)}"
            )
            rows.append(
                [
                    r.round.name,
                    r.question.key,
                    e.name,
                    number_text(e.value),
                    interval,
                    e.band_text,
                    f"#{r.computation_id}" + (f" ({r.staleness.short})" if r.stale else ""),
                ]
            )
    return rows


ESTIMATE_COLUMNS = (
    "Round",
    "Question",
    "Coefficient",
    "Value",
    "Interval",
    "Reading",
    "Computation",
)


def provenance_rows(report: ReliabilityReport) -> list[list[str]]:
    """Per stored result: computation, finished, metrics version, fingerprint."""
    return [
        [
            f"#{r.computation_id}",
            f"{r.round.name}, {r.question.key}",
            r.finished_at.strftime("%Y-%m-%d %H:%M UTC") if r.finished_at else "—",
            r.metrics_version or "—",
            r.fingerprint or "—",
        ]
        for r in report.results
    ]


PROVENANCE_COLUMNS = ("Computation", "Round, question", "Finished", "Metrics", "Fingerprint")


def report_markdown(report: ReliabilityReport, *, base_url: str = "") -> str:
    """The report in Markdown: title, methods and results paragraphs, the estimates, then
    the checklist with each item's text or what is missing."""
    lines = [f"# {report.title}", ""]
    if report.methods:
        lines += ["## Methods", "", report.methods, ""]
    if report.findings:
        lines += ["## Results", "", report.findings, ""]
    if report.results:
        lines += [
            "| " + " | ".join(ESTIMATE_COLUMNS) + " |",
            "|" + "---|" * len(ESTIMATE_COLUMNS),
        ]
        lines += [
            "| " + " | ".join(_markdown_cell(c) for c in row) + " |"
            for row in estimate_rows(report)
        ]
        lines += [
            "",
            "| " + " | ".join(PROVENANCE_COLUMNS) + " |",
            "|" + "---|" * len(PROVENANCE_COLUMNS),
        ]
        lines += [
            "| " + " | ".join(_markdown_cell(c) for c in row) + " |"
            for row in provenance_rows(report)
        ]
        lines.append("")
    if report.without_result:
        lines += [f"No stored result for: {', '.join(report.without_result)}.", ""]
    lines += ["## GRRAS checklist", "", f"By {CITATION}", ""]
    for entry in report.items:
        head = f"{entry.item.number}. **{entry.item.section}**: {entry.item.asks}"
        if entry.missing:
            body = f"**Missing.** {entry.missing}" + (f" {entry.text}" if entry.text else "")
        else:
            body = entry.text
        lines += [head, f"   {_markdown_cell(body)}", ""]
    if report.downloads:
        lines += ["## Detailed results", ""]
        lines += [f"- [{_markdown_cell(name)}]({base_url}{url})" for name, url in report.downloads]
        lines.append("")
    return "\n".join(lines)


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "“": "``",
    "”": "''",
    "α": r"$\alpha$",
    "ᵤ": r"$_u$",
    "ₖ": r"$_k$",
    "γ": r"$\gamma$",
    "κ": r"$\kappa$",
    "π": r"$\pi$",
    "≥": r"$\geq$",
    "≤": r"$\leq$",
    "×": r"$\times$",
    "−": "-",
}
_LATEX_PATTERN = re.compile("|".join(re.escape(c) for c in _LATEX_SPECIAL))


def latex_escape(text: str) -> str:
    """Text safe in a LaTeX paragraph: the ten special characters escaped, the few Greek
    letters and signs of coefficient names as math."""
    return _LATEX_PATTERN.sub(lambda m: _LATEX_SPECIAL[m.group(0)], str(text))


def report_latex(report: ReliabilityReport) -> str:
    """The methods and results paragraphs in LaTeX, the estimates as a ``tabular``, and the
    checklist (each item's text or ``Missing``) as a ``description`` list."""
    out = [f"% {latex_escape(report.title)}", f"% GRRAS: {latex_escape(CITATION)}", ""]
    if report.methods:
        out += [r"\paragraph{Methods.} " + latex_escape(report.methods), ""]
    if report.findings:
        out += [r"\paragraph{Results.} " + latex_escape(report.findings), ""]
    if report.results:
        out += [
            r"\begin{tabular}{lllllll}",
            r"\hline",
            " & ".join(ESTIMATE_COLUMNS) + r" \\",
            r"\hline",
        ]
        out += [
            " & ".join(latex_escape(cell) for cell in row) + r" \\" for row in estimate_rows(report)
        ]
        out += [r"\hline", r"\end{tabular}", ""]
        out += [
            r"\begin{tabular}{lllll}",
            r"\hline",
            " & ".join(PROVENANCE_COLUMNS) + r" \\",
            r"\hline",
        ]
        out += [
            " & ".join(
                (r"\texttt{" + latex_escape(cell) + "}") if index == 4 else latex_escape(cell)
                for index, cell in enumerate(row)
            )
            + r" \\"
            for row in provenance_rows(report)
        ]
        out += [r"\hline", r"\end{tabular}", ""]
    if report.without_result:
        out += [latex_escape(f"No stored result for: {', '.join(report.without_result)}."), ""]
    out += [r"\paragraph{GRRAS checklist.}", r"\begin{description}"]
    for entry in report.items:
        label = latex_escape(f"{entry.item.number}. {entry.item.section}")
        text = latex_escape(entry.text)
        if entry.missing:
            text = (
                r"\textbf{Missing.} " + latex_escape(entry.missing) + (f" {text}" if text else "")
            )
        out.append(rf"\item[{label}] {text}")
    out += [r"\end{description}", ""]
    return "\n".join(out)
