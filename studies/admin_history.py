"""The study admin's history: the agreement chart, the latest results and computations.

``StudyHistoryAdminMixin`` goes first in ``StudyAdmin``'s bases (``studies/admin.py``);
its change form (``templates/admin/studies/study/change_form.html``) shows, below the
fields, the same charts and tables as the site's study page, read through the same
selectors (nothing is recomputed).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse

from studies import charts
from studies.models import Study
from studies.selectors_pages import history_by_coefficient, question_headlines, study_computations
from studies.services.history import study_history

ADMIN_COMPUTATIONS = 15


def study_history_context(study: Study) -> dict[str, Any]:
    """The charts (with their tables), each question's latest result and recent computations."""
    history = study_history(study=study)
    return {
        "history_charts": [
            (item, charts.history_chart(item, chart_id=f"admin-history-{item.coefficient}"))
            for item in history_by_coefficient(history)
        ],
        "history_headlines": question_headlines(history),
        "history_computations": study_computations(study=study, limit=ADMIN_COMPUTATIONS),
    }


class StudyHistoryAdminMixin:
    """Adds the history chart and the latest results to a study's change page."""

    change_form_template = "admin/studies/study/change_form.html"

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        context = dict(extra_context or {})
        study = Study.objects.filter(pk=object_id).first() if str(object_id).isdigit() else None
        if study is not None:
            context.update(study_history_context(study))
        return super().change_view(request, object_id, form_url, context)  # type: ignore[misc]
