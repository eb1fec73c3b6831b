"""The reliability report pages: a round's (or the whole study's) report by the GRRAS
checklist as HTML, Markdown, LaTeX and JSON, read from stored results
(``pages.reliability_report``); nothing is computed here."""

from __future__ import annotations

import json

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from pages.reliability_report import (
    ESTIMATE_COLUMNS,
    PROVENANCE_COLUMNS,
    ReliabilityReport,
    estimate_rows,
    provenance_rows,
    reliability_report,
    report_json,
    report_latex,
    report_markdown,
    result_downloads,
)
from pages.views import _attachment, _round_of, _study_for, site_login_required
from studies.access import role_allows
from studies.models import Role, Round, Study

#: Each written form: its content type and file suffix.
FORMATS = {
    "md": ("text/markdown; charset=utf-8", "md"),
    "tex": ("application/x-tex; charset=utf-8", "tex"),
    "json": ("application/json", "json"),
}


def _base_url(request: HttpRequest) -> str:
    return request.build_absolute_uri("/").rstrip("/")


def _render(
    request: HttpRequest, study: Study, role: Role, report: ReliabilityReport, round_: Round | None
) -> HttpResponse:
    context = {
        "study": study,
        "round": round_,
        "report": report,
        "estimate_columns": ESTIMATE_COLUMNS,
        "estimate_rows": estimate_rows(report),
        "provenance_columns": PROVENANCE_COLUMNS,
        "provenance_rows": provenance_rows(report),
        "may_edit": role_allows(role, Role.MANAGER),
    }
    return render(request, "pages/reliability_report.html", context)


def _written(request: HttpRequest, report: ReliabilityReport, name: str, fmt: str) -> HttpResponse:
    content_type, suffix = FORMATS[fmt]
    base = _base_url(request)
    if fmt == "json":
        body = json.dumps(report_json(report, base_url=base), indent=2, ensure_ascii=False)
    elif fmt == "md":
        body = report_markdown(report, base_url=base)
    else:
        body = report_latex(report)
    return _attachment(body, f"{name}-reliability.{suffix}", content_type)


@require_GET
@site_login_required
def round_reliability_view(request: HttpRequest, study_pk: int, round_pk: int) -> HttpResponse:
    study, role = _study_for(request, study_pk)
    round_ = _round_of(study, round_pk)
    report = reliability_report(study=study, round_=round_, urls=result_downloads)
    return _render(request, study, role, report, round_)


@require_GET
@site_login_required
def round_reliability_download(
    request: HttpRequest, study_pk: int, round_pk: int, fmt: str
) -> HttpResponse:
    study, _ = _study_for(request, study_pk)
    round_ = _round_of(study, round_pk)
    report = reliability_report(study=study, round_=round_, urls=result_downloads)
    return _written(request, report, f"study{study.pk}-{round_.name}", fmt)


@require_GET
@site_login_required
def study_reliability_view(request: HttpRequest, study_pk: int) -> HttpResponse:
    study, role = _study_for(request, study_pk)
    report = reliability_report(study=study, round_=None, urls=result_downloads)
    return _render(request, study, role, report, None)


@require_GET
@site_login_required
def study_reliability_download(request: HttpRequest, study_pk: int, fmt: str) -> HttpResponse:
    study, _ = _study_for(request, study_pk)
    report = reliability_report(study=study, round_=None, urls=result_downloads)
    return _written(request, report, f"study{study.pk}", fmt)
