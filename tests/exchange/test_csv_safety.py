"""Safe exports and safe imports (issue 13, findings 1, 3, 4 and 5).

- Every CSV export neutralises text cells a spreadsheet would run as a formula (OWASP,
  "CSV Injection": a leading ``=``, ``+``, ``-``, ``@``, TAB or CR gets a ``'``), headers
  included; numeric columns keep their numbers (``-0.25`` stays ``-0.25``).
- Neutralised cells read back as written, so an export still imports back unchanged.
- API exports carry Django's ``content_disposition_header``.
- Imports refuse a long CSV line with a wrong field count, numbers outside the one rule,
  and JSON files holding a lone UTF-16 surrogate, with a 400 naming the line.

Before the fix every name below came out raw (``=HYPERLINK("http://x")`` as a live
formula), and an imported lone surrogate answered 500.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from rest_framework.test import APIClient

from computations.item_table import store_item_table
from computations.models import Computation, ComputationScope, ComputationStatus
from studies.models import Annotation, LabelKind, Question, Round, SpanUnit, Study
from studies.text_rules import restore_text, spreadsheet_text, write_csv
from tests.computations.helpers import stored_round_computation
from tests.exchange.conftest import ImportStudy, db_state
from tests.factories import (
    AnnotationFactory,
    CategoryFactory,
    CoderFactory,
    ItemFactory,
    QuestionFactory,
    RoundFactory,
)

pytestmark = pytest.mark.django_db

#: (name, the CSV cell it must come out as): the cell is the name behind a ``'``, quoted
#: by RFC 4180 where it holds a quote or a CR.
HOSTILE = [
    ('=HYPERLINK("http://x")', '"\'=HYPERLINK(""http://x"")"'),
    ("+1", "'+1"),
    ("-2+3", "'-2+3"),
    ("@SUM(A1)", "'@SUM(A1)"),
    ("\tx", "'\tx"),
    ("\rx", '"\'\rx"'),
]
#: Category codes cannot hold "/" (the hierarchy's path separator).
HOSTILE_CODES = [
    (name.replace("http://", ""), cell.replace("http://", "")) for name, cell in HOSTILE
]


# The rule itself ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "neutralised"),
    [
        ("=1+2", "'=1+2"),
        ("+1", "'+1"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("'=x", "''=x"),  # so that reading back gives "'=x", not "=x"
        ("'quoted", "'quoted"),
        ("a=b", "a=b"),
        (" =x", " =x"),
        ("", ""),
    ],
)
def test_formula_starts_get_a_quote_and_read_back_as_written(text: str, neutralised: str) -> None:
    assert spreadsheet_text(text) == neutralised
    assert restore_text(neutralised) == text


def test_numeric_columns_keep_numbers_and_neutralise_anything_else() -> None:
    text = write_csv(
        ["-coder", "value"],
        [["-x", -0.25], ["=y", "-1.5e3"], ["z", "-1+1"], ["w", None]],
        numeric={1},
    )
    assert text == "'-coder,value\n'-x,-0.25\n'=y,-1.5e3\nz,'-1+1\nw,\n"


# The exports --------------------------------------------------------------------------------


@dataclass
class HostileWorld:
    study: Study
    round: Round
    tone: Question  # nominal, one category named like the item and coder
    score: Question  # interval
    spans: Question  # span, characters
    computation: Computation


def hostile_world(
    study: Study, name: str, code: str, *, round_name: str = "Round 1"
) -> HostileWorld:
    """One item and one coder called ``name``; ``tone`` labelled with the category
    ``code``, ``score`` with -0.25, ``spans`` with the unit 0-5 of category ``code``; a
    finished computation of ``tone`` whose one coefficient is called ``name`` and one of
    ``score``, each with its stored item table."""
    round_ = RoundFactory(study=study, name=round_name, position=1)
    tone = QuestionFactory(study=study, key="tone", kind=LabelKind.NOMINAL)
    score = QuestionFactory(study=study, key="score", kind=LabelKind.INTERVAL)
    spans = QuestionFactory(
        study=study, key="spans", kind=LabelKind.SPAN, span_unit=SpanUnit.CHARACTER
    )
    tone_category = CategoryFactory(question=tone, code=code, position=0)
    span_category = CategoryFactory(question=spans, code=code, position=0)
    item = ItemFactory(study=study, external_id=name, text="Alice met Bob.")
    coder = CoderFactory(study=study, key=name)
    common = {"round": round_, "item": item, "coder": coder}
    AnnotationFactory(question=tone, category=tone_category, **common)
    AnnotationFactory(question=score, category=None, number=-0.25, **common)
    AnnotationFactory(question=spans, category=None, units=[[0, 5, span_category.pk]], **common)
    computation = Computation.objects.create(
        study=study,
        question=tone,
        scope=ComputationScope.ROUND,
        parameters={},
        params_hash="h",
        data_revision="r",
        status=ComputationStatus.DONE,
        finished_at=timezone.now(),
        n_annotations=1,
        metrics_version="test",
        results={
            "coefficients": {
                name: {"value": -0.25, "se": 0.125, "ci": {"low": -0.5, "high": 0.0, "level": 0.95}}
            }
        },
    )
    computation.rounds.set([round_])
    # The item downloads read the item tables the worker stores with a computation.
    store_item_table(computation)
    stored_round_computation(study, score, round_)
    return HostileWorld(study, round_, tone, score, spans, computation)


def export(client: APIClient, world: HostileWorld, what: str, question: str, **query: Any) -> Any:
    return client.get(
        f"/api/v1/studies/{world.study.pk}/exports/{what}/",
        {"round": world.round.pk, "question": question, "format": "csv", **query},
    )


def csv_of(response: Any) -> str:
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    return str(response.content.decode())


@pytest.mark.parametrize(
    ("name", "cell", "code", "code_cell"),
    [(*h, *c) for h, c in zip(HOSTILE, HOSTILE_CODES, strict=True)],
)
def test_every_api_csv_export_neutralises_names_and_keeps_numbers(
    study: Study, viewer_client: APIClient, name: str, cell: str, code: str, code_cell: str
) -> None:
    world = hostile_world(study, name, code)
    assert csv_of(export(viewer_client, world, "annotations", "tone")) == (
        f"item,coder,label\n{cell},{cell},{code_cell}\n"
    )
    assert csv_of(export(viewer_client, world, "annotations", "tone", shape="wide")) == (
        f"item,{cell}\n{cell},{code_cell}\n"
    )
    assert csv_of(export(viewer_client, world, "diagnostics", "tone")) == (
        f"item,n_coders,n_distinct,majority,majority_share,pairwise_agreement,{cell}\n"
        f"{cell},1,1,{code_cell},1,,{code_cell}\n"
    )
    assert csv_of(export(viewer_client, world, "annotations", "score")) == (
        f"item,coder,label\n{cell},{cell},-0.25\n"
    )
    assert csv_of(export(viewer_client, world, "annotations", "score", shape="wide")) == (
        f"item,{cell}\n{cell},-0.25\n"
    )
    assert csv_of(export(viewer_client, world, "diagnostics", "score")) == (
        "item,n_coders,n_distinct,majority,majority_share,pairwise_agreement,mean,spread,"
        f"{cell}\n{cell},1,1,-0.25,1,,-0.25,0,-0.25\n"
    )
    assert csv_of(export(viewer_client, world, "spans", "spans")) == (
        f"document,coder,begin,end,label\n{cell},{cell},0,5,{code_cell}\n"
    )
    assert csv_of(export(viewer_client, world, "results", "tone")) == (
        f"coefficient,value,se,ci_low,ci_high,ci_level\n{cell},-0.25,0.125,-0.5,0,0.95\n"
    )


@pytest.mark.parametrize(
    ("round_name", "header"),
    [
        ("Round 1", 'attachment; filename="Round-1-tone-long.csv"'),
        ('R"1', 'attachment; filename="R-1-tone-long.csv"'),
        ("R\r\n1", 'attachment; filename="R--1-tone-long.csv"'),
        (
            "Раунд 1",
            "attachment; filename*=utf-8''%D0%A0%D0%B0%D1%83%D0%BD%D0%B4-1-tone-long.csv",
        ),
        ('=HYPERLINK("http://x")', 'attachment; filename="-HYPERLINK--http---x---tone-long.csv"'),
    ],
)
def test_api_exports_name_their_file_with_a_valid_header(
    study: Study, viewer_client: APIClient, round_name: str, header: str
) -> None:
    world = hostile_world(study, "doc-1", "pos", round_name=round_name)
    response = export(viewer_client, world, "annotations", "tone")
    assert response.status_code == 200
    assert response["Content-Disposition"] == header


# Reading the exports back ------------------------------------------------------------------


# Uploads strip item and coder keys of surrounding whitespace ("\tx" is stored as "x"), so
# only names without it can be uploaded in the first place.
@pytest.mark.parametrize(
    ("name", "code"),
    [(h[0], c[0]) for h, c in zip(HOSTILE, HOSTILE_CODES, strict=True) if h[0] == h[0].strip()]
    + [("'=x", "'@y")],
)
def test_neutralised_exports_import_and_upload_back_unchanged(
    study: Study, viewer_client: APIClient, manager_client: APIClient, name: str, code: str
) -> None:
    world = hostile_world(study, name, code)
    before = db_state(study)
    for shape, fmt in (("long", "long_csv"), ("wide", "wide_csv")):
        exported = export(viewer_client, world, "annotations", "tone", shape=shape).content
        response = manager_client.post(
            f"/api/v1/studies/{study.pk}/imports/?format={fmt}&round={world.round.pk}"
            "&question=tone",
            data=exported,
            content_type="text/csv",
        )
        assert response.status_code == 200, response.json()
        assert (response.json()["created"], response.json()["unchanged"]) == (0, 1)
    spans = export(viewer_client, world, "spans", "spans").content
    response = manager_client.post(
        f"/api/v1/studies/{study.pk}/annotations/spans/?round={world.round.pk}&question=spans"
        "&create_missing=false",
        data=spans,
        content_type="text/csv",
    )
    assert response.status_code == 200, response.json()
    bulk = export(viewer_client, world, "annotations", "score").content
    response = manager_client.post(
        f"/api/v1/studies/{study.pk}/annotations/bulk/?round={world.round.pk}&question=score",
        data=bulk,
        content_type="text/csv",
    )
    assert response.status_code == 200, response.json()
    assert response.json()["unchanged"] == 1
    assert db_state(study) == before


# Strict imports ------------------------------------------------------------------------------


def import_file(
    client: APIClient, target: ImportStudy, name: str, data: bytes, **fields: Any
) -> Any:
    fields.setdefault("round", "Round 1")
    fields.setdefault("create_missing", "true")
    fields["file"] = SimpleUploadedFile(name, data)
    return client.post(f"/api/v1/studies/{target.study.pk}/imports/", fields, format="multipart")


def errors_of(response: Any) -> list[dict[str, Any]]:
    assert response.status_code == 400, response.content
    return list(response.json()["errors"])


def test_a_long_csv_line_with_a_wrong_field_count_is_rejected_by_its_line(
    annotator_client: APIClient, target: ImportStudy
) -> None:
    before = db_state(target.study)
    data = b"item,coder,label\ndoc-1,alice,pos\ndoc-2,alice,pos,neg\ndoc-2,bob\n"
    response = import_file(
        annotator_client, target, "l.csv", data, format="long_csv", question="sentiment"
    )
    assert errors_of(response) == [
        {
            "code": "field_count",
            "detail": "line 3: The line has 4 fields; the header has 3.",
            "attr": "line 3.row",
        },
        {
            "code": "field_count",
            "detail": "line 4: The line has 2 fields; the header has 3.",
            "attr": "line 4.row",
        },
    ]
    assert db_state(target.study) == before


def test_long_csv_numbers_follow_the_one_rule(
    annotator_client: APIClient, target: ImportStudy
) -> None:
    data = "item,coder,label\ndoc-1,alice,1_000\ndoc-2,alice,١٢\ndoc-2,bob,41.5\n".encode()
    response = import_file(
        annotator_client, target, "l.csv", data, format="long_csv", question="age"
    )
    rule = "ASCII digits with an optional sign, decimal point and exponent, e.g. -2.5 or 1e-3"
    assert errors_of(response) == [
        {
            "code": "not_a_number",
            "detail": f"line 2: '1_000' is not a number: write {rule}.",
            "attr": "line 2.label",
        },
        {
            "code": "not_a_number",
            "detail": f"line 3: '١٢' is not a number: write {rule}.",
            "attr": "line 3.label",
        },
    ]
    assert not Annotation.objects.filter(question__study=target.study).exists()


def test_agreement_table_counts_are_ascii_digits(
    annotator_client: APIClient, target: ImportStudy
) -> None:
    data = "item,pos,neg\ndoc-1,١,2\ndoc-2,²,1\n".encode()
    response = import_file(
        annotator_client, target, "t.csv", data, format="agreement_table", question="sentiment"
    )
    assert [(e["attr"], e["code"]) for e in errors_of(response)] == [
        ("line 2, column pos.pos", "invalid_count"),
        ("line 3, column pos.pos", "invalid_count"),
    ]


@pytest.mark.parametrize(
    ("fmt", "name", "data", "detail"),
    [
        (
            "label_studio",
            "ls.json",
            b'[{"id": 1, "data": {"text": "Hi"},\n'
            b' "annotations": [{"completed_by": "al\\ud800", "result": []}]}]',
            "line 2 holds a lone UTF-16 surrogate at [0].annotations[0].completed_by (an "
            "escape \\ud800 to \\udfff without its pair), which is no character.",
        ),
        (
            "label_studio",
            "ls.json",
            b'[{"id": 1, "data": {"text": "\\ud83d\\ude00"}, "annotations": []},\n'
            b' {"id": "\\udc00", "data": {"text": "x"}, "annotations": []}]',
            "line 2 holds a lone UTF-16 surrogate at [1].id (an escape \\ud800 to \\udfff "
            "without its pair), which is no character.",
        ),
        (
            "doccano",
            "alice.jsonl",
            b'{"id": 1, "text": "a", "label": ["pos"]}\n'
            b'{"id": 2, "text": "b", "label": ["pos"], "meta": {"doc\\udbff": 1}}\n',
            "line 2 holds a lone UTF-16 surrogate at meta.doc\\udbff (an escape \\ud800 to "
            "\\udfff without its pair), which is no character.",
        ),
    ],
)
def test_a_lone_surrogate_in_an_imported_file_is_a_400_naming_line_and_place(
    annotator_client: APIClient,
    target: ImportStudy,
    fmt: str,
    name: str,
    data: bytes,
    detail: str,
) -> None:
    before = db_state(target.study)
    response = import_file(annotator_client, target, name, data, format=fmt, question="sentiment")
    assert errors_of(response) == [{"code": "malformed_file", "detail": detail, "attr": "file"}]
    assert db_state(target.study) == before


def test_a_lone_surrogate_in_a_mapping_option_is_a_400_on_that_option(
    annotator_client: APIClient, target: ImportStudy
) -> None:
    response = import_file(
        annotator_client,
        target,
        "l.csv",
        b"item,coder,label\ndoc-1,ann,pos\n",
        format="long_csv",
        question="sentiment",
        coder_map='{"ann": "al\\ud800"}',
    )
    assert errors_of(response) == [
        {
            "code": "lone_surrogate",
            "detail": "The name at ann holds a lone UTF-16 surrogate (an escape \\ud800 to "
            "\\udfff without its pair), which is no character.",
            "attr": "coder_map",
        }
    ]
