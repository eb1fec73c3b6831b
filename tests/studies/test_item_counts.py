"""Each study's number of items, kept by the database (``StudyItemCount``, migration 0009).

The triggers count whatever writes the items: the ORM one by one or in bulk, plain SQL, the
CSV import (COPY on PostgreSQL), deletes and cascades, and a rolled-back transaction leaves
the count as it was. These tests run on SQLite (row triggers) and, in CI, on PostgreSQL
(statement triggers over the transition tables).
"""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.utils import timezone

from annotations.ingest import annotations_ingest_csv
from studies.access import Actor
from studies.models import Item, Study
from studies.selectors import item_counts
from tests.api.annotation_setup import build_scheme
from tests.factories import ItemFactory, StudyFactory

pytestmark = pytest.mark.django_db


def counts(*studies: Study) -> dict[int, int]:
    return item_counts(study_ids=[s.pk for s in studies])


def test_items_added_one_by_one_and_in_bulk_are_counted_per_study() -> None:
    first, second = StudyFactory(), StudyFactory()
    assert counts(first, second) == {}
    for n in range(3):
        ItemFactory(study=first, external_id=f"a-{n}")
    Item.objects.bulk_create([Item(study=first, external_id=f"b-{n}") for n in range(5)])
    Item.objects.bulk_create([Item(study=second, external_id=f"c-{n}") for n in range(2)])
    assert counts(first, second) == {first.pk: 8, second.pk: 2}


def test_deletes_one_by_one_and_by_queryset_are_subtracted() -> None:
    study = StudyFactory()
    Item.objects.bulk_create([Item(study=study, external_id=f"doc-{n}") for n in range(6)])
    Item.objects.get(study=study, external_id="doc-0").delete()
    Item.objects.filter(study=study, external_id__in=["doc-1", "doc-2"]).delete()
    assert counts(study) == {study.pk: 3}


def test_items_written_in_plain_sql_are_counted() -> None:
    study = StudyFactory()
    with connection.cursor() as cursor:
        cursor.executemany(
            "INSERT INTO studies_item (study_id, external_id, text, metadata, created_at) "
            "VALUES (%s, %s, '', '{}', %s)",
            [(study.pk, f"raw-{n}", timezone.now()) for n in range(4)],
        )
        cursor.execute("DELETE FROM studies_item WHERE external_id = %s", ["raw-3"])
    assert counts(study) == {study.pk: 3}


def test_a_rolled_back_transaction_leaves_the_count_as_it_was() -> None:
    study = StudyFactory()
    ItemFactory(study=study, external_id="kept")

    def failed_import() -> None:
        with transaction.atomic():
            Item.objects.bulk_create([Item(study=study, external_id=f"gone-{n}") for n in range(7)])
            raise RuntimeError("the import failed")

    with pytest.raises(RuntimeError):
        failed_import()
    assert counts(study) == {study.pk: 1}


def test_deleting_the_study_deletes_its_count() -> None:
    study, other = StudyFactory(), StudyFactory()
    ItemFactory(study=study)
    ItemFactory(study=other)
    study_pk = study.pk
    study.delete()
    assert item_counts(study_ids=[study_pk, other.pk]) == {other.pk: 1}


def test_the_csv_import_counts_the_items_it_creates() -> None:
    scheme = build_scheme(StudyFactory())  # doc-1 and doc-2 exist
    text = "item,coder,label\ndoc-1,alice,pos\ndoc-3,alice,neg\ndoc-4,bob,pos\ndoc-4,alice,pos\n"
    report = annotations_ingest_csv(
        study=scheme.study,
        round_ref=scheme.round.pk,
        question_key="sentiment",
        lines=text.splitlines(keepends=True),
        actor=Actor(user=None, token=None),
        create_missing=True,
    )
    assert report.items_created == 2
    assert counts(scheme.study) == {scheme.study.pk: 4}
