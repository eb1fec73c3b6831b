"""The site's HTML pages (and the two small JSON answers of the "request a computation" button).

Thin views: sign-in required, the study's role from ``studies.access`` (non-members get
404, as in the API), one selector or service call, a template. Numbers come from
``pages.selectors``; charts from ``pages.charts``.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils.http import content_disposition_header, url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST

from adjudication.selectors import coder_against_reference
from agreement_server.middleware import policy_header
from computations.models import (
    Computation,
    ComputationScope,
    ComputationStatus,
    ComputationTrigger,
)
from computations.services import computation_request
from exchange import exports
from exchange.selectors import annotation_table, computation_for_export, stored_item_table
from pages import charts
from pages.coder_chart import coder_chart
from pages.dashboard import PENDING_LISTED, pending_computations, study_dashboard
from pages.model_coders import model_coders_section
from pages.relation_arcs import relation_arcs, relation_rows
from pages.selectors import (
    coder_history,
    coder_report,
    coefficient_name,
    latest_annotated_rounds,
    pair_min_items,
    round_report,
    study_coders,
    study_computations,
    study_list_rows,
)
from pages.span_charts import document_lanes
from pages.span_document import span_document, span_items_page
from pages.span_report import span_round_report
from pages.structured_report import structured_item, structured_round_report
from studies.access import Actor, role_allows, study_role
from studies.exceptions import ApplicationError, ConflictError
from studies.images import image_response
from studies.models import Coder, Item, ItemImage, Question, Role, Round, Study
from studies.selectors import question_list, question_resolve, round_list

LOGIN_URL = reverse_lazy("login")
#: A crowd study has thousands of coders: the study page links the first ones by key.
CODERS_LISTED = 200
CSV = "text/csv; charset=utf-8"
site_login_required = login_required(login_url=LOGIN_URL)


def _actor(request: HttpRequest) -> Actor:
    return Actor(user=request.user, token=None)


def _study_for(request: HttpRequest, study_pk: int) -> tuple[Study, Role]:
    """The study and the user's role in it; 404 when it does not exist or they are not a member."""
    study = Study.objects.filter(pk=study_pk).first()
    role = study_role(_actor(request), study) if study is not None else None
    if study is None or role is None:
        raise Http404("No such study.")
    return study, role


def _round_of(study: Study, round_pk: int) -> Round:
    round_ = Round.objects.filter(study=study, pk=round_pk).first()
    if round_ is None:
        raise Http404("No such round in this study.")
    return round_


def _question_of(study: Study, ref: int | str | None) -> Question:
    """The question a path or ``?question=`` names by id or key (``question_resolve``, as
    the API does: digits are an id first), else the study's first; 404 when the study has
    no such question (another study's question is not this study's)."""
    if ref in (None, ""):
        question = Question.objects.filter(study=study).order_by("position", "id").first()
    else:
        question = question_resolve(study=study, ref=ref)
    if question is None:
        raise Http404("No such question in this study.")
    return question


# -- pages ---------------------------------------------------------------------------------------


@require_GET
@site_login_required
def study_list_view(request: HttpRequest) -> HttpResponse:
    return render(
        request, "pages/study_list.html", {"rows": study_list_rows(actor=_actor(request))}
    )


@require_GET
@site_login_required
def study_detail_view(request: HttpRequest, study_pk: int) -> HttpResponse:
    """The study page: the dashboard first (``pages.dashboard``), then requesting a
    computation, the round reports, the coders and the recent computations. The charts of
    every coefficient are on the history page (``pages.history``)."""
    study, role = _study_for(request, study_pk)
    rounds = list(round_list(study=study))
    questions = list(question_list(study=study))
    # Propose a scope that has annotations: the first question that has any, in its
    # latest round with annotations (not simply the last round, which may be empty).
    latest = latest_annotated_rounds(questions=questions, rounds=rounds)
    proposed = next((q for q in questions if q.pk in latest), None)
    initial = {
        "question": proposed.pk if proposed else (questions[0].pk if questions else None),
        "round": latest[proposed.pk].pk if proposed else (rounds[-1].pk if rounds else None),
    }
    context = {
        "study": study,
        "role": role,
        "can_request": role_allows(role, Role.ANNOTATOR),
        "dashboard": study_dashboard(study=study),
        "rounds": rounds,
        "questions": questions,
        "coders": study_coders(study=study, limit=CODERS_LISTED),
        "computations": study_computations(study=study),
        "form": ComputationRequestForm(study=study, initial=initial),
        "has_annotations": bool(latest),
        "latest_rounds": json.dumps({str(q): r.pk for q, r in latest.items()}),
    }
    return render(request, "pages/study_detail.html", context)


