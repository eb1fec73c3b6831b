"""The model page: a model coder's alternative annotator test, its prediction-powered
estimates and its history, for a team lead to read unaided (``pages.model_coders`` words
what the workers stored)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from pages.model_coders import model_page
from pages.views import _study_for, site_login_required
from studies.models import Coder


@require_GET
@site_login_required
def model_view(request: HttpRequest, study_pk: int, coder_pk: int) -> HttpResponse:
    study, role = _study_for(request, study_pk)
    coder = Coder.objects.filter(study=study, pk=coder_pk).first()
    if coder is None or not coder.is_model:
        raise Http404("No such model coder in this study.")
    context = {
        "study": study,
        "role": role,
        "coder": coder,
        "questions": model_page(study=study, coder=coder),
    }
    return render(request, "pages/model_detail.html", context)
