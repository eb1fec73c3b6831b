"""Creating a study on the site, and changing what it records for its reliability report.

Both go through ``studies.services.study`` (the creator becomes the study's manager); the
forms only check the input's shape."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from pages.views import _actor, _study_for, _wants_json, site_login_required
from studies.access import role_allows
from studies.exceptions import ApplicationError
from studies.models import GRRAS_STUDY_FIELDS, Role, Study
from studies.services.study import study_create, study_update

EDIT_REFUSAL = "Only the study's managers can change what it records."


class StudyForm(forms.ModelForm):
    """A study's name, description and its reliability report's design facts."""

    class Meta:
        model = Study
        fields = ("name", "description", *GRRAS_STUDY_FIELDS, "benchmark_scale")
        widgets: Any = {
            name: forms.Textarea(attrs={"rows": 2, "cols": 60})
            for name in ("description", *GRRAS_STUDY_FIELDS)
        }


def _errors_of(error: ValidationError | ApplicationError) -> str:
    return "; ".join(error.messages) if isinstance(error, ValidationError) else error.message


def _refused(request: HttpRequest, form: StudyForm, text: str | None = None) -> JsonResponse:
    return JsonResponse(
        {"error": text} if text else {"errors": form.errors.get_json_data()}, status=400
    )


def _study_body(study: Study, status: int) -> JsonResponse:
    url = reverse("pages:study-detail", args=[study.pk])
    return JsonResponse({"id": study.pk, "name": study.name, "url": url}, status=status)


@require_http_methods(["GET", "POST"])
@site_login_required
def study_create_view(request: HttpRequest) -> HttpResponse:
    """A new study with the signed-in user as its manager."""
    form = StudyForm(request.POST or None)
    if request.method == "POST" and not form.is_valid() and _wants_json(request):
        return _refused(request, form)
    if request.method == "POST" and form.is_valid():
        data = dict(form.cleaned_data)
        try:
            study = study_create(
                actor=_actor(request),
                name=data.pop("name"),
                description=data.pop("description"),
                **data,
            )
        except (ValidationError, ApplicationError) as error:
            if _wants_json(request):
                return _refused(request, form, _errors_of(error))
            messages.error(request, _errors_of(error))
        else:
            if _wants_json(request):
                return _study_body(study, 201)
            messages.success(
                request,
                f"Study “{study.name}” created; you are its manager. Next: add its questions, "
                "coders and items over the API or in the admin, or import a labeling tool's "
                "export.",
            )
            return redirect("pages:study-detail", study.pk)
    return render(request, "pages/study_form.html", {"form": form, "study": None})


@require_http_methods(["GET", "POST"])
@site_login_required
def study_edit_view(request: HttpRequest, study_pk: int) -> HttpResponse:
    """The study's name, description and reliability report facts (managers)."""
    study, role = _study_for(request, study_pk)
    if not role_allows(role, Role.MANAGER):
        return HttpResponse(EDIT_REFUSAL, status=403, content_type="text/plain; charset=utf-8")
    form = StudyForm(request.POST or None, instance=Study.objects.get(pk=study.pk))
    if request.method == "POST" and not form.is_valid() and _wants_json(request):
        return _refused(request, form)
    if request.method == "POST" and form.is_valid():
        try:
            study_update(study=study, **form.cleaned_data)
        except ValidationError as error:
            if _wants_json(request):
                return _refused(request, form, _errors_of(error))
            messages.error(request, _errors_of(error))
        else:
            if _wants_json(request):
                return _study_body(study, 200)
            messages.success(request, "Saved.")
            return redirect("pages:study-detail", study.pk)
    return render(request, "pages/study_form.html", {"form": form, "study": study})
