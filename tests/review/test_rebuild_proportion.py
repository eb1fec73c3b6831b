"""The review queue's rebuild writes in batches of bounded statements (issue 25, finding 1).

A second computation of a 40,000-item round refreshed 35,542 open entries with one UPDATE
of four CASE expressions of 35,542 branches each: quadratic, 41 minutes in PostgreSQL. Here
the round is rebuilt three times (entries added, then refreshed with other labels, then
gone) at n and 2n items with a batch of 10 rows: twice the items send at most twice the
statements, none of them longer, and none a CASE per row.

The round: coders c1 and c2 label every item; the rule flags disagreement.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from django.db import connection

from review.models import ReviewEntry, ReviewResolution
from review.services import review_queue_rebuild, review_rule_set
from studies.models import Annotation, Category, Item, Round
from tests.computations.helpers import nominal_question
from tests.factories import CoderFactory, RoundFactory, StudyFactory
from tests.proportion_sql import statements
from tests.services import database_url

BATCH = 10


@pytest.fixture
def small_batches(settings: Any) -> None:
    settings.AGREEMENT_WRITE_BATCH_SIZE = BATCH


class Queue:
    """A round of ``n`` items whose labels the test sets, and its rebuild."""

    def __init__(self, n: int) -> None:
        study = StudyFactory()
        self.question = nominal_question(study, key="sentiment")
        self.round: Round = RoundFactory(study=study)
        self.codes = {c.code: c for c in Category.objects.filter(question=self.question)}
        self.coders = [CoderFactory(study=study, key=f"c{k}") for k in (1, 2)]
        self.items = Item.objects.bulk_create(
            Item(study=study, external_id=f"u{k:05d}") for k in range(n)
        )
        review_rule_set(question=self.question, disagreement=True)

    def label(self, first: str, second: str, items: slice = slice(None)) -> None:
        """The items (all by default): c1 gives ``first``, c2 ``second``."""
        chosen = self.items[items]
        Annotation.objects.filter(round=self.round, item__in=chosen).delete()
        Annotation.objects.bulk_create(
            Annotation(
                round=self.round,
                question=self.question,
                item=item,
                coder=coder,
                category=self.codes[code],
            )
            for item in chosen
            for coder, code in zip(self.coders, (first, second), strict=True)
        )

    def rebuild(self) -> list[int]:
        return review_queue_rebuild(round_=self.round, question=self.question)

    def open_labels(self) -> set[tuple[str, str]]:
        return {
            (entry["c1"], entry["c2"])
            for entry in ReviewEntry.objects.filter(
                round=self.round, resolved_at__isnull=True
            ).values_list("labels", flat=True)
        }


def three_rebuilds(n: int) -> dict[str, list[str]]:
    """The statements of each rebuild: entries added, refreshed, gone."""
    queue = Queue(n)
    sent = {}
    queue.label("a", "b")
    sent["added"] = statements(queue.rebuild)
    assert queue.open_labels() == {("a", "b")}
    entries = ReviewEntry.objects.filter(round=queue.round)
    ids = set(entries.values_list("pk", flat=True))
    assert len(ids) == n
    queue.label("a", "c")
    sent["refreshed"] = statements(queue.rebuild)
    assert queue.open_labels() == {("a", "c")}
    assert set(entries.values_list("pk", flat=True)) == ids  # updated in place
    queue.label("b", "b")
    sent["gone"] = statements(queue.rebuild)
    assert not queue.open_labels()
    assert set(entries.values_list("resolution", flat=True)) == {ReviewResolution.REANNOTATED}
    return sent


@pytest.mark.django_db
@pytest.mark.usefixtures("small_batches")
def test_twice_the_items_twice_the_statements_none_longer_none_a_case_per_row() -> None:
    n = 6 * BATCH
    small, large = three_rebuilds(n), three_rebuilds(2 * n)
    for step in ("added", "refreshed", "gone"):
        assert len(large[step]) <= 2 * len(small[step]), step
        longest_small = max(map(len, small[step]))
        assert max(map(len, large[step])) <= longest_small * 1.05, step
        assert not [sql for sql in large[step] if " CASE " in sql.upper()], step
    # Each batch is its own statement: the refresh of 2n entries sent at least 2n / BATCH.
    writes = [sql for sql in large["refreshed"] if 'UPDATE "review_reviewentry"' in sql]
    assert len(writes) >= 2 * n // BATCH


@pytest.mark.django_db
@pytest.mark.usefixtures("small_batches")
def test_an_unchanged_round_rewrites_no_entry() -> None:
    queue = Queue(3 * BATCH)
    queue.label("a", "b")
    added = queue.rebuild()
    assert len(added) == 3 * BATCH
    again = statements(queue.rebuild)
    assert not [sql for sql in again if sql.lstrip().upper().startswith(("UPDATE", "INSERT"))]
    assert queue.open_labels() == {("a", "b")}


# Locks --------------------------------------------------------------------------------------------


def _try(other: psycopg.Connection[Any], sql: str, params: list[Any]) -> str:
    """'free' if ``sql`` got its row locks at once (then rolled back), 'locked' if not."""
    try:
        with other.transaction():
            other.execute(sql, params)
            raise psycopg.Rollback
    except psycopg.errors.LockNotAvailable:
        return "locked"
    return "free"


@pytest.mark.services
@pytest.mark.usefixtures("small_batches")
def test_the_rebuild_locks_its_open_entries_and_not_the_study_round_question_or_items(
    transactional_db: None, postgres_required: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Inside the rebuild's transaction, once every batch is written (the most it holds),
    # another session tries the locks of a PATCH of the study, an upload to the round, a
    # change of the question and of an item, and a person resolving an entry.
    from review import services

    # Thirds of the items: the probed rebuild refreshes the first's entries, closes the
    # second's and adds the third's: every kind of write.
    queue = Queue(3 * BATCH)
    first, second, third = (slice(k * BATCH, (k + 1) * BATCH) for k in range(3))
    queue.label("a", "b", first)
    queue.label("a", "b", second)
    queue.label("c", "c", third)
    queue.rebuild()
    queue.label("a", "c", first)
    queue.label("b", "b", second)
    queue.label("a", "b", third)
    entry = ReviewEntry.objects.filter(round=queue.round).order_by("pk").first()
    assert entry is not None
    seen: dict[str, str] = {}
    write = services._store

    def store_and_look(*args: Any) -> list[int]:
        added = write(*args)
        with psycopg.connect(database_url(connection.settings_dict), autocommit=True) as other:
            other.execute("SET lock_timeout = '200ms'")
            nowait = "SELECT 1 FROM {} WHERE id = %s FOR UPDATE NOWAIT"
            seen["study"] = _try(
                other,
                "UPDATE studies_study SET name = 'renamed' WHERE id = %s",
                [queue.round.study_id],
            )
            seen["round"] = _try(other, nowait.format("studies_round"), [queue.round.pk])
            seen["question"] = _try(other, nowait.format("studies_question"), [queue.question.pk])
            seen["item"] = _try(other, nowait.format("studies_item"), [queue.items[0].pk])
            seen["entry"] = _try(other, nowait.format("review_reviewentry"), [entry.pk])
        return added

    monkeypatch.setattr(services, "_store", store_and_look)
    added = queue.rebuild()
    assert len(added) == BATCH
    assert seen == {
        "study": "free",
        "round": "free",
        "question": "free",
        "item": "free",
        "entry": "locked",
    }
    assert queue.open_labels() == {("a", "c"), ("a", "b")}


@pytest.mark.django_db
def test_every_row_lock_of_the_rebuild_and_the_rule_names_its_own_table() -> None:
    # FOR UPDATE without OF locks every table of the query: the model orderings of entries
    # and rules join the question, the round, the item and the study.
    if connection.vendor != "postgresql":
        pytest.skip("SQLite takes no row locks")
    queue = Queue(BATCH)
    queue.label("a", "b")
    sent = statements(queue.rebuild) + statements(
        lambda: review_rule_set(question=queue.question, min_coders=2)
    )
    locks = [sql[sql.index("FOR UPDATE") :] for sql in sent if "FOR UPDATE" in sql]
    assert sorted(locks) == [
        'FOR UPDATE OF "review_reviewentry"',
        'FOR UPDATE OF "review_reviewrule"',
    ]
