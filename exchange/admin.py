"""The study admin's upload page: import a labeling tool's export file into a round.

``StudyImportAdminMixin`` goes in ``StudyAdmin``'s bases (``studies/admin.py``); it adds
``admin/studies/study/<id>/import/``, a form (file, format, round, question, options)
that calls the same ``annotations_import`` service as the API and shows its report. Staff
who may change the study may import into it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse

from exchange.formats import FORMATS
from exchange.imports import MAX_IMPORT_BYTES, annotations_import
from exchange.mapping import (
    MappingOptionError,
    category_map_from_text,
    coder_map_from_text,
    question_map_from_text,
)
from studies.access import Actor
from studies.exceptions import ApplicationError
from studies.models import Question, Round, Study

_Option = TypeVar("_Option")


class StudyImportForm(forms.Form):
    file = forms.FileField(help_text="The labeling tool's export file.")
    format = forms.ChoiceField(
        choices=[(name, f.title) for name, f in FORMATS.items()],
    )
    round = forms.ModelChoiceField(queryset=Round.objects.none())
    question = forms.ModelChoiceField(
        queryset=Question.objects.none(),
        required=False,
        help_text="For labels whose tool field names no question (doccano, CSVs...).",
    )
    question_map = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        help_text='JSON: tool field -> question key, null ignores the field: {"label": '
        '"sentiment", "comment": null}.',
    )
    category_map = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        help_text='JSON: file label -> category code, null drops the label: {"pos": '
        '"positive", "n/a": null}; for one question only: {"tone": {"good": "positive"}}.',
    )
    case_insensitive_categories = forms.BooleanField(
        required=False,
        help_text="Match labels to codes ignoring case and surrounding whitespace.",
    )
    coder_map = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        help_text="JSON: annotator name in the file -> existing coder key (or id): "
        '{"annotator_17": "alice"}.',
    )
    coder = forms.CharField(
        required=False,
        help_text="The annotator of a one-annotator file (doccano, CoNLL, a WebAnno TSV file).",
    )
    document_key = forms.CharField(
        required=False,
        max_length=200,
        help_text="What names a document: id (the tool's own, default), text (a hash of the "
        "text, the same in every tool), or a field of the task's data (e.g. doc_id).",
    )
    layer = forms.CharField(
        required=False,
        max_length=300,
        help_text="INCEpTION TSV: the span layer (Layer or Layer.feature; default "
        "NamedEntity.value).",
    )
    create_missing = forms.BooleanField(
        required=False, initial=True, help_text="Create unknown items and coders."
    )
    dry_run = forms.BooleanField(
        required=False, initial=True, help_text="Only show the report; write nothing."
    )
    partial = forms.BooleanField(
        required=False, help_text="Write the valid rows even when others are rejected."
    )

    def __init__(self, *args: Any, study: Study, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["round"].queryset = Round.objects.filter(study=study)  # type: ignore[attr-defined]
        self.fields["question"].queryset = Question.objects.filter(study=study)  # type: ignore[attr-defined]

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if upload.size > MAX_IMPORT_BYTES:
            raise forms.ValidationError(
                f"At most {MAX_IMPORT_BYTES // (1024 * 1024)} MB; split the file."
            )
        return upload

    def clean_question_map(self) -> dict[str, str | None]:
        return _option(question_map_from_text, self.cleaned_data["question_map"])

    def clean_category_map(self) -> dict[str, str | dict[str, str | None] | None]:
        return _option(category_map_from_text, self.cleaned_data["category_map"])

    def clean_coder_map(self) -> dict[str, str | int]:
        return _option(coder_map_from_text, self.cleaned_data["coder_map"])


def _option(read: Callable[[str], _Option], text: str) -> _Option:
    try:
        return read(text)
    except MappingOptionError as error:
        raise forms.ValidationError(str(error)) from None


class StudyImportAdminMixin:
    """Adds the "Import annotations" page to the study admin."""

    admin_site: Any
    model: type[Study]

    def get_urls(self) -> list[URLPattern]:
        urls: list[URLPattern] = super().get_urls()  # type: ignore[misc]
        view = self.admin_site.admin_view(self.import_view)
        return [path("<path:object_id>/import/", view, name="studies_study_import"), *urls]

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        context = dict(extra_context or {})
        if str(object_id).isdigit():
            context["import_url"] = reverse(
                f"{self.admin_site.name}:studies_study_import", args=[object_id]
            )
        return super().change_view(request, object_id, form_url, context)  # type: ignore[misc]

    def import_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        study = Study.objects.filter(pk=object_id).first() if object_id.isdigit() else None
        if study is None:
            raise Http404("No such study.")
        if not self.has_change_permission(request, study):  # type: ignore[attr-defined]
            raise PermissionDenied
        report = None
        if request.method == "POST":
            form = StudyImportForm(request.POST, request.FILES, study=study)
            if form.is_valid():
                report = self._run(request, study, form)
        else:
            form = StudyImportForm(study=study)
        context = {
            **self.admin_site.each_context(request),
            "title": f"Import annotations into {study}",
            "opts": self.model._meta,
            "original": study,
            "form": form,
            "report": report,
            "formats": list(FORMATS.values()),
        }
        return TemplateResponse(request, "admin/studies/study/import.html", context)

    def _run(self, request: HttpRequest, study: Study, form: StudyImportForm) -> Any:
        data = form.cleaned_data
        upload = data["file"]
        try:
            report = annotations_import(
                study=study,
                format_name=data["format"],
                data=upload.read(),
                round_ref=data["round"].pk,
                question_key=data["question"].key if data["question"] else None,
                question_map=data["question_map"],
                category_map=data["category_map"],
                case_insensitive_categories=data["case_insensitive_categories"],
                coder_map=data["coder_map"],
                create_missing=data["create_missing"],
                dry_run=data["dry_run"],
                partial=data["partial"],
                coder=data["coder"] or None,
                filename=upload.name,
                document_key=data["document_key"] or "id",
                layer=data["layer"] or None,
                actor=Actor(user=request.user, token=None),
            )
        except ValidationError as error:
            for message in error.messages:
                form.add_error(None, message)
            return None
        except ApplicationError as error:
            form.add_error(None, error.message)
            return None
        if report.committed:
            self.message_user(  # type: ignore[attr-defined]
                request,
                f"Imported: {report.created} created, {report.updated} updated, "
                f"{report.unchanged} unchanged.",
                messages.SUCCESS,
            )
        elif report.dry_run:
            self.message_user(request, "Dry run: nothing was written.", messages.INFO)  # type: ignore[attr-defined]
        else:
            self.message_user(  # type: ignore[attr-defined]
                request,
                f"Nothing was written: {report.rejected_count} row(s) rejected.",
                messages.ERROR,
            )
        return report
