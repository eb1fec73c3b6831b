"""The study admin's history: the agreement chart, the latest results and computations.

Django's admin renders ``templates/admin/studies/study/change_form.html`` for the study
change page by name, so no change to ``StudyAdmin`` is needed: the template calls the
``admin_study_history`` inclusion tag (``pages_extras``), which reads through
``study_history_context`` the same charts and tables as the site's study page (nothing is
recomputed).
"""

from __future__ import annotations

from typing import Any

from computations.selectors import study_history
from pages import charts
from pages.selectors import history_by_coefficient, question_headlines, study_computations
from studies.models import Study

ADMIN_COMPUTATIONS = 15


def study_history_context(study: Study) -> dict[str, Any]:
    """The charts (with their tables), each question's latest result and recent computations."""
    history = study_history(study=study)
    return {
        "study": study,
        "history_charts": [
            (item, charts.history_chart(item, chart_id=f"admin-history-{item.coefficient}"))
            for item in history_by_coefficient(history, chosen=study.benchmark_scale)
        ],
        "history_headlines": question_headlines(history, chosen=study.benchmark_scale),
        "history_computations": study_computations(study=study, limit=ADMIN_COMPUTATIONS),
    }