@require_GET
@site_login_required
def round_report_view(request: HttpRequest, study_pk: int, round_pk: int) -> HttpResponse:
    study, role = _study_for(request, study_pk)
    round_ = _round_of(study, round_pk)
    question = _question_of(study, request.GET.get("question"))
    if question.label_kind.units:
        return _span_round_report(request, study, role, round_, question)
    if question.label_kind.structured is not None:
        context = {
            "study": study,
            "role": role,
            "report": structured_round_report(study=study, round_=round_, question=question),
            "may_request": role_allows(role, Role.ANNOTATOR),
            "here": request.get_full_path(),
            "questions": list(question_list(study=study)),
            "pending": pending_computations(study=study, question=question, round_=round_),
            "kind_title": question.label_kind.title,
        }
        return render(request, "pages/structured_round_report.html", context)
    report = round_report(study=study, round_=round_, question=question)
    heatmap = None
    if report.coder_pairs is not None and report.pairs is not None:
        name = coefficient_name(report.pairs.coefficient)
        heatmap = charts.heatmap(
            report.coder_pairs,
            chart_id="coder-heatmap",
            title=f"Coder × coder agreement: {name} of each pair of coders",
            desc=f"{name} of every two coders (each coder's label shares from all the items "
            f"it labelled); pairs sharing fewer than {report.pairs.minimum} items are left "
            "blank. The table beside it lists every pair with its shared items.",
        )
    coincidence_chart = None
    if report.extras.coincidence is not None:
        coincidence_chart = charts.heatmap(
            report.extras.coincidence,
            chart_id="coincidence-heatmap",
            title="Coincidence matrix",
            desc="Krippendorff's coincidences of pairable values (rows and columns are "
            "categories); the table below lists the same numbers.",
            digits=1,
            scale=False,
        )
    context = {
        "study": study,
        "role": role,
        "report": report,
        "questions": list(question_list(study=study)),
        "heatmap": heatmap,
        "coincidence_chart": coincidence_chart,
        "pair_minimum": pair_min_items(),
        "pending": pending_computations(study=study, question=question, round_=round_),
        "model_coders": model_coders_section(study=study, results=report.results),
        "may_request": role_allows(role, Role.ANNOTATOR),
        "here": request.get_full_path(),
    }
    return render(request, "pages/round_report.html", context)


def _span_round_report(
    request: HttpRequest, study: Study, role: Role, round_: Round, question: Question
) -> HttpResponse:
    report = span_round_report(study=study, round_=round_, question=question)
    charts_ = [
        (
            history,
            charts.history_chart(
                history,
                chart_id=f"span-history-{history.coefficient}",
                legend=False,
                desc=f"{history.name} of question {question.key} in each round of the study"
                + (
                    ", shaded bands are confidence intervals; dashed lines mark 0.667 and 0.8"
                    if history.bands
                    else ", shaded bands are confidence intervals"
                )
                + ". The table beside the chart lists the same numbers.",
            ),
            charts.legend_of([history]),
        )
        for history in report.history
    ]
    context = {
        "study": study,
        "role": role,
        "report": report,
        "questions": list(question_list(study=study)),
        "history_charts": charts_,
        "pending": pending_computations(study=study, question=question, round_=round_),
    }
    return render(request, "pages/span_round_report.html", context)


