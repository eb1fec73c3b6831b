"""The text question the distance-table tests share (docs/references.md#user-distance-hand-case):
items i1, i2, coders alice and bob; i1 "a" and "b", i2 "c" twice. With the table
d(a, b) = 0.5, d(a, c) = d(b, c) = 1 (``FIRST_TABLE``) alpha is 2/3."""

from __future__ import annotations

from collections.abc import Sequence

from rest_framework.test import APIClient

from studies.models import Question, Study
from tests.factories import CoderFactory, ItemFactory, RoundFactory

FIRST_TABLE = "text_a,text_b,distance\na,b,0.5\na,c,1\nb,c,1\n"
#: The same pairs with d(a, b) = 1: a replacement of ``FIRST_TABLE``.
SECOND_TABLE = "text_a,text_b,distance\na,b,1\na,c,1\nb,c,1\n"


def annotate_captions(client: APIClient, study: Study, round_name: str) -> None:
    """The four texts of the case, in ``round_name``."""
    response = client.post(
        f"/api/v1/studies/{study.pk}/annotations/structured/",
        {
            "round": round_name,
            "question": "caption",
            "rows": [
                {"item": "i1", "coder": "alice", "text": "a"},
                {"item": "i1", "coder": "bob", "text": "b"},
                {"item": "i2", "coder": "alice", "text": "c"},
                {"item": "i2", "coder": "bob", "text": "c"},
            ],
        },
        format="json",
    )
    assert response.status_code == 200, response.json()


def caption_question(
    study: Study, client: APIClient, *, rounds: Sequence[str] = ("Round 1",)
) -> Question:
    """The text question ``caption`` of ``study``, its rounds, items and coders declared,
    annotated in the first round."""
    for position, name in enumerate(rounds, start=1):
        RoundFactory(study=study, name=name, position=position)
    for key in ("i1", "i2"):
        ItemFactory(study=study, external_id=key)
    for key in ("alice", "bob"):
        CoderFactory(study=study, key=key)
    response = client.post(
        f"/api/v1/studies/{study.pk}/questions/", {"key": "caption", "kind": "text"}, format="json"
    )
    assert response.status_code == 201, response.json()
    annotate_captions(client, study, rounds[0])
    return Question.objects.get(study=study, key="caption")


def table_url(question: Question) -> str:
    return f"/api/v1/studies/{question.study_id}/questions/{question.pk}/distances/"


def upload_table(client: APIClient, question: Question, csv: str) -> None:
    response = client.post(table_url(question), csv, content_type="text/csv")
    assert response.status_code == 200, response.json()
