"""The site's pages (mounted at the site root by ``agreement_server/urls.py``)."""

from __future__ import annotations

from django.urls import path, re_path

from studies import views

app_name = "pages"

_REPORT = "studies/<int:study_pk>/rounds/<int:round_pk>/questions/<int:question_pk>"

urlpatterns = [
    path("", views.study_list_view, name="study-list"),
    path("studies/<int:study_pk>/", views.study_detail_view, name="study-detail"),
    path(
        "studies/<int:study_pk>/computations/request/",
        views.computation_request_view,
        name="computation-request",
    ),
    path(
        "studies/<int:study_pk>/computations/<int:computation_pk>/status/",
        views.computation_status_view,
        name="computation-status",
    ),
    path(
        "studies/<int:study_pk>/rounds/<int:round_pk>/",
        views.round_report_view,
        name="round-report",
    ),
    path("studies/<int:study_pk>/coders/<int:coder_pk>/", views.coder_view, name="coder-detail"),
    re_path(
        r"^studies/(?P<study_pk>\d+)/rounds/(?P<round_pk>\d+)/questions/(?P<question_pk>\d+)/"
        r"results\.(?P<fmt>csv|json)$",
        views.results_download,
        name="results-download",
    ),
    path(f"{_REPORT}/items.csv", views.items_download, name="items-download"),
    re_path(
        r"^studies/(?P<study_pk>\d+)/rounds/(?P<round_pk>\d+)/questions/(?P<question_pk>\d+)/"
        r"annotations-(?P<layout>long|wide)\.csv$",
        views.annotations_download,
        name="annotations-download",
    ),
]
