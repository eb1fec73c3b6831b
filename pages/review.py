"""The review queue page: a round's items flagged by a question's rule, with each coder's
label. It reads the entries a worker stored; nothing is computed here."""

from __future__ import annotations

from datetime import datetime

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from computations.models import Computation, ComputationScope, ComputationStatus
from pages.stale_marks import change_log
from pages.views import _question_of, _round_of, _study_for, site_login_required
from review.models import ReviewEntry
from review.selectors import review_entry_list, review_rule_of
from studies.access import role_allows
from studies.models import Question, Role, Round, Study


def last_queue_build(*, study: Study, round_: Round, question: Question) -> datetime | None:
    """When the queue was last rebuilt: the latest finished one-round computation of the
    round and question (``review.receivers`` rebuilds it as each one finishes)."""
    return (
        Computation.objects.filter(
            study=study,
            question=question,
            rounds=round_,
            scope=ComputationScope.ROUND,
            status=ComputationStatus.DONE,
        )
        .order_by("-finished_at")
        .values_list("finished_at", flat=True)
        .first()
    )


@require_GET
@site_login_required
def review_queue_view(
    request: HttpRequest, study_pk: int, round_pk: int, question_pk: str
) -> HttpResponse:
    study, role = _study_for(request, study_pk)
    round_ = _round_of(study, round_pk)
    question = _question_of(study, question_pk)
    show_all = request.GET.get("all") == "1"
    entries = list(
        review_entry_list(study=study, round_=round_, question=question, unresolved=not show_all)
    )
    coders = sorted({coder for entry in entries for coder in entry.labels})
    # Open entries only: what changed in their items' labels after the queue took them. An
    # entry's labels are refreshed by every rebuild (after each finished computation of the
    # round), so its inputs date from the later of its creation and the last rebuild.
    rebuilt = last_queue_build(study=study, round_=round_, question=question)
    open_entries = [entry for entry in entries if entry.resolved_at is None]

    def taken(entry: ReviewEntry) -> datetime:
        return max(entry.created_at, rebuilt) if rebuilt is not None else entry.created_at

    log = change_log(
        study=study,
        question=question,
        round_ids=[round_.pk],
        after=min((taken(entry) for entry in open_entries), default=None),
        item_ids=[entry.item_id for entry in open_entries],
    )
    rows = [
        (
            entry,
            [entry.labels.get(coder, "") for coder in coders],
            log.since(taken(entry), item_id=entry.item_id) if entry.resolved_at is None else None,
        )
        for entry in entries
    ]
    return render(
        request,
        "pages/review_queue.html",
        {
            "study": study,
            "round": round_,
            "question": question,
            "rule": review_rule_of(question),
            "coders": coders,
            "rows": rows,
            "n_stale": sum(1 for row in rows if row[2] is not None),
            "show_all": show_all,
            "may_request": role_allows(role, Role.ANNOTATOR),
            "here": request.get_full_path(),
        },
    )