@require_GET
@site_login_required
def coder_view(request: HttpRequest, study_pk: int, coder_pk: int) -> HttpResponse:
    study, role = _study_for(request, study_pk)
    coder = Coder.objects.filter(study=study, pk=coder_pk).first()
    if coder is None:
        raise Http404("No such coder in this study.")
    context = {
        "study": study,
        "role": role,
        "coder": coder,
        "questions": [
            (
                entry,
                coder_chart(
                    coder_history(entry, coder),
                    chart_id=f"coder-q{entry.question.pk}",
                    desc=f"Each coder's mean agreement with the other coders on question "
                    f"{entry.question.key}, round after round, {coder.key} first; the table "
                    "beside the chart lists the same numbers.",
                ),
            )
            for entry in coder_report(study=study, coder=coder)
        ],
        "against_reference": coder_against_reference(study=study, coder=coder),
    }
    return render(request, "pages/coder_detail.html", context)


def _span_question_of(study: Study, question_pk: str) -> Question:
    question = _question_of(study, question_pk)
    if not question.label_kind.units:
        raise Http404("Not a span question.")
    return question


@require_GET
@site_login_required
def span_document_view(
    request: HttpRequest, study_pk: int, round_pk: int, question_pk: str, item_pk: int
) -> HttpResponse:
    """One item of a span question in a round: each coder's units and where they differ."""
    study, role = _study_for(request, study_pk)
    round_ = _round_of(study, round_pk)
    question = _span_question_of(study, question_pk)
    item = Item.objects.filter(study=study, pk=item_pk).first()
    if item is None:
        raise Http404("No such item in this study.")
    document = span_document(round_=round_, question=question, item=item)
    context = {
        "study": study,
        "role": role,
        "document": document,
        "lanes_chart": document_lanes(document),
    }
    return render(request, "pages/span_document.html", context)


def _image_source(study: Study, item: Item) -> str:
    """The uploaded image (served to members), else the item's http(s) URL: a javascript:
    or data: URL is never put in the page."""
    if ItemImage.objects.filter(item=item).exists():
        return reverse("pages:item-image", args=[study.pk, item.pk])
    return item.image_url if item.image_url.startswith(("https://", "http://")) else ""


@require_GET
@site_login_required
def structured_item_view(
    request: HttpRequest, study_pk: int, round_pk: int, question_pk: str, item_pk: int
) -> HttpResponse:
    """One item of a structured question in a round: each coder's regions over the image."""
    study, role = _study_for(request, study_pk)
    round_ = _round_of(study, round_pk)
    question = _question_of(study, question_pk)
    if question.label_kind.structured is None:
        raise Http404("Not a region question.")
    item = Item.objects.filter(study=study, pk=item_pk).first()
    if item is None:
        raise Http404("No such item in this study.")
    view = structured_item(round_=round_, question=question, item=item)
    source = _image_source(study, item)
    context = {
        "study": study,
        "role": role,
        "view": view,
        "image_url": source,
        "stroke": max(view.width, view.height) / 250,
    }
    if any(shape.get("type") == "arc" for d in view.drawings for shape in d.shapes):
        context["arcs"] = relation_arcs(view.drawings, item.text, chart_id="relation-arcs")
        context["relations"] = relation_rows(view.drawings, item.text)
    response = render(request, question.label_kind.structured.item_template, context)
    origin = urlsplit(source)
    if origin.scheme in ("http", "https") and origin.netloc:
        # The page may show this one image from its own server, nothing else from there.
        policy = dict(settings.CONTENT_SECURITY_POLICY)
        policy["img-src"] = [*policy["img-src"], f"{origin.scheme}://{origin.netloc}"]
        response["Content-Security-Policy"] = policy_header(policy)
    return response


@require_GET
@site_login_required
def item_image_view(request: HttpRequest, study_pk: int, item_pk: int) -> HttpResponse:
    """An item's uploaded image, for the study's members only (the image view draws on it)."""
    study, _role = _study_for(request, study_pk)
    image = ItemImage.objects.filter(item__study=study, item_id=item_pk).first()
    if image is None:
        raise Http404("No uploaded image for this item.")
    return image_response(image)


@require_GET
@site_login_required
def span_items_view(
    request: HttpRequest, study_pk: int, round_pk: int, question_pk: str
) -> HttpResponse:
    """The items annotated for a span question in a round, each linking to its document view."""
    study, role = _study_for(request, study_pk)
    round_ = _round_of(study, round_pk)
    question = _span_question_of(study, question_pk)
    page = span_items_page(round_=round_, question=question, page=request.GET.get("page"))
    context = {"study": study, "role": role, "round": round_, "question": question, "page": page}
    return render(request, "pages/span_items.html", context)


