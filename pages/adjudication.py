"""Gold and adjudication pages: the items of a round awaiting a reference label (with a form
that decides one), and each coder against the reference as a worker stored it. Nothing is
computed here: the decision goes through ``adjudication.services.adjudicate``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from adjudication.models import ReferenceResult
from adjudication.selectors import (
    ItemToAdjudicate,
    adjudication_item_ids,
    items_to_adjudicate,
    reference_result_of,
    round_reference_of,
)
from adjudication.services import adjudicate, reference_result_request
from agreement_server.worker_jobs import JobStatus
from pages.stale_marks import StaleMark, change_log
from pages.views import _question_of, _round_of, _study_for, _wants_json, site_login_required
from studies.access import role_allows
from studies.kinds import Feature
from studies.models import Coder, Item, Question, Role, Round, Study

#: The radio value that means "the label typed in the text field".
ENTERED = "__entered__"
PAGE_SIZE = 50
DECIDE_REFUSAL = "Only managers of the study adjudicate items."


def _scope(
    request: HttpRequest, study_pk: int, round_pk: int, question_pk: str
) -> tuple[Study, Role, Round, Question]:
    study, role = _study_for(request, study_pk)
    round_ = _round_of(study, round_pk)
    question = _question_of(study, question_pk)
    if not question.label_kind.supports(Feature.ADJUDICATION):
        raise Http404(f"{question.label_kind.title} questions have no item adjudication.")
    return study, role, round_, question


@require_GET
@site_login_required
def adjudication_view(
    request: HttpRequest, study_pk: int, round_pk: int, question_pk: str
) -> HttpResponse:
    study, role, round_, question = _scope(request, study_pk, round_pk, question_pk)
    show_all = request.GET.get("all") == "1"
    item_ids = adjudication_item_ids(round_=round_, question=question, disputed_only=not show_all)
    page = Paginator(item_ids, PAGE_SIZE).get_page(request.GET.get("page"))
    items = items_to_adjudicate(round_=round_, question=question, item_ids=list(page))
    coders = sorted({key for item in items for key in item.labels})
    decided = [item.adjudication.created_at for item in items if item.adjudication is not None]
    log = change_log(
        study=study,
        question=question,
        round_ids=[round_.pk],
        after=min(decided, default=None),
        item_ids=[item.item_id for item in items if item.adjudication is not None],
    )
    rows = [
        AdjudicationRow(
            item=item,
            labels=[(coder, item.labels.get(coder, "")) for coder in coders],
            stale=log.since(item.adjudication.created_at, item_id=item.item_id)
            if item.adjudication is not None
            else None,
            keep=_keep_choice(item),
        )
        for item in items
    ]
    return render(
        request,
        "pages/adjudication.html",
        {
            "study": study,
            "round": round_,
            "question": question,
            "reference": round_reference_of(round_),
            "coders": coders,
            "rows": rows,
            "show_all": show_all,
            "page": page,
            "n_items": len(item_ids),
            "may_decide": role_allows(role, Role.MANAGER),
            "entered": ENTERED,
        },
    )


@dataclass(frozen=True)
class AdjudicationRow:
    """One item on the page: each coder's label, what changed since its decision, and the
    form values that confirm the decision as it stands (``keep``: choice, label)."""

    item: ItemToAdjudicate
    labels: list[tuple[str, str]]
    stale: StaleMark | None
    keep: tuple[str, str] | None


def _keep_choice(item: ItemToAdjudicate) -> tuple[str, str] | None:
    """Deciding the same label again: from the same coder when that coder still gives it,
    else entered as text."""
    decision = item.adjudication
    if decision is None:
        return None
    coder = decision.source_coder.key if decision.source_coder is not None else None
    if coder is not None and item.labels.get(coder) == decision.value:
        return coder, ""
    return ENTERED, decision.value


class AdjudicationForm(forms.Form):
    """One decision: the item, whose label to take (a coder key, or ``ENTERED``), the label
    typed in, and a note."""

    item = forms.IntegerField(min_value=1)
    choice = forms.CharField(max_length=200)
    label = forms.CharField(required=False, max_length=1000)
    note = forms.CharField(required=False, max_length=10_000)


def _answer(
    request: HttpRequest, page: str, *, error: str | None = None, status: int = 400
) -> HttpResponse:
    if _wants_json(request):
        return JsonResponse({"error": error}, status=status)
    if status == 403:
        return HttpResponse(error, status=403, content_type="text/plain; charset=utf-8")
    messages.error(request, error or "")
    return redirect(page)


@require_POST
@site_login_required
def adjudicate_view(
    request: HttpRequest, study_pk: int, round_pk: int, question_pk: str
) -> HttpResponse:
    study, role, round_, question = _scope(request, study_pk, round_pk, question_pk)
    page = reverse("pages:adjudication", args=[study.pk, round_.pk, question.pk])
    if not role_allows(role, Role.MANAGER):
        return _answer(request, page, error=DECIDE_REFUSAL, status=403)
    form = AdjudicationForm(request.POST)
    if not form.is_valid():
        fields = ", ".join(sorted(form.errors))
        return _answer(request, page, error=f"Check the form: {fields}.")
    data = form.cleaned_data
    item = Item.objects.filter(study=study, pk=data["item"]).first()
    if item is None:
        return _answer(request, page, error="No such item in this study.")
    coder: Coder | None = None
    label: Any = None
    if data["choice"] == ENTERED:
        label = data["label"].strip() or None
        if label is None:
            return _answer(request, page, error="Type the label, or pick a coder's label.")
    else:
        coder = Coder.objects.filter(study=study, key=data["choice"]).first()
        if coder is None:
            return _answer(request, page, error=f"No coder {data['choice']!r} in this study.")
    try:
        decision = adjudicate(
            round_=round_,
            question=question,
            item=item,
            label=label,
            coder=coder,
            note=data["note"],
            user=request.user,
        )
    except ValidationError as error:
        return _answer(request, page, error="; ".join(error.messages))
    if _wants_json(request):
        return JsonResponse({"id": decision.pk, "item": item.external_id, "value": decision.value})
    messages.success(request, f"Item {item.external_id}: reference label {decision.value}.")
    return redirect(f"{page}#item-{item.pk}")


def reference_stale(
    *, study: Study, round_: Round, question: Question, result: ReferenceResult | None
) -> tuple[StaleMark | None, bool]:
    """What changed in the labels after the stored results were computed, and whether the
    gold coder was set or changed since; nothing while a new computation is pending."""
    if result is None or not result.results or result.status not in _SETTLED:
        return None, False
    moment = result.started_at or result.finished_at
    log = change_log(study=study, question=question, round_ids=[round_.pk], after=moment)
    reference = round_reference_of(round_)
    gold_changed = bool(moment and reference is not None and reference.updated_at > moment)
    return log.since(moment), gold_changed


_SETTLED = (JobStatus.DONE, JobStatus.FAILED)


@require_GET
@site_login_required
def reference_results_view(
    request: HttpRequest, study_pk: int, round_pk: int, question_pk: str
) -> HttpResponse:
    study, role, round_, question = _scope(request, study_pk, round_pk, question_pk)
    result = reference_result_of(round_=round_, question=question)
    results = (result.results if result is not None else None) or {}
    stale, gold_changed = reference_stale(
        study=study, round_=round_, question=question, result=result
    )
    return render(
        request,
        "pages/reference_results.html",
        {
            "study": study,
            "round": round_,
            "question": question,
            "result": result,
            "results": results,
            "coders": results.get("coders", []),
            "labels": results.get("labels", []),
            "stale": stale,
            "gold_changed": gold_changed,
            "may_request": role_allows(role, Role.ANNOTATOR),
        },
    )


REQUEST_REFUSAL = "Viewers cannot request computations."


@require_POST
@site_login_required
def reference_request_view(
    request: HttpRequest, study_pk: int, round_pk: int, question_pk: str
) -> HttpResponse:
    """Compute the round's results against its reference again (annotators and managers)."""
    study, role, round_, question = _scope(request, study_pk, round_pk, question_pk)
    page = reverse("pages:reference-results", args=[study.pk, round_.pk, question.pk])
    if not role_allows(role, Role.ANNOTATOR):
        return _answer(request, page, error=REQUEST_REFUSAL, status=403)
    result = reference_result_request(round_=round_, question=question)
    result = ReferenceResult.objects.get(pk=result.pk)  # eager mode may have run it
    if _wants_json(request):
        return JsonResponse({"id": result.pk, "status": result.status}, status=202)
    messages.success(request, f"Results against the reference requested ({result.status}).")
    return redirect(page)
