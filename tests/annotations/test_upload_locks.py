"""The locks an upload holds while it writes (issue 25): its round's row, and nothing of the
study's other rows.

An upload (and a CSV ingest, which can take minutes) locks its round so that uploads to one
round are serialised and the round cannot be closed halfway. Its lock used to be taken by a
query ordered by the round's model ordering, which joins the study, so FOR UPDATE locked the
study's row too: a PATCH of the study, an upload to another round and a computation request
waited for the whole ingest. PostgreSQL only (SQLite locks the whole database).
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from django.db import connection

from annotations.ingest import annotations_ingest_csv
from studies.access import Actor
from studies.models import Annotation, Study
from tests.api.annotation_setup import Scheme, build_scheme
from tests.factories import RoundFactory
from tests.services import database_url

pytestmark = pytest.mark.services


@pytest.fixture
def scheme(transactional_db: None, postgres_required: str, study: Study) -> Scheme:
    return build_scheme(study)


def _try(other: psycopg.Connection[Any], sql: str, params: list[Any]) -> str:
    """'free' if ``sql`` got its row locks at once (then rolled back), 'locked' if not."""
    try:
        with other.transaction():
            other.execute(sql, params)
            raise psycopg.Rollback
    except psycopg.errors.LockNotAvailable:
        return "locked"
    return "free"


def test_an_ingest_locks_its_round_against_uploads_and_nothing_else(scheme: Scheme) -> None:
    other_round = RoundFactory(study=scheme.study, name="Round 2", position=2)
    seen: dict[str, str] = {}

    def look(rows: int) -> None:
        # After the first batch, inside the ingest's transaction.
        if seen:
            return
        with psycopg.connect(database_url(connection.settings_dict), autocommit=True) as other:
            other.execute("SET lock_timeout = '200ms'")
            lock = "SELECT 1 FROM studies_round WHERE id = %s FOR {} NOWAIT"
            seen["study"] = _try(
                other,
                "UPDATE studies_study SET name = 'renamed' WHERE id = %s",
                [scheme.study.pk],
            )
            seen["other round"] = _try(other, lock.format("UPDATE"), [other_round.pk])
            # A computation request names the round (a foreign key: KEY SHARE).
            seen["round, key share"] = _try(other, lock.format("KEY SHARE"), [scheme.round.pk])
            # Another upload to the round, or closing it.
            seen["round, upload"] = _try(other, lock.format("NO KEY UPDATE"), [scheme.round.pk])

    report = annotations_ingest_csv(
        study=scheme.study,
        round_ref=scheme.round.pk,
        question_key="sentiment",
        lines=["item,coder,label\n", "doc-1,alice,pos\n", "doc-2,alice,neg\n"],
        actor=Actor(user=None, token=None),
        batch_size=1,
        progress=look,
    )
    assert report.created == 2
    assert seen == {
        "study": "free",
        "other round": "free",
        "round, key share": "free",
        "round, upload": "locked",
    }
    assert Annotation.objects.filter(round=scheme.round).count() == 2
