"""A relation question's upload and declaration: offsets checked against the document,
undirected labels stored in document order (both directions refused), ``undirected`` only
on relation questions and fixed once annotations exist."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from studies.models import Annotation, Category, Study
from tests.factories import ItemFactory, RoundFactory

pytestmark = pytest.mark.django_db

TEXT = "Alice met Bob in Paris."  # 23 characters


def _declare(study: Study, client: APIClient) -> None:
    RoundFactory(study=study, name="Round 1", position=1)
    ItemFactory(study=study, external_id="d1", text=TEXT)
    response = client.post(
        f"/api/v1/studies/{study.pk}/questions/",
        {
            "key": "rel",
            "kind": "relation",
            "categories": [{"code": "works_for"}, {"code": "knows", "undirected": True}],
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert [(c["code"], c["undirected"]) for c in response.json()["categories"]] == [
        ("works_for", False),
        ("knows", True),
    ]


def _row(document: str, hb: Any, he: Any, tb: Any, te: Any, label: str) -> dict[str, Any]:
    return {
        "document": document,
        "coder": "ann",
        "head_begin": hb,
        "head_end": he,
        "tail_begin": tb,
        "tail_end": te,
        "label": label,
    }


def _upload(client: APIClient, study: Study, rows: list[Any]) -> Any:
    return client.post(
        f"/api/v1/studies/{study.pk}/annotations/structured/",
        {"round": "Round 1", "question": "rel", "rows": rows},
        format="json",
    )


@pytest.mark.parametrize(
    ("row", "error"),
    [
        (_row("d1", 5, 0, 10, 13, "works_for"), ("end_before_begin", "rows.0.head_end")),
        (_row("d1", 0, 5, 10, 10, "works_for"), ("end_before_begin", "rows.0.tail_end")),
        (_row("d1", 0.5, 5, 10, 13, "works_for"), ("not_an_integer", "rows.0.head_begin")),
        (_row("d1", -1, 5, 10, 13, "works_for"), ("negative_offset", "rows.0.head_begin")),
        (_row("d1", 0, 5, 10, 24, "works_for"), ("outside_document", "rows.0.tail_end")),
        (_row("d1", 0, 5, 10, 13, "married_to"), ("unknown_category", "rows.0.label")),
        (_row("d1", 0, 5, "", 13, "works_for"), ("required", "rows.0.tail_begin")),
    ],
)
def test_a_bad_relation_is_refused_naming_its_row_and_field(
    row: dict[str, Any], error: tuple[str, str], study: Study, manager_client: APIClient
) -> None:
    _declare(study, manager_client)
    response = _upload(manager_client, study, [row])
    assert response.status_code == 400
    assert [(e["code"], e["attr"]) for e in response.json()["errors"]] == [error]
    assert not Annotation.objects.exists()


def test_an_undirected_relation_in_both_directions_is_one_relation_given_twice(
    study: Study, manager_client: APIClient
) -> None:
    _declare(study, manager_client)
    rows = [_row("d1", 10, 13, 0, 5, "knows"), _row("d1", 0, 5, 10, 13, "knows")]
    response = _upload(manager_client, study, rows)
    assert response.status_code == 400
    assert [(e["code"], e["attr"]) for e in response.json()["errors"]] == [
        ("duplicate_row", "rows.1.label")
    ]
    # A directed label's two directions are two relations.
    rows = [_row("d1", 10, 13, 0, 5, "works_for"), _row("d1", 0, 5, 10, 13, "works_for")]
    assert _upload(manager_client, study, rows).status_code == 200
    (stored,) = Annotation.objects.values_list("units", flat=True)
    works_for = Category.objects.get(code="works_for").pk
    assert stored == [[0, 5, 10, 13, works_for], [10, 13, 0, 5, works_for]]


def test_a_document_without_text_takes_any_offsets_and_an_empty_row_is_no_relation(
    study: Study, manager_client: APIClient
) -> None:
    _declare(study, manager_client)
    rows = [
        _row("new-doc", 100, 200, 300, 400, "works_for"),
        {"document": "d1", "coder": "ann"},
    ]
    response = _upload(manager_client, study, rows)
    assert response.status_code == 200, response.json()
    stored = dict(Annotation.objects.values_list("item__external_id", "units"))
    assert stored["d1"] == []
    assert len(stored["new-doc"]) == 1


def test_undirected_is_refused_on_other_kinds(study: Study, manager_client: APIClient) -> None:
    response = manager_client.post(
        f"/api/v1/studies/{study.pk}/questions/",
        {"key": "q", "kind": "nominal", "categories": [{"code": "a", "undirected": True}]},
        format="json",
    )
    assert response.status_code == 400
    assert [(e["code"], e["attr"]) for e in response.json()["errors"]] == [
        ("undirected_not_allowed", "categories.0.undirected")
    ]


def test_undirected_changes_only_before_the_first_annotation(
    study: Study, manager_client: APIClient
) -> None:
    _declare(study, manager_client)
    question = study.questions.get(key="rel")
    works_for = Category.objects.get(code="works_for")
    url = f"/api/v1/studies/{study.pk}/questions/{question.pk}/categories/{works_for.pk}/"
    response = manager_client.patch(url, {"undirected": True}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["undirected"] is True
    assert _upload(manager_client, study, [_row("d1", 0, 5, 10, 13, "knows")]).status_code == 200
    response = manager_client.patch(url, {"undirected": False}, format="json")
    assert response.status_code == 400
    assert [(e["code"], e["attr"]) for e in response.json()["errors"]] == [
        ("undirected_locked", "undirected")
    ]


def test_a_csv_in_the_clis_shape_uploads_and_its_errors_name_the_line(
    study: Study, manager_client: APIClient
) -> None:
    _declare(study, manager_client)
    url = f"/api/v1/studies/{study.pk}/annotations/structured/?round=Round%201&question=rel"
    header = "document,coder,head_begin,head_end,tail_begin,tail_end,label\n"
    bad = header + "d1,ann,0,5,10,13,works_for\nd1,bob,0,5,13,10,works_for\n"
    response = manager_client.post(url, data=bad.encode(), content_type="text/csv")
    assert response.status_code == 400
    assert [(e["code"], e["attr"]) for e in response.json()["errors"]] == [
        ("end_before_begin", "line 3.tail_end")
    ]
    assert not Annotation.objects.exists()
    good = header + "d1,ann,0,5,10,13,works_for\nd1,bob,,,,,\n"
    response = manager_client.post(url, data=good.encode(), content_type="text/csv")
    assert response.status_code == 200, response.json()
    stored = dict(Annotation.objects.values_list("coder__key", "units"))
    assert stored == {"ann": [[0, 5, 10, 13, Category.objects.get(code="works_for").pk]], "bob": []}
