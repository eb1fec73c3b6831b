"""Reads of stored computations: a study's computations, its agreement history round after
round and each coder's drift. Nothing here computes: it reads what the workers stored.

A stored computation is *stale* (``Staleness``) when what it was computed from moved on:
the annotations of its scope (``scope_changed_since``, ``rounds_changed_since``), the
question's distance table it used (``distance=user``), replaced or deleted since, or the
scope's adjudications a model coder's calibration read as reference labels. Every page and
API read asks ``computation_staleness`` or ``rounds_staleness``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Count, Max, QuerySet
from django.db.models.fields.json import KeyTransform

from computations.models import Computation, ComputationScope, ComputationStatus
from computations.scope import (
    rounds_adjudications_fingerprints,
    scope_adjudications_fingerprint,
    scope_data_revision,
)
from studies.distance_tables import distance_table_fingerprints
from studies.kinds import Feature
from studies.models import Annotation, AnnotationChange, Coder, CoderKind, Question, Round, Study

#: Up to this many annotations a page compares the full data revision (count, latest id,
#: latest update, change log); above it, the indexed check of ``scope_changed_since``.
EXACT_STALENESS_MAX = 200_000
_REVISION_PARTS = re.compile(r"(?:^|;)(n|id|upd|log|r)=([0-9.,]*)")


def exact_staleness_max() -> int:
    return int(getattr(settings, "AGREEMENT_EXACT_STALENESS_MAX", EXACT_STALENESS_MAX))


def computation_round_ids(computation: Computation) -> list[int]:
    # Prefetched rounds (a list) are read without a query.
    if "rounds" in getattr(computation, "_prefetched_objects_cache", {}):
        return sorted(r.pk for r in computation.rounds.all())
    return sorted(computation.rounds.values_list("id", flat=True))


def scope_changed_since(
    *, question_id: int, round_ids: Sequence[int], revision: str, n_annotations: int | None
) -> bool:
    """True when the annotations of the scope changed after ``revision`` was taken.

    A scope of at most ``exact_staleness_max()`` annotations recomputes its full data
    revision (``scope_data_revision``: a count and maxima over its annotations). A larger
    one (a crowd round of millions) is checked without reading its annotations: an
    annotation added since (an id above the revision's latest id) or a change logged since
    (a change-log id above the revision's), two lookups on the primary keys' order. Every
    write through the services is logged, so only a direct delete or update in the
    database (not through the services) goes unnoticed there.
    """
    ids = sorted(set(round_ids))
    parts = dict(_REVISION_PARTS.findall(revision or ""))
    small = n_annotations is None or n_annotations <= exact_staleness_max()
    if small or not _has_revision_parts(parts):
        return scope_data_revision(question=question_id, round_ids=ids) != revision
    return _newer_row(Annotation, question_id, ids, int(parts["id"])) or _newer_row(
        AnnotationChange, question_id, ids, int(parts["log"])
    )


def _newer_row(model: Any, question_id: int, round_ids: list[int], after: int) -> bool:
    """Whether the scope holds a row of ``model`` with an id above ``after``, read along
    the primary key from ``after`` on (the rows written since), never along the scope's
    (round, question) index, which would visit every row of a crowd round. PostgreSQL's
    planner picks that by its statistics; SQLite is told (``NOT INDEXED`` leaves it the
    rowid range)."""
    if connection.vendor != "sqlite":
        scope = {"question_id": question_id, "round_id__in": round_ids}
        return bool(model.objects.filter(**scope, id__gt=after).exists())
    marks = ", ".join(["%s"] * len(round_ids))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT 1 FROM {model._meta.db_table} NOT INDEXED WHERE id > %s"
            f" AND question_id = %s AND round_id IN ({marks}) LIMIT 1",
            [after, question_id, *round_ids],
        )
        return cursor.fetchone() is not None


def _has_revision_parts(parts: dict[str, str]) -> bool:
    return all(parts.get(key, "").isdigit() for key in ("n", "id", "log"))


def rounds_changed_since(
    *, question_id: int, revisions: dict[int, tuple[str, int | None]]
) -> dict[int, bool]:
    """``scope_changed_since`` of many one-round scopes of a question (``revisions``: round
    id -> (revision, n_annotations)), the small rounds' exact revisions read in two grouped
    queries instead of two per round."""
    out: dict[int, bool] = {}
    exact: dict[int, dict[str, str]] = {}
    for round_id, (revision, n_annotations) in revisions.items():
        parts = dict(_REVISION_PARTS.findall(revision or ""))
        small = n_annotations is None or n_annotations <= exact_staleness_max()
        if small and _has_revision_parts(parts) and parts.get("r") == str(round_id):
            exact[round_id] = parts
        else:
            out[round_id] = scope_changed_since(
                question_id=question_id,
                round_ids=[round_id],
                revision=revision,
                n_annotations=n_annotations,
            )
    if not exact:
        return out
    scope = {"question_id": question_id, "round_id__in": list(exact)}
    summaries: dict[int, dict[str, Any]] = {
        row["round_id"]: dict(row)
        for row in Annotation.objects.filter(**scope)
        .order_by()
        .values("round_id")
        .annotate(n=Count("id"), last_id=Max("id"), last_update=Max("updated_at"))
    }
    logged = dict(
        AnnotationChange.objects.filter(**scope)
        .order_by()
        .values("round_id")
        .annotate(last=Max("id"))
        .values_list("round_id", "last")
    )
    for round_id, parts in exact.items():
        summary: dict[str, Any] = summaries.get(round_id) or {"n": 0, "last_id": None}
        update = summary["last_update"].timestamp() if summary.get("last_update") else 0
        out[round_id] = (
            int(parts["n"]) != summary["n"]
            or int(parts["id"]) != (summary["last_id"] or 0)
            or parts.get("upd") != f"{update:.6f}"
            or int(parts["log"]) != (logged.get(round_id) or 0)
        )
    return out


@dataclass(frozen=True)
class Staleness:
    """What changed after a computation was made from it: its scope's annotations,
    (``distance_table``: ``"replaced"`` or ``"deleted"``) the distance table it used, and
    (``adjudications``) the scope's adjudications its calibration read. False when nothing
    did."""

    annotations: bool = False
    distance_table: str | None = None
    adjudications: bool = False

    def __bool__(self) -> bool:
        return self.annotations or self.distance_table is not None or self.adjudications

    @property
    def changes(self) -> list[str]:
        """ "the annotations changed", "the distance table was replaced", "the
        adjudications changed"."""
        out = []
        if self.annotations:
            out.append("the annotations changed")
        if self.distance_table is not None:
            out.append(f"the distance table was {self.distance_table}")
        if self.adjudications:
            out.append("the adjudications changed")
        return out

    @property
    def reason(self) -> str | None:
        """ "the distance table was replaced after this result" (None: not stale)."""
        return f"{' and '.join(self.changes)} after this result" if self else None

    @property
    def short(self) -> str | None:
        """A mark beside a value: "annotations changed since", "distance table replaced
        since" (None: not stale)."""
        if not self:
            return None
        parts = [change.removeprefix("the ").replace(" was ", " ") for change in self.changes]
        return f"{' and '.join(parts)} since"


def distance_table_change(used: str, now: str | None) -> str | None:
    """What happened to the distance table a computation used (``used``: its fingerprint,
    empty when it used none) given the question's table ``now`` (its fingerprint, None
    when it has none): ``"replaced"``, ``"deleted"``, or None (unchanged, or not used)."""
    if not used:
        return None
    if now is None:
        return "deleted"
    return None if now == used else "replaced"


def tables_now(used: Iterable[tuple[int, str]]) -> dict[int, str]:
    """The current table fingerprint of each question whose computation used one
    (``used``: (question id, the fingerprint used) per computation): one query, none when
    no computation used a table."""
    questions = {question for question, fingerprint in used if fingerprint}
    return distance_table_fingerprints(question_ids=questions) if questions else {}


def adjudications_now(used: Iterable[tuple[tuple[int, int], str]]) -> dict[tuple[int, int], str]:
    """The current adjudications' fingerprint of each one-round scope (question id, round
    id) whose computation's calibration read them (``used``: the scope and the fingerprint
    read, empty when none was): one query, none when no computation read any."""
    return rounds_adjudications_fingerprints(scope for scope, fingerprint in used if fingerprint)


def adjudications_changed(used: str, now: str | None) -> bool:
    """Whether the scope's adjudications (``now``: their fingerprint) differ from those a
    computation's calibration read (``used``; empty when it read none: never changed)."""
    return bool(used) and now != used


class StalenessReader:
    """The staleness of many computations (an API list), each scope's revision and
    adjudications and each question's distance table read once: no query per listed
    computation beyond its scope's."""

    def __init__(self) -> None:
        self._scopes: dict[tuple[int, tuple[int, ...], str], bool] = {}
        self._tables: dict[int, str | None] = {}
        self._adjudications: dict[tuple[int, tuple[int, ...]], str] = {}

    def __call__(self, computation: Computation) -> Staleness:
        round_ids = tuple(computation_round_ids(computation))
        key = (computation.question_id, round_ids, computation.data_revision)
        if key not in self._scopes:
            # Exact for ordinary scopes; indexed lookups for a crowd round (no COUNT over
            # millions of annotations in a read).
            self._scopes[key] = scope_changed_since(
                question_id=computation.question_id,
                round_ids=round_ids,
                revision=computation.data_revision,
                n_annotations=computation.n_annotations,
            )
        used = computation.distance_table_fingerprint
        question = computation.question_id
        if used and question not in self._tables:
            self._tables[question] = tables_now([(question, used)]).get(question)
        read = computation.adjudications_fingerprint
        scope = (question, round_ids)
        if read and scope not in self._adjudications:
            self._adjudications[scope] = scope_adjudications_fingerprint(
                question_id=question, round_ids=round_ids
            )
        return Staleness(
            self._scopes[key],
            distance_table_change(used, self._tables.get(question)),
            adjudications_changed(read, self._adjudications.get(scope)),
        )


def computation_staleness(computation: Computation) -> Staleness:
    """What changed after the computation was requested."""
    return StalenessReader()(computation)


def computation_is_stale(computation: Computation) -> bool:
    """True when the scope's annotations, the distance table it used or the adjudications
    its calibration read changed after the computation was requested."""
    return bool(computation_staleness(computation))


def rounds_staleness(
    *,
    question_id: int,
    revisions: dict[int, tuple[str, int | None]],
    tables_used: Mapping[int, str],
    table_now: str | None,
    adjudications_used: Mapping[int, str] | None = None,
    adjudications: Mapping[tuple[int, int], str] | None = None,
) -> dict[int, Staleness]:
    """``rounds_changed_since`` of many one-round computations of a question, with the
    distance table each used (``tables_used``: round id -> fingerprint, empty for none)
    against the question's table now (``table_now``; None: it has none), and the
    adjudications each one's calibration read (``adjudications_used``: round id ->
    fingerprint, empty for none) against the rounds' now (``adjudications``, as
    ``adjudications_now`` gives them)."""
    changed = rounds_changed_since(question_id=question_id, revisions=revisions)
    read = adjudications_used or {}
    now = adjudications or {}
    return {
        round_id: Staleness(
            bool(changed.get(round_id)),
            distance_table_change(tables_used.get(round_id, ""), table_now),
            adjudications_changed(read.get(round_id, ""), now.get((question_id, round_id))),
        )
        for round_id in revisions
    }


def computations_of_study(*, study_id: int) -> QuerySet[Computation]:
    # select_related: the serializer shows the question key; prefetch: the round ids,
    # otherwise one query per listed computation.
    return (
        Computation.objects.filter(study_id=study_id)
        .select_related("question")
        .prefetch_related("rounds")
    )


def done_computations_for_history(
    *, study_id: int, question_id: int | None = None
) -> QuerySet[Computation]:
    queryset = Computation.objects.filter(study_id=study_id, status=ComputationStatus.DONE)
    if question_id is not None:
        queryset = queryset.filter(question_id=question_id)
    return queryset.select_related("question").prefetch_related("rounds").order_by("-finished_at")


# -- history ---------------------------------------------------------------------------------


def latest_round_computations(
    *, study: Study, question_ids: Iterable[int]
) -> dict[tuple[int, int], Computation]:
    """The latest done one-round computation per (question, round)."""
    latest: dict[tuple[int, int], Computation] = {}
    queryset = (
        Computation.objects.filter(
            study=study,
            question_id__in=list(question_ids),
            status=ComputationStatus.DONE,
            scope=ComputationScope.ROUND,
        )
        # One query for every computation's round instead of one per computation.
        .prefetch_related("rounds")
        .order_by("finished_at", "id")
    )
    for computation in queryset:
        for round_ in computation.rounds.all():
            latest[(computation.question_id, round_.pk)] = computation
    return latest


def _coefficient_points(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    points = {}
    for name, entry in (results.get("coefficients") or {}).items():
        points[name] = {
            "value": entry.get("value"),
            "ci": entry.get("ci"),
            "se": entry.get("se"),
        }
    return points


def _history_rows(*, study: Study, question_ids: list[int]) -> dict[tuple[int, int], Any]:
    """The latest done one-round computation per (question, round), with only what the
    history shows: its coefficients, sizes and revision, never the whole stored results
    (a crowd round's diagnostics run to megabytes)."""
    rows = (
        Computation.objects.filter(
            study=study,
            question_id__in=question_ids,
            status=ComputationStatus.DONE,
            scope=ComputationScope.ROUND,
        )
        .order_by("finished_at", "id")
        .annotate(
            coefficients=KeyTransform("coefficients", "results"),
            n_items=KeyTransform("n_items", "results"),
            n_coders=KeyTransform("n_coders", "results"),
            distance=KeyTransform("distance", "results"),
        )
        .values(
            "id",
            "question_id",
            "rounds__id",
            "data_revision",
            "distance_table_fingerprint",
            "adjudications_fingerprint",
            "n_annotations",
            "finished_at",
            "coefficients",
            "n_items",
            "n_coders",
            "distance",
        )
    )
    return {(row["question_id"], row["rounds__id"]): row for row in rows}


def study_history(*, study: Study, question_id: int | None = None) -> dict[str, Any]:
    """For each question, each round in order with its latest computation's coefficients."""
    questions = list(Question.objects.filter(study=study).order_by("position", "id"))
    if question_id is not None:
        questions = [q for q in questions if q.pk == question_id]
    rounds = list(Round.objects.filter(study=study).order_by("position"))
    latest = _history_rows(study=study, question_ids=[q.pk for q in questions])
    tables = tables_now((q, row["distance_table_fingerprint"]) for (q, _), row in latest.items())
    adjudicated = adjudications_now(
        (key, row["adjudications_fingerprint"]) for key, row in latest.items()
    )
    out = []
    for question in questions:
        rows = {r.pk: latest.get((question.pk, r.pk)) for r in rounds}
        done = {pk: row for pk, row in rows.items() if row is not None}
        stale = rounds_staleness(
            question_id=question.pk,
            revisions={
                pk: (row["data_revision"], row["n_annotations"]) for pk, row in done.items()
            },
            tables_used={pk: row["distance_table_fingerprint"] for pk, row in done.items()},
            table_now=tables.get(question.pk),
            adjudications_used={pk: row["adjudications_fingerprint"] for pk, row in done.items()},
            adjudications=adjudicated,
        )
        entries = [_history_entry(r, rows[r.pk], stale.get(r.pk)) for r in rounds]
        out.append(
            {
                "question": question.pk,
                "question_key": question.key,
                "kind": question.kind,
                "rounds": entries,
            }
        )
    return {"study": study.pk, "questions": out}


def _history_entry(
    round_: Round, row: dict[str, Any] | None, stale: Staleness | None
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "round": round_.pk,
        "round_name": round_.name,
        "position": round_.position,
        "status": round_.status,
        "computation": None,
        "stale": None,
        # What changed after it ("the distance table was replaced after this result").
        "stale_reason": None,
        "stale_short": None,
        "stale_changes": [],
        "finished_at": None,
        "n_items": None,
        "n_coders": None,
        "n_annotations": None,
        # The distance the coefficients used: which benchmark scale reads them
        # (metrics.uncertainty.interpretation).
        "distance": None,
        "coefficients": {},
    }
    if row is None:
        return entry
    entry.update(
        computation=row["id"],
        stale=None if stale is None else bool(stale),
        stale_reason=None if stale is None else stale.reason,
        stale_short=None if stale is None else stale.short,
        stale_changes=[] if stale is None else stale.changes,
        finished_at=row["finished_at"],
        n_items=row["n_items"],
        n_coders=row["n_coders"],
        n_annotations=row["n_annotations"],
        distance=row["distance"],
        coefficients=_coefficient_points({"coefficients": row["coefficients"]}),
    )
    return entry


def coder_drift(*, study: Study, question: Question) -> dict[str, Any]:
    """Each coder's mean agreement with the other coders, round after round."""
    rounds = list(Round.objects.filter(study=study).order_by("position"))
    latest = latest_round_computations(study=study, question_ids=[question.pk])
    per_round: list[dict[str, float | None]] = []
    round_rows = []
    for round_ in rounds:
        computation = latest.get((question.pk, round_.pk))
        values: dict[str, float | None] = {}
        if computation is not None:
            diagnostics = (computation.results or {}).get("diagnostics") or {}
            values = diagnostics.get("per_coder") or {}
        per_round.append(values)
        round_rows.append(
            {
                "round": round_.pk,
                "round_name": round_.name,
                "position": round_.position,
                "computation": computation.pk if computation else None,
            }
        )
    coders = sorted({coder for values in per_round for coder in values})
    coder_rows = []
    for coder in coders:
        series = [values.get(coder) for values in per_round]
        known = [v for v in series if v is not None]
        coder_rows.append(
            {
                "coder": coder,
                "values": series,
                "change": (known[-1] - known[0]) if len(known) >= 2 else None,
            }
        )
    return {"study": study.pk, "question": question.pk, "rounds": round_rows, "coders": coder_rows}


# -- model coders ----------------------------------------------------------------------------


def _model_rows(*, study: Study, question_ids: list[int]) -> dict[tuple[int, int], Any]:
    """The latest done one-round computation per (question, round), with only its
    model-coder part."""
    rows = (
        Computation.objects.filter(
            study=study,
            question_id__in=question_ids,
            status=ComputationStatus.DONE,
            scope=ComputationScope.ROUND,
        )
        .order_by("finished_at", "id")
        .annotate(models=KeyTransform("model_coders", "results"))
        .values("id", "question_id", "rounds__id", "finished_at", "models")
    )
    return {(row["question_id"], row["rounds__id"]): row for row in rows}


def model_point(
    round_: Round, computation_id: int, stored: dict[str, Any], entry: dict[str, Any]
) -> dict[str, Any]:
    """One round of one model: its versions, the test's figures (or why there are none) and
    the agreement between people and models that round."""
    test = entry.get("alt_test") or {}
    between = (stored.get("groups") or {}).get("between") or {}
    return {
        "round": round_.pk,
        "round_name": round_.name,
        "position": round_.position,
        "computation": computation_id,
        "model_version": entry.get("model_version", ""),
        "prompt_version": entry.get("prompt_version", ""),
        "advantage_probability": test.get("advantage_probability"),
        "winning_rate": test.get("winning_rate"),
        "passed": test.get("passed"),
        "n_humans": test.get("n_humans"),
        "epsilon": test.get("epsilon"),
        "refused": test.get("refused"),
        "between": {"value": between.get("value"), "ci": between.get("ci")},
        "self_consistency": _self_consistency_point(entry.get("self_consistency")),
        "position_bias": entry.get("position_bias"),
    }


def _self_consistency_point(stored: Any) -> dict[str, Any] | None:
    """A round's self-consistency in the history: alpha and its interval over the runs, or
    why there is none."""
    if not isinstance(stored, dict):
        return None
    if "refused" in stored:
        return {"refused": stored["refused"], "runs": stored.get("runs")}
    return {
        "alpha": stored.get("alpha"),
        "ci": stored.get("ci"),
        "n_items": stored.get("n_items"),
        "runs": stored.get("runs"),
    }


def model_history(
    *, study: Study, question_id: int | None = None, coder_id: int | None = None
) -> dict[str, Any]:
    """For each question with model-coder tests, each model coder's results round after
    round (from each round's latest one-round computation): model and prompt version,
    advantage probability, winning rate, pass or not, the agreement between people and
    models, the model's self-consistency and (pairwise preferences) its position bias.
    Nothing is computed: it reads what the workers stored."""
    asked = [
        q
        for q in Question.objects.filter(study=study).order_by("position", "id")
        if question_id is None or q.pk == question_id
    ]
    rounds = list(Round.objects.filter(study=study).order_by("position"))
    models = Coder.objects.filter(study=study, kind=CoderKind.MODEL).order_by("key")
    if coder_id is not None:
        models = models.filter(pk=coder_id)
    coders = list(models.values("id", "key", "model_name"))
    latest = _model_rows(study=study, question_ids=[q.pk for q in asked])
    # The kinds with model-coder tests, and those whose report stored a reading of each
    # model (a preference question's position bias).
    stored_for = {
        question
        for (question, _), row in latest.items()
        if (row.get("models") or {}).get("per_model")
    }
    questions = [q for q in asked if q.label_kind.supports(Feature.MODELS) or q.pk in stored_for]
    out = []
    for question in questions:
        series: dict[str, list[dict[str, Any]]] = {c["key"]: [] for c in coders}
        for round_ in rounds:
            row = latest.get((question.pk, round_.pk))
            if row is None:
                continue
            stored = row.get("models") or {}
            for entry in stored.get("per_model") or []:
                if entry.get("key") in series:
                    series[entry["key"]].append(model_point(round_, row["id"], stored, entry))
        out.append(
            {
                "question": question.pk,
                "question_key": question.key,
                "kind": question.kind,
                "models": [
                    {
                        "coder": coder["id"],
                        "key": coder["key"],
                        "model_name": coder["model_name"],
                        "rounds": series[coder["key"]],
                    }
                    for coder in coders
                ],
            }
        )
    return {"study": study.pk, "questions": out}
