"""The planning page of a study's question: a form that requests a sample-size plan, and the
plans a worker stored, with their results. Nothing is computed here."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from metrics.planning import DEFAULT_PILOT_UNCERTAINTY
from pages.stale_marks import StaleMark, change_log
from pages.views import _question_of, _study_for, _wants_json, site_login_required
from planning.models import PlanRequest, PlanStatus
from planning.selectors import plan_request_list
from planning.services import plan_request_create
from planning.simulation import PLAN_COEFFICIENTS
from studies.access import role_allows
from studies.models import Question, Role, Round, Study


class _RoundChoice(forms.ModelChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        return str(obj.name)


class PlanRequestForm(forms.Form):
    """A plan from a pilot round (assumptions without a pilot: over the API)."""

    # The question's id or key: the view resolves it (``_question_of``) before the form.
    question = forms.CharField(widget=forms.HiddenInput)
    pilot_round = _RoundChoice(queryset=Round.objects.none(), label="Pilot round")
    coefficient = forms.ChoiceField(choices=())
    target = forms.FloatField(initial=0.8, label="Lower bound at least")
    confidence = forms.FloatField(initial=0.95, label="Interval level")
    power = forms.FloatField(initial=0.9, label="With probability")
    coders_per_item = forms.CharField(
        required=False,
        label="Other designs (coders per item)",
        help_text="e.g. 2, 4; empty: the pilot's design only (nominal questions)",
    )
    pilot_uncertainty = forms.ChoiceField(
        choices=[
            ("lower-bound", "plan on the pilot's one-sided 80 % lower bound (default)"),
            ("bootstrap", "average over the pilot's bootstrap distribution"),
            ("none", "take the pilot's estimate as the truth (optimistic)"),
        ],
        initial=DEFAULT_PILOT_UNCERTAINTY,
        required=False,
        label="The pilot's uncertainty",
    )

    def clean_pilot_uncertainty(self) -> str:
        return str(self.cleaned_data.get("pilot_uncertainty") or DEFAULT_PILOT_UNCERTAINTY)

    def __init__(self, *args: Any, study: Study, question: Question, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        pilot = self.fields["pilot_round"]
        coefficient = self.fields["coefficient"]
        assert isinstance(pilot, forms.ModelChoiceField)
        assert isinstance(coefficient, forms.ChoiceField)
        pilot.queryset = Round.objects.filter(study=study).order_by("position")
        coefficient.choices = [(key, key) for key in PLAN_COEFFICIENTS.get(question.kind, ())]

    def clean_coders_per_item(self) -> list[int]:
        text = self.cleaned_data.get("coders_per_item") or ""
        parts = [part.strip() for part in text.replace(";", ",").split(",") if part.strip()]
        if not all(part.isdigit() and len(part) <= 3 for part in parts):
            raise ValidationError("Whole numbers separated by commas, e.g. 2, 4.")
        return [int(part) for part in parts]


def _latest_annotated_round(study: Study, question: Question) -> Round | None:
    return (
        Round.objects.filter(study=study, annotations__question=question)
        .order_by("-position")
        .first()
    )


@require_GET
@site_login_required
def plans_view(request: HttpRequest, study_pk: int) -> HttpResponse:
    study, role = _study_for(request, study_pk)
    question = _question_of(study, request.GET.get("question"))
    pilot = request.GET.get("pilot", "")
    chosen = (
        Round.objects.filter(study=study, pk=int(pilot)).first()
        if pilot.isdigit() and len(pilot) <= 18
        else None
    )
    latest = chosen or _latest_annotated_round(study, question)
    form = PlanRequestForm(
        study=study,
        question=question,
        initial={
            "question": question.pk,
            "pilot_round": latest.pk if latest else None,
            "coefficient": "alpha",
        },
    )
    plans = list(plan_request_list(study=study, question=question)[:20])
    context = {
        "study": study,
        "role": role,
        "question": question,
        "questions": list(Question.objects.filter(study=study).order_by("position", "id")),
        "can_request": role_allows(role, Role.MANAGER),
        "form": form,
        "plans": plans,
        "stale": plans_stale(study=study, question=question, plans=plans),
    }
    return render(request, "pages/plans.html", context)


def _planned_at(plan: PlanRequest) -> Any:
    """When the plan read its pilot: its run's start (its request while it waits)."""
    return plan.started_at or plan.created_at


def plans_stale(
    *, study: Study, question: Question, plans: list[PlanRequest]
) -> dict[int, StaleMark]:
    """Per plan id, what changed in its pilot round's labels after the plan read them (plans
    from a pilot that are done or failed; one query for all)."""
    settled = [
        plan
        for plan in plans
        if plan.pilot_round_id is not None and plan.status in (PlanStatus.DONE, PlanStatus.FAILED)
    ]
    log = change_log(
        study=study,
        question=question,
        round_ids=[plan.pilot_round_id for plan in settled if plan.pilot_round_id is not None],
        after=min((_planned_at(plan) for plan in settled), default=None),
    )
    marks = {
        plan.pk: log.since(_planned_at(plan), round_id=plan.pilot_round_id) for plan in settled
    }
    return {pk: mark for pk, mark in marks.items() if mark is not None}


def _refused(request: HttpRequest, study: Study, question_pk: Any, text: str) -> HttpResponse:
    if _wants_json(request):
        return JsonResponse({"error": text}, status=400)
    messages.error(request, text)
    return _back(study, question_pk)


def _back(study: Study, question_pk: Any) -> HttpResponse:
    url = reverse("pages:plans", args=[study.pk])
    text = str(question_pk or "")
    return redirect(f"{url}?{urlencode({'question': text})}" if text else url)


def _field_label(form: forms.Form, name: str) -> str:
    field = form.fields.get(name)
    return str(field.label) if field is not None and field.label else name


def _plan_body(plan: PlanRequest) -> dict[str, Any]:
    return {"id": plan.pk, "status": plan.status, "recommended_items": plan.recommended_items}


@require_POST
@site_login_required
def plan_request_view(request: HttpRequest, study_pk: int) -> HttpResponse:
    study, role = _study_for(request, study_pk)
    question_pk = request.POST.get("question")
    if not role_allows(role, Role.MANAGER):
        text = "Only the study's managers can request a plan."
        if _wants_json(request):
            return JsonResponse({"error": text}, status=403)
        messages.error(request, text)
        return _back(study, question_pk)
    question = _question_of(study, question_pk)
    form = PlanRequestForm(request.POST, study=study, question=question)
    if not form.is_valid():
        text = "; ".join(
            f"{_field_label(form, name)}: {' '.join(str(e) for e in errors)}"
            for name, errors in form.errors.items()
        )
        return _refused(request, study, question.pk, text)
    data = form.cleaned_data
    try:
        plan = plan_request_create(
            study=study,
            question=question,
            pilot_round=data["pilot_round"],
            coefficient=data["coefficient"],
            target=data["target"],
            confidence=data["confidence"],
            power=data["power"],
            coders_per_item=data["coders_per_item"],
            pilot_uncertainty=data["pilot_uncertainty"],
            requested_by=request.user,
        )
    except ValidationError as error:
        return _refused(request, study, question.pk, "; ".join(error.messages))
    plan = PlanRequest.objects.get(pk=plan.pk)  # a worker (or eager mode) may have run it
    if _wants_json(request):
        return JsonResponse(_plan_body(plan), status=202)
    messages.success(request, f"Plan {plan.pk} requested ({plan.status}).")
    return _back(study, question.pk)
