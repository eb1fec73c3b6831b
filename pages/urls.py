"""The site's pages (mounted at the site root by ``agreement_server/urls.py``)."""

from __future__ import annotations

from django.urls import path, re_path, register_converter

from pages import views
from pages.adjudication import (
    adjudicate_view,
    adjudication_view,
    reference_request_view,
    reference_results_view,
)
from pages.help import help_view
from pages.history import study_history_view
from pages.model_page import model_view
from pages.planning import plan_request_view, plans_view
from pages.reports import (
    round_reliability_download,
    round_reliability_view,
    study_reliability_download,
    study_reliability_view,
)
from pages.review import review_queue_view
from pages.study_forms import study_create_view, study_edit_view
from studies.selectors import QUESTION_REF_REGEX


class _IdConverter:
    """A database id: at most 18 digits, so a huge number is a 404, not a database error."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


class _QuestionConverter:
    """A question's id or key (``pages.views._question_of`` resolves it: digits are an id
    first, as in the API); a value that names no question of the study is a 404 page."""

    regex = QUESTION_REF_REGEX

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: int | str) -> str:
        return str(value)


register_converter(_IdConverter, "id")
register_converter(_QuestionConverter, "question")

app_name = "pages"

_REPORT = "studies/<id:study_pk>/rounds/<id:round_pk>/questions/<question:question_pk>"
_QUESTION_GROUP = rf"(?P<question_pk>{QUESTION_REF_REGEX})"

urlpatterns = [
    path("", views.study_list_view, name="study-list"),
    path("studies/new/", study_create_view, name="study-create"),
    re_path(r"^help/(?P<name>[a-z0-9][a-z0-9-]{0,60})/$", help_view, name="help"),
    path("studies/<id:study_pk>/", views.study_detail_view, name="study-detail"),
    path("studies/<id:study_pk>/edit/", study_edit_view, name="study-edit"),
    path("studies/<id:study_pk>/history/", study_history_view, name="study-history"),
    path("studies/<id:study_pk>/report/", study_reliability_view, name="study-reliability"),
    re_path(
        r"^studies/(?P<study_pk>[0-9]{1,18})/report\.(?P<fmt>md|tex|json)$",
        study_reliability_download,
        name="study-reliability-download",
    ),
    path(
        "studies/<id:study_pk>/rounds/<id:round_pk>/report/",
        round_reliability_view,
        name="round-reliability",
    ),
    re_path(
        r"^studies/(?P<study_pk>[0-9]{1,18})/rounds/(?P<round_pk>[0-9]{1,18})/"
        r"report\.(?P<fmt>md|tex|json)$",
        round_reliability_download,
        name="round-reliability-download",
    ),
    path(
        "studies/<id:study_pk>/computations/request/",
        views.computation_request_view,
        name="computation-request",
    ),
    path(
        "studies/<id:study_pk>/computations/pending/",
        views.computations_pending_view,
        name="computations-pending",
    ),
    path(
        "studies/<id:study_pk>/computations/<id:computation_pk>/status/",
        views.computation_status_view,
        name="computation-status",
    ),
    path(
        "studies/<id:study_pk>/rounds/<id:round_pk>/",
        views.round_report_view,
        name="round-report",
    ),
    path("studies/<id:study_pk>/coders/<id:coder_pk>/", views.coder_view, name="coder-detail"),
    path(
        "studies/<id:study_pk>/items/<id:item_pk>/image", views.item_image_view, name="item-image"
    ),
    path("studies/<id:study_pk>/models/<id:coder_pk>/", model_view, name="model-detail"),
    path("studies/<id:study_pk>/plans/", plans_view, name="plans"),
    path("studies/<id:study_pk>/plans/request/", plan_request_view, name="plan-request"),
    re_path(
        r"^studies/(?P<study_pk>[0-9]{1,18})/rounds/(?P<round_pk>[0-9]{1,18})/questions/"
        rf"{_QUESTION_GROUP}/results\.(?P<fmt>csv|json)$",
        views.results_download,
        name="results-download",
    ),
    path(f"{_REPORT}/review/", review_queue_view, name="review-queue"),
    path(f"{_REPORT}/adjudication/", adjudication_view, name="adjudication"),
    path(f"{_REPORT}/adjudication/decide/", adjudicate_view, name="adjudicate"),
    path(f"{_REPORT}/reference/", reference_results_view, name="reference-results"),
    path(f"{_REPORT}/reference/request/", reference_request_view, name="reference-request"),
    path(f"{_REPORT}/items.csv", views.items_download, name="items-download"),
    path(f"{_REPORT}/items/", views.span_items_view, name="span-items"),
    path(f"{_REPORT}/items/<id:item_pk>/", views.span_document_view, name="span-document"),
    path(f"{_REPORT}/images/<id:item_pk>/", views.structured_item_view, name="structured-item"),
    re_path(
        r"^studies/(?P<study_pk>[0-9]{1,18})/rounds/(?P<round_pk>[0-9]{1,18})/questions/"
        rf"{_QUESTION_GROUP}/annotations-(?P<layout>long|wide)\.csv$",
        views.annotations_download,
        name="annotations-download",
    ),
]
