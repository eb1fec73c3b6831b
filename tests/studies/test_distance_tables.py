"""A free-text question's user-supplied distance table (``studies.distance_tables``): the
upload's checks, each error naming its row and field; the API; a computation with the
distance ``user``.

The computation's hand case (docs/references.md#user-distance-hand-case): two items, two
coders; item 1 alice "a", bob "b"; item 2 both "c"; the table d(a, b) = 0.5, d(a, c) =
d(b, c) = 1. Values a, b, c, c (n = 4). D_o = (2 · 0.5 / (2 − 1)) / 4 = 0.25; D_e = the
ordered pairs of values, (a, b) twice at 0.5, (a, c) and (b, c) four times each at 1, over
n (n − 1) = 12: 9 / 12 = 0.75; alpha = 1 − 0.25 / 0.75 = 2/3 (the ``krippendorff`` package
0.9.0 with the table as its callable: 0.6666666666666667).
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from rest_framework.test import APIClient

from studies.distance_tables import (
    MAX_DISTANCE_PAIRS,
    DistanceRow,
    checked_pairs,
    distance_rows_from_csv,
)
from studies.models import Question, QuestionDistanceTable, Study
from tests.distance_table_case import caption_question, table_url

USER_ALPHA = 2 / 3
TABLE_CSV = "text_a,text_b,distance\na,b,0.5\nc,a,1\nb,c,1\nc,c,0\n"


def _errors(rows: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    with pytest.raises(ValidationError) as raised:
        checked_pairs([DistanceRow(cells, f"rows.{i}") for i, cells in enumerate(rows)])
    return [
        (attr, error.code or "", str(error.message))
        for attr, errors in raised.value.error_dict.items()
        for error in errors
    ]


def test_pairs_are_kept_once_in_text_order_without_the_diagonal() -> None:
    rows = distance_rows_from_csv(TABLE_CSV)
    assert [row.where for row in rows] == ["line 2", "line 3", "line 4", "line 5"]
    assert checked_pairs(rows) == [["a", "b", 0.5], ["a", "c", 1.0], ["b", "c", 1.0]]


def test_both_orders_with_the_same_distance_are_one_pair() -> None:
    rows = [
        {"text_a": "x", "text_b": "y", "distance": 2},
        {"text_a": "y", "text_b": "x", "distance": "2"},
    ]
    assert checked_pairs([DistanceRow(c, f"rows.{i}") for i, c in enumerate(rows)]) == [
        ["x", "y", 2.0]
    ]


def test_spaces_are_part_of_a_text_in_csv() -> None:
    rows = distance_rows_from_csv("text_a,text_b,distance\n a,a ,0.25\n")
    assert checked_pairs(rows) == [[" a", "a ", 0.25]]


def test_each_bad_row_is_named_with_its_field() -> None:
    assert _errors(
        [
            {"text_a": "x", "text_b": "y", "distance": -0.1},
            {"text_a": "x", "text_b": "x", "distance": 0.2},
            {"text_a": "y", "text_b": "x", "distance": 0.3},
            {"text_a": "x", "text_b": "z", "distance": "far"},
            {"text_b": "z", "distance": 1},
            {"text_a": "p", "text_b": "q", "distance": 1},
            {"text_a": "p", "text_b": "q", "distance": 1},
            {"text_a": "s", "text_b": "t", "distance": 1},
            {"text_a": "t", "text_b": "s", "distance": 0.5},
            {"text_a": "u", "text_b": "v", "distance": float("inf")},
        ]
    ) == [
        (
            "rows.0.distance",
            "invalid_distance",
            "A distance is a finite number, 0 or more (got -0.1).",
        ),
        ("rows.1.distance", "diagonal_not_zero", "A text's distance to itself is 0."),
        ("rows.3.distance", "not_a_number", "distance must be a number."),
        ("rows.4.text_a", "required", 'text_a is required (a text; "" is one).'),
        ("rows.6.text_b", "duplicate_pair", "This pair is given already (rows.5)."),
        (
            "rows.8.distance",
            "not_symmetric",
            "The pair in the other order (rows.7) has the distance 1: a distance is symmetric.",
        ),
        (
            "rows.9.distance",
            "invalid_distance",
            "A distance is a finite number, 0 or more (got inf).",
        ),
    ]


def test_a_csv_without_the_columns_is_refused() -> None:
    with pytest.raises(ValidationError) as raised:
        distance_rows_from_csv("a,b,d\nx,y,1\n")
    assert raised.value.message_dict == {
        "header": [
            "The CSV header lacks text_a, text_b, distance; expected text_a,text_b,distance."
        ]
    }


def test_the_size_is_bounded() -> None:
    rows = [DistanceRow({"text_a": "x", "text_b": "y", "distance": 1}, "r")] * (
        MAX_DISTANCE_PAIRS + 1
    )
    with pytest.raises(ValidationError) as raised:
        checked_pairs(rows)
    assert raised.value.message_dict == {"rows": ["A distance table has at most 200,000 rows."]}


# Through the API and a computation -------------------------------------------------------


@pytest.fixture
def caption(study: Study, manager_client: APIClient) -> Question:
    return caption_question(study, manager_client)


def _compute(client: APIClient, question: Question, on_commit: Any) -> dict[str, Any]:
    with on_commit(execute=True):
        posted = client.post(
            f"/api/v1/studies/{question.study_id}/computations/",
            {"question": "caption", "round": "Round 1", "distance": "user", "bootstrap": 0},
            format="json",
        )
    assert posted.status_code == 202, posted.json()
    return dict(client.get(posted["Location"]).json())


@pytest.mark.django_db
def test_an_uploaded_table_gives_the_alpha_of_its_distances(
    caption: Question, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    assert manager_client.get(table_url(caption)).json() == {
        "question": "caption",
        "n_pairs": 0,
        "uploaded_at": None,
        "fingerprint": None,
    }
    posted = manager_client.post(table_url(caption), TABLE_CSV, content_type="text/csv")
    assert posted.status_code == 200, posted.json()
    assert (posted.json()["question"], posted.json()["n_pairs"]) == ("caption", 3)
    # The SHA-256 of the checked pairs written out as JSON without spaces.
    canonical = '[["a","b",0.5],["a","c",1.0],["b","c",1.0]]'
    assert posted.json()["fingerprint"] == hashlib.sha256(canonical.encode()).hexdigest()
    done = _compute(manager_client, caption, django_capture_on_commit_callbacks)
    assert done["status"] == "done", done.get("error")
    assert done["results"]["distance"] == "user"
    alpha = done["results"]["coefficients"]["alpha"]
    assert alpha["value"] == pytest.approx(USER_ALPHA, abs=1e-12)
    assert (alpha["observed"], alpha["expected"]) == pytest.approx((0.25, 0.75))


@pytest.mark.django_db
def test_a_pair_the_table_lacks_leaves_alpha_null_naming_the_texts(
    caption: Question, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    posted = manager_client.post(
        table_url(caption),
        {"rows": [{"text_a": "a", "text_b": "b", "distance": 0.5}]},
        format="json",
    )
    assert posted.status_code == 200, posted.json()
    done = _compute(manager_client, caption, django_capture_on_commit_callbacks)
    alpha = done["results"]["coefficients"]["alpha"]
    assert alpha["value"] is None
    assert alpha["reason"] == "The distance mapping has no entry for the texts 'a' and 'c'."


@pytest.mark.django_db
def test_without_a_table_the_user_distance_fails_saying_so(
    caption: Question, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    done = _compute(manager_client, caption, django_capture_on_commit_callbacks)
    assert done["status"] == "failed"
    assert "this question has no distance table" in done["error"]


@pytest.mark.django_db
def test_a_bad_upload_is_a_400_naming_the_line_and_writes_nothing(
    caption: Question, manager_client: APIClient
) -> None:
    response = manager_client.post(
        table_url(caption), "text_a,text_b,distance\na,b,0.5\nb,a,0.4\n", content_type="text/csv"
    )
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert (error["attr"], error["code"]) == ("line 3.distance", "not_symmetric")
    assert not QuestionDistanceTable.objects.filter(question=caption).exists()


@pytest.mark.django_db
def test_a_label_question_takes_no_table(study: Study, manager_client: APIClient) -> None:
    created = manager_client.post(
        f"/api/v1/studies/{study.pk}/questions/",
        {"key": "tone", "kind": "nominal", "categories": [{"code": "pos"}]},
        format="json",
    ).json()
    response = manager_client.post(
        f"/api/v1/studies/{study.pk}/questions/{created['id']}/distances/",
        TABLE_CSV,
        content_type="text/csv",
    )
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert (error["attr"], error["code"]) == ("question", "no_distance_table")


@pytest.mark.django_db
def test_deleting_the_table(caption: Question, manager_client: APIClient) -> None:
    manager_client.post(table_url(caption), TABLE_CSV, content_type="text/csv")
    assert manager_client.delete(table_url(caption)).status_code == 204
    assert manager_client.get(table_url(caption)).json()["n_pairs"] == 0
