"""The demo study: its shape, its partial agreement, and loading it twice."""

from __future__ import annotations

from collections import Counter
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import transaction

from demo.loader import DEMO_STUDY_NAME, N_ITEMS, demo_study_create, demo_study_ensure
from studies.models import (
    Annotation,
    AnnotationChange,
    Category,
    LabelKind,
    Role,
    RoundStatus,
    Study,
)
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def fingerprint(study: Study) -> list[tuple[str, str, str, str, str]]:
    """Every label by names and codes (ids differ between builds on PostgreSQL)."""
    codes = dict(Category.objects.filter(question__study=study).values_list("pk", "code"))
    rows = Annotation.objects.filter(round__study=study).select_related(
        "round", "question", "item", "coder"
    )
    return sorted(
        (
            a.round.name,
            a.question.key,
            a.item.external_id,
            a.coder.key,
            codes[a.category_id]
            if a.category_id
            else "|".join(codes[pk] for pk in a.category_set or []),
        )
        for a in rows
    )


def test_demo_study_has_two_rounds_three_coders_and_forty_items() -> None:
    study = demo_study_create()
    assert [r.status for r in study.rounds.order_by("position")] == [
        RoundStatus.CLOSED,
        RoundStatus.OPEN,
    ]
    assert study.coders.count() == 3
    assert study.items.count() == N_ITEMS == 40
    kinds = dict(study.questions.values_list("key", "kind"))
    assert kinds == {
        "sentiment": LabelKind.NOMINAL,
        "topics": LabelKind.SET,
        "genre": LabelKind.HIERARCHY,
    }


def test_demo_genre_question_is_a_category_tree() -> None:
    study = demo_study_create()
    genre = study.questions.get(key="genre")
    parents = {c.code: c.parent.code if c.parent else None for c in genre.categories.all()}
    assert parents["editorial"] == "opinion"
    assert parents["report"] == "news"
    assert parents["news"] is None


def test_demo_labels_agree_partially_and_a_few_are_missing() -> None:
    study = demo_study_create()
    sentiment = study.questions.get(key="sentiment")
    unanimous_per_round = []
    for round_ in study.rounds.order_by("position"):
        rows = Annotation.objects.filter(round=round_, question=sentiment)
        assert 0 < N_ITEMS * 3 - rows.count() < N_ITEMS * 3 * 0.15
        per_item: dict[int, set[int | None]] = {}
        for item_id, category_id in rows.values_list("item_id", "category_id"):
            per_item.setdefault(item_id, set()).add(category_id)
        unanimous = sum(len(values) == 1 for values in per_item.values())
        assert 0.2 * N_ITEMS < unanimous < N_ITEMS
        unanimous_per_round.append(unanimous)
    assert unanimous_per_round[0] < unanimous_per_round[1]
    topic_sets = Annotation.objects.filter(question__key="topics", round__study=study)
    assert all(value for value in topic_sets.values_list("category_set", flat=True))
    assert Counter(len(s) for s in topic_sets.values_list("category_set", flat=True))[2] > 0


def test_demo_records_each_label_in_the_change_log() -> None:
    study = demo_study_create()
    assert (
        AnnotationChange.objects.filter(study=study).count()
        == Annotation.objects.filter(round__study=study).count()
    )


def test_demo_is_the_same_on_every_build() -> None:
    with transaction.atomic():
        first = fingerprint(demo_study_create())
        transaction.set_rollback(True)
    second = fingerprint(demo_study_create())
    assert first == second


def test_demo_is_loaded_once_and_the_manager_is_added() -> None:
    user = UserFactory(username="admin")
    first = demo_study_ensure(manager=user)
    second = demo_study_ensure(manager=user)
    assert first.created is True
    assert second.created is False
    assert Study.objects.filter(name=DEMO_STUDY_NAME).count() == 1
    assert first.study.memberships.get(user=user).role == Role.MANAGER


def test_demo_load_command_reports_whether_it_loaded() -> None:
    out = StringIO()
    call_command("demo_load", stdout=out)
    call_command("demo_load", stdout=out)
    assert "loaded." in out.getvalue()
    assert "already present." in out.getvalue()
