"""The review queue page: a round's items flagged by a question's rule, with each coder's
label. It reads the entries a worker stored; nothing is computed here."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from pages.views import _question_of, _round_of, _study_for, site_login_required
from review.selectors import review_entry_list, review_rule_of


@require_GET
@site_login_required
def review_queue_view(
    request: HttpRequest, study_pk: int, round_pk: int, question_pk: int
) -> HttpResponse:
    study, _role = _study_for(request, study_pk)
    round_ = _round_of(study, round_pk)
    question = _question_of(study, question_pk)
    show_all = request.GET.get("all") == "1"
    entries = list(
        review_entry_list(study=study, round_=round_, question=question, unresolved=not show_all)
    )
    coders = sorted({coder for entry in entries for coder in entry.labels})
    rows = [(entry, [entry.labels.get(coder, "") for coder in coders]) for entry in entries]
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
            "show_all": show_all,
        },
    )
