"""A computation with the distance ``user`` records the distance table it read, and is stale
once the question's table is replaced or deleted (computations/selectors.py, ``Staleness``);
a computation with another distance is not.

The data (the hand case of tests/studies/test_distance_tables.py): two items, two coders;
item 1 alice "a", bob "b"; item 2 both "c". With the first table d(a, b) = 0.5, d(a, c) =
d(b, c) = 1, alpha = 2/3 (docs/references.md#user-distance-hand-case). With the second,
every two different texts at 1, the distance is nominal's: D_o = (2 · 1 / (2 − 1)) / 4 =
0.5; D_e = the ordered pairs of different values, (a, b) twice, (a, c) and (b, c) four
times each, all at 1, over n (n − 1) = 12: 10 / 12; alpha = 1 − 0.5 / (10 / 12) = 0.4.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from computations.models import Computation
from computations.selectors import computation_staleness, study_history
from studies.models import Question, Study
from tests.distance_table_case import (
    FIRST_TABLE,
    SECOND_TABLE,
    annotate_captions,
    caption_question,
    table_url,
    upload_table,
)

pytestmark = pytest.mark.django_db

REPLACED = "the distance table was replaced after this result"
DELETED = "the distance table was deleted after this result"


@pytest.fixture
def caption(study: Study, manager_client: APIClient) -> Question:
    return caption_question(study, manager_client, rounds=("Round 1", "Round 2"))


def _compute(
    client: APIClient, question: Question, on_commit: Any, **parameters: Any
) -> tuple[int, dict[str, Any]]:
    """The status code of the request and the computation as the API shows it."""
    with on_commit(execute=True):
        posted = client.post(
            f"/api/v1/studies/{question.study_id}/computations/",
            {"question": "caption", "round": "Round 1", "bootstrap": 0, **parameters},
            format="json",
        )
    assert posted.status_code in (200, 202), posted.json()
    body = dict(client.get(posted["Location"]).json())
    assert body["status"] == "done", body.get("error")
    return posted.status_code, body


def _read(client: APIClient, question: Question, computation_id: int) -> dict[str, Any]:
    url = f"/api/v1/studies/{question.study_id}/computations/{computation_id}/"
    return dict(client.get(url).json())


def test_replacing_the_table_makes_the_user_distance_result_stale_and_no_other(
    caption: Question, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    on_commit = django_capture_on_commit_callbacks
    upload_table(manager_client, caption, FIRST_TABLE)
    _, levenshtein = _compute(manager_client, caption, on_commit, distance="levenshtein")
    _, user = _compute(manager_client, caption, on_commit, distance="user")
    assert user["results"]["coefficients"]["alpha"]["value"] == pytest.approx(2 / 3, abs=1e-12)
    assert (user["stale"], user["stale_reason"]) == (False, None)
    assert user["distance_table_fingerprint"] != ""
    assert levenshtein["distance_table_fingerprint"] == ""

    upload_table(manager_client, caption, SECOND_TABLE)

    stale = _read(manager_client, caption, user["id"])
    assert (stale["stale"], stale["stale_reason"]) == (True, REPLACED)
    fresh = _read(manager_client, caption, levenshtein["id"])
    assert (fresh["stale"], fresh["stale_reason"]) == (False, None)
    listed = manager_client.get(f"/api/v1/studies/{caption.study_id}/computations/").json()
    marks = {row["id"]: (row["stale"], row["stale_reason"]) for row in listed["results"]}
    assert marks == {user["id"]: (True, REPLACED), levenshtein["id"]: (False, None)}


def test_the_history_api_marks_the_round_whose_table_changed(
    caption: Question, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    upload_table(manager_client, caption, FIRST_TABLE)
    _compute(manager_client, caption, django_capture_on_commit_callbacks, distance="user")
    upload_table(manager_client, caption, SECOND_TABLE)
    history = manager_client.get(f"/api/v1/studies/{caption.study_id}/history/").json()
    (entry,) = [r for r in history["questions"][0]["rounds"] if r["computation"] is not None]
    assert (entry["round_name"], entry["stale"], entry["stale_reason"]) == (
        "Round 1",
        True,
        REPLACED,
    )


def test_deleting_the_table_says_so_and_the_same_table_again_is_not_a_change(
    caption: Question, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    upload_table(manager_client, caption, FIRST_TABLE)
    _, user = _compute(manager_client, caption, django_capture_on_commit_callbacks, distance="user")
    assert manager_client.delete(table_url(caption)).status_code == 204
    assert _read(manager_client, caption, user["id"])["stale_reason"] == DELETED
    # The same distances uploaded again (other order, same pairs): the result agrees again.
    upload_table(manager_client, caption, "text_a,text_b,distance\nc,b,1\nb,a,0.5\nc,a,1\n")
    again = _read(manager_client, caption, user["id"])
    assert (again["stale"], again["stale_reason"]) == (False, None)


def test_the_request_after_a_replacement_computes_with_the_new_table(
    caption: Question, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    on_commit = django_capture_on_commit_callbacks
    upload_table(manager_client, caption, FIRST_TABLE)
    _, first = _compute(manager_client, caption, on_commit, distance="user")
    upload_table(manager_client, caption, SECOND_TABLE)
    status, second = _compute(manager_client, caption, on_commit, distance="user")
    # A new computation (202), not the one made from the first table (200).
    assert (status, second["id"] != first["id"]) == (202, True)
    assert second["results"]["coefficients"]["alpha"]["value"] == pytest.approx(0.4, abs=1e-12)
    assert (second["stale"], second["stale_reason"]) == (False, None)
    # The first table again finds the first result, fresh again.
    upload_table(manager_client, caption, FIRST_TABLE)
    status, third = _compute(manager_client, caption, on_commit, distance="user")
    assert (status, third["id"], third["stale"]) == (200, first["id"], False)


def test_changed_annotations_and_table_are_both_named(
    caption: Question, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    upload_table(manager_client, caption, FIRST_TABLE)
    _, user = _compute(manager_client, caption, django_capture_on_commit_callbacks, distance="user")
    upload_table(manager_client, caption, SECOND_TABLE)
    response = manager_client.post(
        f"/api/v1/studies/{caption.study_id}/annotations/structured/",
        {
            "round": "Round 1",
            "question": "caption",
            "rows": [{"item": "i2", "coder": "bob", "text": "d"}],
        },
        format="json",
    )
    assert response.status_code == 200, response.json()
    staleness = computation_staleness(Computation.objects.get(pk=user["id"]))
    assert staleness.reason == (
        "the annotations changed and the distance table was replaced after this result"
    )
    assert staleness.short == "annotations changed and distance table replaced since"


def _history_queries(study: Study) -> int:
    with CaptureQueriesContext(connection) as queries:
        study_history(study=study)
    return len(queries.captured_queries)


def test_the_history_reads_the_tables_in_one_query_however_many_rounds(
    caption: Question, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    """One stale round, then two: the history reads as many queries (no query per
    computation for its table)."""
    on_commit = django_capture_on_commit_callbacks
    study = Study.objects.get(pk=caption.study_id)
    upload_table(manager_client, caption, FIRST_TABLE)
    _compute(manager_client, caption, on_commit, distance="user")
    upload_table(manager_client, caption, SECOND_TABLE)
    one = _history_queries(study)
    annotate_captions(manager_client, study, "Round 2")
    upload_table(manager_client, caption, FIRST_TABLE)
    with on_commit(execute=True):
        posted = manager_client.post(
            f"/api/v1/studies/{study.pk}/computations/",
            {"question": "caption", "round": "Round 2", "bootstrap": 0, "distance": "user"},
            format="json",
        )
    assert posted.status_code == 202, posted.json()
    upload_table(manager_client, caption, SECOND_TABLE)
    history = study_history(study=study)
    assert [r["stale_reason"] for r in history["questions"][0]["rounds"]] == [REPLACED, REPLACED]
    assert _history_queries(study) == one


def _list_queries(client: APIClient, study_id: int) -> tuple[int, list[str | None]]:
    with CaptureQueriesContext(connection) as queries:
        listed = client.get(f"/api/v1/studies/{study_id}/computations/").json()
    return len(queries.captured_queries), [row["stale_reason"] for row in listed["results"]]


def test_the_list_reads_the_table_once_however_many_computations_used_it(
    caption: Question, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    on_commit = django_capture_on_commit_callbacks
    upload_table(manager_client, caption, FIRST_TABLE)
    _compute(manager_client, caption, on_commit, distance="user", seed=1)
    upload_table(manager_client, caption, SECOND_TABLE)
    one, reasons = _list_queries(manager_client, caption.study_id)
    assert reasons == [REPLACED]
    upload_table(manager_client, caption, FIRST_TABLE)
    for seed in (2, 3):
        _compute(manager_client, caption, on_commit, distance="user", seed=seed)
    upload_table(manager_client, caption, SECOND_TABLE)
    three, reasons = _list_queries(manager_client, caption.study_id)
    assert (three, reasons) == (one, [REPLACED] * 3)
