"""An import's change log as one batch entry (``annotations.history``), expanded on read.

The same history is made twice, in two studies: once with every annotation logged by a row
of its own (``AGREEMENT_INGEST_BATCH_LOG_MIN`` above the import's size, as before), once
with the import logged as one batch entry. The API must read the same in both: the study's
history newest first, the history of one annotation, every filter, ``since`` and the pages.
Runs on SQLite (the ORM path) and, with ``DATABASE_URL`` set to PostgreSQL, on the COPY path.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from annotations.ingest import annotations_ingest_csv
from annotations.services import annotation_delete
from studies.access import Actor
from studies.models import Annotation, AnnotationChange, Membership, Role, Study
from studies.services.scheme import category_update
from tests.api.annotation_setup import Scheme, build_scheme, bulk_url, changes_url
from tests.factories import StudyFactory, UserFactory

pytestmark = pytest.mark.django_db

CSV = (
    "item,coder,label\n"
    "doc-1,alice,pos\n"
    "doc-1,bob,neg\n"
    "doc-2,alice,neutral\n"
    "doc-3,carol,pos\n"
    "doc-3,dave,pos\n"
    "doc-4,alice,neg\n"
)
#: What the API's entries are compared on (ids and times differ between the two studies).
FIELDS = (
    "round_name", "question", "item", "coder", "action", "old_value", "new_value",
    "changed_by",
)  # fmt: skip


@dataclass
class History:
    scheme: Scheme
    client: APIClient
    before_import: datetime
    after_import: datetime


def _csv_lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _ingest(scheme: Scheme, user: Any, text: str = CSV, **options: Any) -> Any:
    return annotations_ingest_csv(
        study=scheme.study,
        round_ref=scheme.round.pk,
        question_key="sentiment",
        lines=_csv_lines(text),
        actor=Actor(user=user, token=None),
        create_missing=True,
        **options,
    )


def _upload(client: APIClient, scheme: Scheme, rows: list[tuple[str, str, str]]) -> None:
    response = client.post(
        bulk_url(scheme.study),
        {
            "round": scheme.round.pk,
            "question": "sentiment",
            "create_missing": True,
            "annotations": [{"item": i, "coder": c, "label": label} for i, c, label in rows],
        },
        format="json",
    )
    assert response.status_code == 200, response.json()


def _make_history(
    settings: Any, client_for: Callable[..., APIClient], *, batch_log_min: int
) -> History:
    """Before the import a row uploaded; the import (six annotations); after it one of them
    changed by an upload, one deleted, a category renamed, and one more upload."""
    settings.AGREEMENT_INGEST_BATCH_LOG_MIN = batch_log_min
    study = StudyFactory()
    user = UserFactory(username=f"importer-{batch_log_min}")
    Membership.objects.create(study=study, user=user, role=Role.MANAGER)
    scheme = build_scheme(study)
    client = client_for(user)
    _upload(client, scheme, [("doc-0", "alice", "neg")])
    before_import = timezone.now()
    report = _ingest(scheme, user)
    assert report.created == 6
    after_import = timezone.now()
    _upload(client, scheme, [("doc-1", "alice", "neutral"), ("doc-2", "bob", "pos")])
    doomed = Annotation.objects.get(
        round=scheme.round, question=scheme.sentiment, item__external_id="doc-3", coder__key="dave"
    )
    annotation_delete(annotation=doomed, actor=Actor(user=user, token=None))
    category_update(category=scheme.categories["pos"], code="positive")
    _upload(client, scheme, [("doc-4", "alice", "positive")])
    return History(scheme, client, before_import, after_import)


def _entry(row: dict[str, Any]) -> dict[str, Any]:
    """The fields compared; the user's name without its study's suffix."""
    entry = {key: row[key] for key in FIELDS}
    entry["changed_by"] = (entry["changed_by"] or "").split("-")[0] or None
    entry["changed_at"] = row["changed_at"]
    return entry


def _same_time_unordered(rows: list[dict[str, Any]]) -> list[list[tuple[Any, ...]]]:
    """The entries newest first, those of one instant (one import) as a sorted group: the
    order among them is the order they were written in, which the two logs need not share
    (docs/crowd-scale.md)."""
    groups: list[list[tuple[Any, ...]]] = []
    last = None
    for row in rows:
        if row["changed_at"] != last:
            groups.append([])
            last = row["changed_at"]
        groups[-1].append(tuple(str(row[key]) for key in FIELDS))
    return [sorted(group) for group in groups]


def _read(history: History, **query: Any) -> list[dict[str, Any]]:
    response = history.client.get(changes_url(history.scheme.study), query)
    assert response.status_code == 200, response.json()
    return [_entry(row) for row in response.json()["results"]]


def _compare(history: History, **query: Any) -> list[list[tuple[Any, ...]]]:
    return _same_time_unordered(_read(history, **query))


def _pages(history: History, page_size: int, **query: Any) -> tuple[int, list[dict[str, Any]]]:
    rows: list[dict[str, Any]] = []
    page = 1
    while True:
        response = history.client.get(
            changes_url(history.scheme.study), {**query, "page": page, "page_size": page_size}
        )
        body = response.json()
        rows.extend(_entry(row) for row in body["results"])
        if body["next"] is None:
            return body["count"], rows
        page += 1


@pytest.fixture
def histories(settings: Any, client_for: Callable[..., APIClient]) -> tuple[History, History]:
    per_row = _make_history(settings, client_for, batch_log_min=1_000)
    batched = _make_history(settings, client_for, batch_log_min=1)
    return per_row, batched


def test_the_import_is_one_batch_entry_standing_for_each_annotation(
    histories: tuple[History, History],
) -> None:
    per_row, batched = histories
    entries = AnnotationChange.objects.filter(study=batched.scheme.study)
    batch = entries.get(batch_size__isnull=False)
    assert (batch.batch_size, batch.item_id, batch.coder_id, batch.action) == (
        6,
        None,
        None,
        "created",
    )
    # Before: 1 upload, 6 created by the import, 2 by the upload after it (1 update, 1 new),
    # 1 deletion, 1 update. With the batch: its entry instead of the 6, plus the creations of
    # the three annotations it created that changed since (doc-1/alice, doc-3/dave,
    # doc-4/alice), each written when it first changed.
    assert AnnotationChange.objects.filter(study=per_row.scheme.study).count() == 11
    assert entries.count() == 11 - 6 + 1 + 3
    # The three annotations it created that are unchanged still carry it.
    assert Annotation.objects.filter(created_in=batch.pk).count() == 3


def test_the_study_history_reads_as_with_a_row_per_annotation(
    histories: tuple[History, History],
) -> None:
    per_row, batched = histories
    expected = _read(per_row, page_size=100)
    assert len(expected) == 11
    assert _compare(batched, page_size=100) == _same_time_unordered(expected)
    created = [row for row in expected if row["action"] == "created" and row["coder"] != "bob"]
    # The import's values as its time wrote them: "pos" before the category's renaming.
    assert {(row["item"], row["coder"], row["new_value"]) for row in created} >= {
        ("doc-1", "alice", "pos"),
        ("doc-3", "dave", "pos"),
        ("doc-3", "carol", "pos"),
    }


def test_the_history_of_one_imported_annotation_reads_as_before(
    histories: tuple[History, History],
) -> None:
    per_row, batched = histories
    for item, coder in [("doc-1", "alice"), ("doc-3", "dave"), ("doc-3", "carol")]:
        expected = _read(per_row, item=item, coder=coder)
        assert _compare(batched, item=item, coder=coder) == _same_time_unordered(expected)
        assert [row["action"] for row in _read(batched, item=item, coder=coder)] == [
            row["action"] for row in expected
        ]
    changed = _read(batched, item="doc-1", coder="alice")
    assert [(row["action"], row["old_value"], row["new_value"]) for row in changed] == [
        ("updated", "pos", "neutral"),
        ("created", None, "pos"),
    ]
    assert {row["changed_by"] for row in changed} == {"importer"}
    deleted = _read(batched, item="doc-3", coder="dave")
    assert [(row["action"], row["old_value"], row["new_value"]) for row in deleted] == [
        ("deleted", "pos", None),
        ("created", None, "pos"),
    ]


@pytest.mark.parametrize(
    "query",
    [
        {"action": "created"},
        {"action": "updated"},
        {"action": "deleted"},
        {"coder": "alice"},
        {"coder": "bob"},
        {"item": "doc-3"},
        {"question": "topics"},
    ],
)
def test_every_filter_reads_as_before(
    histories: tuple[History, History], query: dict[str, str]
) -> None:
    per_row, batched = histories
    assert _compare(batched, **query) == _compare(per_row, **query)


def test_since_reads_every_annotation_the_import_created(
    histories: tuple[History, History],
) -> None:
    per_row, batched = histories
    since = _read(batched, since=batched.before_import.isoformat(), action="created")
    assert _same_time_unordered(since) == _compare(
        per_row, since=per_row.before_import.isoformat(), action="created"
    )
    assert {(row["item"], row["coder"]) for row in since} == {
        ("doc-1", "alice"), ("doc-1", "bob"), ("doc-2", "alice"), ("doc-3", "carol"),
        ("doc-3", "dave"), ("doc-4", "alice"), ("doc-2", "bob"),
    }  # fmt: skip
    after = _read(batched, since=batched.after_import.isoformat())
    assert _same_time_unordered(after) == _compare(per_row, since=per_row.after_import.isoformat())
    assert "created" not in {row["action"] for row in after if row["coder"] != "bob"}


@pytest.mark.parametrize("page_size", [1, 2, 3, 5])
def test_pages_cut_through_the_batch_as_through_rows(
    histories: tuple[History, History], page_size: int
) -> None:
    per_row, batched = histories
    count, rows = _pages(batched, page_size)
    # Every entry once, in the order of the whole listing: no page repeats or skips one.
    assert rows == _read(batched, page_size=100)
    expected_count, expected = _pages(per_row, page_size)
    assert (count, _same_time_unordered(rows)) == (expected_count, _same_time_unordered(expected))
    assert count == len(rows) == 11


def test_the_log_of_an_import_does_not_grow_with_its_rows(settings: Any, study: Study) -> None:
    """Doubling the rows: the annotations double, the change-log rows stay one."""
    settings.AGREEMENT_INGEST_BATCH_LOG_MIN = 1
    scheme = build_scheme(study)
    logged = []
    for round_, n in ((scheme.round, 50), (None, 100)):
        if round_ is None:
            round_ = scheme.round.__class__.objects.create(study=study, name="R2", position=2)
        text = "item,coder,label\n" + "".join(f"d{i},c{i % 7},pos\n" for i in range(n))
        before = AnnotationChange.objects.count()
        report = annotations_ingest_csv(
            study=study,
            round_ref=round_.pk,
            question_key="sentiment",
            lines=_csv_lines(text),
            actor=Actor(user=None, token=None),
            create_missing=True,
            batch_size=16,
        )
        assert report.created == n
        assert Annotation.objects.filter(round=round_).count() == n
        logged.append(AnnotationChange.objects.count() - before)
    assert logged == [1, 1]


def test_below_the_setting_every_annotation_has_its_row(settings: Any, study: Study) -> None:
    settings.AGREEMENT_INGEST_BATCH_LOG_MIN = 7
    scheme = build_scheme(study)
    _ingest(scheme, None)
    assert AnnotationChange.objects.filter(batch_size__isnull=False).count() == 0
    assert AnnotationChange.objects.filter(action="created").count() == 6
    assert not Annotation.objects.filter(created_in__isnull=False).exists()


def test_a_batch_entry_goes_with_its_round_and_the_study(settings: Any, study: Study) -> None:
    settings.AGREEMENT_INGEST_BATCH_LOG_MIN = 1
    scheme = build_scheme(study)
    _ingest(scheme, None)
    assert AnnotationChange.objects.filter(batch_size=6).count() == 1
    scheme.round.delete()
    assert not AnnotationChange.objects.exists()
    assert not Annotation.objects.exists()


def test_annotations_keep_only_the_indexes_a_query_needs() -> None:
    """Primary key, the unique (round, question, item, coder) and the item's (its deletion
    cascades): docs/crowd-scale.md lists which query each serves."""
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, Annotation._meta.db_table)
    indexed = sorted(
        tuple(spec["columns"])
        for spec in constraints.values()
        if (spec["index"] or spec["unique"]) and not spec["primary_key"]
    )
    assert indexed == [("item_id",), ("round_id", "question_id", "item_id", "coder_id")]


DUPLICATED = (
    "item,coder,label\n"
    "doc-1,alice,pos\n"
    "doc-1,bob,neg\n"
    "doc-2,alice,neutral\n"
    "doc-3,carol,pos\n"
    "doc-1,bob,pos\n"  # line 6 repeats line 3, two batches later
    "doc-4,alice,neg\n"
)


def test_a_pair_repeated_in_a_later_batch_refuses_the_import(settings: Any, study: Study) -> None:
    """On PostgreSQL the first batches went straight into the annotations: taken back."""
    settings.AGREEMENT_INGEST_BATCH_LOG_MIN = 1
    scheme = build_scheme(study)
    with pytest.raises(ValidationError) as caught:
        _ingest(scheme, None, DUPLICATED, batch_size=2)
    assert caught.value.message_dict == {
        "line 6.item": ["Item 'doc-1' and coder 'bob' already appear on line 3."]
    }
    assert not Annotation.objects.exists()
    assert not AnnotationChange.objects.exists()


def test_a_pair_repeated_in_a_later_batch_is_left_out_of_a_partial_import(
    settings: Any, study: Study
) -> None:
    settings.AGREEMENT_INGEST_BATCH_LOG_MIN = 1
    scheme = build_scheme(study)
    report = _ingest(scheme, None, DUPLICATED, batch_size=2, partial=True)
    assert (report.created, report.rejected) == (5, 1)
    assert [(e.line, e.field, e.code) for e in report.errors] == [(6, "item", "duplicate_row")]
    batch = AnnotationChange.objects.get()
    assert batch.batch_size == 5
    stored = Annotation.objects.filter(round=scheme.round)
    assert stored.count() == stored.filter(created_in=batch.pk).count() == 5
    assert stored.get(item__external_id="doc-1", coder__key="bob").category.code == "neg"


def test_the_admin_lists_a_batch_entry_once_and_pages_its_entries(
    settings: Any, study: Study, client_for: Callable[..., APIClient]
) -> None:
    from django.test import Client
    from django.urls import reverse

    settings.AGREEMENT_INGEST_BATCH_LOG_MIN = 1
    scheme = build_scheme(study)
    _ingest(scheme, None)
    batch = AnnotationChange.objects.get()
    admin = UserFactory(is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(admin)
    listing = client.get(reverse("admin:studies_annotationchange_changelist"))
    assert listing.status_code == 200
    page = client.get(
        reverse("admin:studies_annotationchange_change", args=[batch.pk]), {"entries": "1"}
    )
    body = page.content.decode()
    assert page.status_code == 200
    assert "6 annotations created by this import" in body
    assert body.count("<tr><td>doc-") == 6
    assert "<td>doc-3</td><td>carol</td><td>pos</td>" in body


def test_a_stream_failing_after_batches_were_written_leaves_nothing(
    settings: Any, study: Study
) -> None:
    """The reading fails while the writer (PostgreSQL: a thread) has batches in: the
    ingest waits for it, then everything rolls back and the connection still works."""
    settings.AGREEMENT_INGEST_BATCH_LOG_MIN = 1
    scheme = build_scheme(study)

    def lines() -> Any:
        yield from _csv_lines(CSV)
        raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")

    with pytest.raises(ValidationError) as caught:
        annotations_ingest_csv(
            study=study,
            round_ref=scheme.round.pk,
            question_key="sentiment",
            lines=lines(),
            actor=Actor(user=None, token=None),
            create_missing=True,
            batch_size=2,
        )
    assert caught.value.message_dict == {"file": ["The CSV must be UTF-8 text."]}
    assert (Annotation.objects.count(), AnnotationChange.objects.count()) == (0, 0)
    assert _ingest(scheme, None).created == 6


def test_keys_forgotten_between_batches_are_found_again(
    monkeypatch: pytest.MonkeyPatch, study: Study
) -> None:
    """PostgreSQL: a study without items inserts new keys without looking them up; one the
    import made and forgot (its cache holds one key here) is found again, not made twice."""
    monkeypatch.setattr("annotations.ingest._KEY_CACHE_MAX", 1)
    scheme = build_scheme(study)
    Item = scheme.items["doc-1"].__class__
    Item.objects.filter(study=study).delete()
    text = "item,coder,label\nx-1,alice,pos\nx-2,bob,neg\nx-3,alice,pos\nx-1,bob,neg\n"
    report = _ingest(scheme, None, text, batch_size=1)
    assert (report.created, report.items_created) == (4, 3)
    assert sorted(Item.objects.filter(study=study).values_list("external_id", flat=True)) == [
        "x-1", "x-2", "x-3",
    ]  # fmt: skip
    assert Annotation.objects.filter(round=scheme.round, item__external_id="x-1").count() == 2


def test_new_items_keep_their_keys_exactly(study: Study) -> None:
    """PostgreSQL COPYs the new items of a study without any: escapes and all."""
    scheme = build_scheme(study)
    Item = scheme.items["doc-1"].__class__
    Item.objects.filter(study=study).delete()
    keys = ["back\\\\slash", "tab\there", "new\nline", "café ☕", r"\N"]
    text = "item,coder,label\n" + "".join(f'"{key}",alice,pos\n' for key in keys)
    report = _ingest(scheme, None, text)
    assert (report.created, report.items_created) == (5, 5)
    assert sorted(Item.objects.filter(study=study).values_list("external_id", flat=True)) == sorted(
        keys
    )
    assert study.item_count.items == 5


def test_a_page_of_the_history_costs_the_same_queries_whatever_the_import_size(
    settings: Any, client_for: Callable[..., APIClient]
) -> None:
    """Doubling the import: the same statements per page (a count per batch entry, the
    page's ids, their rows), none per annotation."""
    from django.db import connection as default_connection
    from django.test.utils import CaptureQueriesContext

    settings.AGREEMENT_INGEST_BATCH_LOG_MIN = 1
    counted = []
    for n in (40, 80):
        study = StudyFactory()
        user = UserFactory()
        Membership.objects.create(study=study, user=user, role=Role.VIEWER)
        scheme = build_scheme(study)
        text = "item,coder,label\n" + "".join(f"d{i},c{i % 7},pos\n" for i in range(n))
        _ingest(scheme, None, text)
        client = client_for(user)
        statements = []
        for page in (1, 3):
            with CaptureQueriesContext(default_connection) as queries:
                body = client.get(changes_url(study), {"page": page, "page_size": 5}).json()
            assert body["count"] == n
            assert len(body["results"]) == 5
            statements.append(len(queries))
        counted.append(statements)
    assert counted[0] == counted[1]
