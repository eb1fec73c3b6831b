"""Annotations' references and items' study are unchecked by the database (studies.models):
deletes through Django still cascade or are refused, and ``annotations_check_references``
finds the rows a delete made outside the application leaves behind."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.models import ProtectedError

from annotations.ingest import annotations_ingest_csv
from studies.access import Actor
from studies.models import Annotation, AnnotationChange, Category, Coder, Item, Study
from tests.api.annotation_setup import build_scheme
from tests.factories import ItemFactory, StudyFactory

pytestmark = pytest.mark.django_db

CROWD = "item,coder,label\ndoc-1,alice,pos\ndoc-1,bob,neg\ndoc-2,alice,pos\n"


@pytest.fixture
def ingested(study: Study) -> Study:
    scheme = build_scheme(study)
    annotations_ingest_csv(
        study=study,
        round_ref=scheme.round.pk,
        question_key="sentiment",
        lines=CROWD.splitlines(keepends=True),
        actor=Actor(user=None, token=None),
        create_missing=True,
    )
    return study


def test_deleting_an_item_through_django_deletes_its_annotations_and_their_log(
    ingested: Study,
) -> None:
    Item.objects.get(study=ingested, external_id="doc-1").delete()
    assert sorted(Annotation.objects.values_list("item__external_id", "coder__key")) == [
        ("doc-2", "alice")
    ]
    assert list(AnnotationChange.objects.values_list("item__external_id", flat=True)) == ["doc-2"]


def test_a_category_in_use_still_cannot_be_deleted(ingested: Study) -> None:
    with pytest.raises(ProtectedError):
        Category.objects.get(question__study=ingested, code="neg").delete()


def test_the_check_passes_when_nothing_was_deleted_by_hand(ingested: Study) -> None:
    out = io.StringIO()
    call_command("annotations_check_references", stdout=out)
    assert out.getvalue() == (
        "Every annotation's round, question, item, coder, category exists.\n"
        "Every item's study exists.\n"
    )


def test_the_check_names_annotations_left_by_a_delete_outside_the_application(
    ingested: Study,
) -> None:
    bob = Coder.objects.get(study=ingested, key="bob")
    orphan = Annotation.objects.get(coder=bob).pk
    with connection.cursor() as cursor:  # what a hand-written SQL delete would do
        cursor.execute(f"DELETE FROM {Coder._meta.db_table} WHERE id = %s", [bob.pk])
    err = io.StringIO()
    with pytest.raises(CommandError) as raised:
        call_command("annotations_check_references", stderr=err)
    assert raised.value.returncode == 1
    assert err.getvalue() == (f"1 annotation(s) point to a missing coder (ids {orphan}).\n")


def test_deleting_a_study_through_django_deletes_its_items() -> None:
    study = StudyFactory()
    ItemFactory(study=study)
    study.delete()
    assert not Item.objects.exists()


def test_the_check_names_items_left_by_a_study_deleted_outside_the_application() -> None:
    study = StudyFactory()
    orphan = ItemFactory(study=study).pk
    with connection.cursor() as cursor:  # what a hand-written SQL delete would do
        cursor.execute(f"DELETE FROM {Study._meta.db_table} WHERE id = %s", [study.pk])
    err = io.StringIO()
    with pytest.raises(CommandError) as raised:
        call_command("annotations_check_references", stderr=err)
    assert raised.value.returncode == 1
    assert err.getvalue() == (f"1 item(s) point to a missing study (ids {orphan}).\n")