# -- requesting a computation --------------------------------------------------------------------


class _QuestionField(forms.ModelChoiceField):
    """A question of ``study`` by its id or its key (``_question_of``'s rule); the choices
    it renders are its questions by id."""

    study: Study | None = None

    def label_from_instance(self, obj: Any) -> str:
        return str(obj.key)

    def to_python(self, value: Any) -> Question | None:
        if value in self.empty_values:
            return None
        found = question_resolve(study=self.study, ref=value) if self.study else None
        if found is None:
            raise ValidationError(self.error_messages["invalid_choice"], code="invalid_choice")
        return found


class _RoundField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        return str(obj.name)


class ComputationRequestForm(forms.Form):
    """Input of the "request a computation" button: one question in one round, defaults;
    or (``again``, a stale result's "compute again") the parameters of that computation,
    its distance among them."""

    question = _QuestionField(queryset=Question.objects.none())
    round = _RoundField(queryset=Round.objects.none())
    again = forms.IntegerField(required=False, min_value=1)

    def __init__(self, *args: Any, study: Study, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        question_field = self.fields["question"]
        round_field = self.fields["round"]
        assert isinstance(question_field, _QuestionField)
        assert isinstance(round_field, forms.ModelChoiceField)
        question_field.study = study
        question_field.queryset = Question.objects.filter(study=study).order_by("position", "id")
        round_field.queryset = Round.objects.filter(study=study).order_by("position")
        self.study = study

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        again = data.get("again")
        data["parameters"] = None
        if again is not None and data.get("question") is not None:
            parameters = (
                Computation.objects.filter(study=self.study, question=data["question"], pk=again)
                .values_list("parameters", flat=True)
                .first()
            )
            if parameters is None:
                self.add_error("again", f"No computation {again} of this question.")
            else:
                data["parameters"] = parameters
        return data


def _back_to(request: HttpRequest, study: Study) -> HttpResponse:
    """Back to the page a form names in ``next`` (a path of this site), else the study page."""
    target = request.POST.get("next") or ""
    if target.startswith("/") and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return redirect(target)
    return redirect("pages:study-detail", study.pk)


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _status_body(study: Study, computation: Computation) -> dict[str, Any]:
    round_ids = sorted(r.pk for r in computation.rounds.all())
    report_url = None
    if computation.scope == ComputationScope.ROUND and round_ids:
        report_url = (
            reverse("pages:round-report", args=[study.pk, round_ids[0]])
            + f"?question={computation.question_id}"
        )
    return {
        "id": computation.pk,
        "status": computation.status,
        "progress": computation.progress,
        "error": computation.error,
        "finished": computation.is_finished,
        "status_url": reverse("pages:computation-status", args=[study.pk, computation.pk]),
        "report_url": report_url,
    }


@require_POST
@site_login_required
def computation_request_view(request: HttpRequest, study_pk: int) -> HttpResponse:
    study, role = _study_for(request, study_pk)
    if not role_allows(role, Role.ANNOTATOR):
        if _wants_json(request):
            return JsonResponse({"error": "Viewers cannot request computations."}, status=403)
        messages.error(request, "Viewers cannot request computations.")
        return _back_to(request, study)
    form = ComputationRequestForm(request.POST, study=study)
    if not form.is_valid():
        if _wants_json(request):
            return JsonResponse({"errors": form.errors.get_json_data()}, status=400)
        again = form.errors.get("again")
        messages.error(request, str(again[0]) if again else "Choose a question and a round.")
        return _back_to(request, study)
    try:
        result = computation_request(
            study=study,
            question=form.cleaned_data["question"],
            scope=ComputationScope.ROUND,
            rounds=[form.cleaned_data["round"]],
            parameters=form.cleaned_data["parameters"],
            trigger=ComputationTrigger.API,
            requested_by=request.user,
        )
    except (ValidationError, ApplicationError) as error:
        # The service's refusal (e.g. a round without annotations for the question), shown
        # as it worded it.
        text = "; ".join(error.messages) if isinstance(error, ValidationError) else error.message
        if _wants_json(request):
            return JsonResponse({"error": text}, status=400)
        messages.error(request, text)
        return _back_to(request, study)
    # Read it again: a worker (or eager mode) may already have moved it on.
    computation = Computation.objects.prefetch_related("rounds").get(pk=result.computation.pk)
    if _wants_json(request):
        return JsonResponse(
            {**_status_body(study, computation), "created": result.created},
            status=202 if result.created else 200,
        )
    messages.success(request, f"Computation {computation.pk} requested ({computation.status}).")
    return _back_to(request, study)


@require_GET
@site_login_required
def computation_status_view(
    request: HttpRequest, study_pk: int, computation_pk: int
) -> HttpResponse:
    study, _ = _study_for(request, study_pk)
    computation = (
        Computation.objects.filter(study=study, pk=computation_pk)
        .prefetch_related("rounds")
        .first()
    )
    if computation is None:
        raise Http404("No such computation in this study.")
    return JsonResponse(_status_body(study, computation))


@require_GET
@site_login_required
def computations_pending_view(request: HttpRequest, study_pk: int) -> HttpResponse:
    """The study's unfinished computations (JSON): what a page waiting for one polls. Reads
    the stored state only: one indexed statement after the membership check."""
    study, _ = _study_for(request, study_pk)
    rows = (
        Computation.objects.filter(
            study=study, status__in=(ComputationStatus.QUEUED, ComputationStatus.RUNNING)
        )
        .order_by("created_at", "id")
        .values("id", "status", "progress")[:PENDING_LISTED]
    )
    return JsonResponse({"pending": list(rows)})


# -- downloads (the exports services of the imports/exports module) ----------------------------


def _attachment(body: str, filename: str, content_type: str) -> HttpResponse:
    response = HttpResponse(body, content_type=content_type)
    # Django's header quotes '"', and writes names with CR/LF or beyond ASCII as
    # RFC 6266 ``filename*`` (a raw round name here once answered 500).
    response["Content-Disposition"] = content_disposition_header(
        as_attachment=True, filename=filename
    )
    return response


def _download_target(
    request: HttpRequest, study_pk: int, round_pk: int, question_pk: str
) -> tuple[Study, Round, Question, str]:
    study, _ = _study_for(request, study_pk)
    round_ = _round_of(study, round_pk)
    question = _question_of(study, question_pk)
    return study, round_, question, f"study{study.pk}-{round_.name}-{question.key}"


@require_GET
@site_login_required
def results_download(
    request: HttpRequest, study_pk: int, round_pk: int, question_pk: str, fmt: str
) -> HttpResponse:
    study, round_, question, name = _download_target(request, study_pk, round_pk, question_pk)
    computation = computation_for_export(study=study, round_=round_, question=question)
    if computation is None:
        raise Http404("No finished computation for this question in this round.")
    if fmt == "json":
        body = json.dumps(exports.computation_results_json(computation), indent=2)
        return _attachment(body, f"{name}-results.json", "application/json")
    csv_text = exports.computation_results_csv(computation)
    return _attachment(csv_text, f"{name}-results.csv", CSV)


@require_GET
@site_login_required
def annotations_download(
    request: HttpRequest, study_pk: int, round_pk: int, question_pk: str, layout: str
) -> HttpResponse:
    _, round_, question, name = _download_target(request, study_pk, round_pk, question_pk)
    table = annotation_table(round_=round_, question=question)
    if layout == "wide":
        return _attachment(exports.annotations_wide_csv(table), f"{name}-wide.csv", CSV)
    return _attachment(exports.annotations_long_csv(table), f"{name}-long.csv", CSV)


@require_GET
@site_login_required
def items_download(
    request: HttpRequest, study_pk: int, round_pk: int, question_pk: str
) -> HttpResponse:
    """The per-item diagnostics the worker stored with the round's latest computation."""
    study, round_, question, name = _download_target(request, study_pk, round_pk, question_pk)
    try:
        stored = stored_item_table(study=study, round_=round_, question=question)
    except ConflictError as error:
        return HttpResponse(error.message, status=409, content_type="text/plain; charset=utf-8")
    if stored is None:
        raise Http404("No finished computation for this question in this round: request one.")
    return _attachment(exports.item_diagnostics_csv(stored), f"{name}-items.csv", CSV)
