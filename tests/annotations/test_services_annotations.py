"""annotations_bulk_upsert and annotation_delete, called directly (both write paths)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import connection

from annotations import services as services
from annotations.services import (
    PayloadTooLargeError,
    annotation_delete,
    annotations_bulk_upsert,
)
from studies.access import Actor
from studies.exceptions import ConflictError
from studies.models import Annotation, AnnotationChange, Study
from tests.api.annotation_setup import Scheme, build_scheme
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["native", "orm"])
def write_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run each test through the database's bulk path (COPY on PostgreSQL) and the ORM's."""
    if request.param == "orm":
        monkeypatch.setattr(services, "_uses_copy", lambda: False)
    elif connection.vendor != "postgresql":
        pytest.skip("the native path is PostgreSQL's COPY")
    return str(request.param)


@pytest.fixture
def scheme(study: Study) -> Scheme:
    return build_scheme(study)


@pytest.fixture
def actor() -> Actor:
    return Actor(user=UserFactory(username="writer"), token=None)


def upsert(
    scheme: Scheme, actor: Actor, question: str, rows: list[dict[str, Any]], **kw: Any
) -> Any:
    return annotations_bulk_upsert(
        study=scheme.study,
        round_ref=scheme.round.pk,
        question_key=question,
        rows=rows,
        actor=actor,
        **kw,
    )


def test_the_upsert_creates_updates_and_leaves_unchanged_rows_alone(
    write_path: str, scheme: Scheme, actor: Actor
) -> None:
    upsert(
        scheme,
        actor,
        "topics",
        [
            {"item": "doc-1", "coder": "alice", "label": "sports"},
            {"item": "doc-1", "coder": "bob", "label": "culture"},
        ],
    )

    result = upsert(
        scheme,
        actor,
        "topics",
        [
            {"item": "doc-1", "coder": "alice", "label": "sports|politics"},
            {"item": "doc-1", "coder": "bob", "label": ["culture"]},
            {"item": "doc-2", "coder": "bob", "label": "culture"},
        ],
    )

    assert (result.created, result.updated, result.unchanged) == (1, 1, 1)
    c = scheme.categories
    alice = Annotation.objects.get(coder__key="alice")
    assert alice.category_set == sorted([c["sports"].pk, c["politics"].pk])
    assert alice.category is None
    assert alice.number is None
    log = list(
        AnnotationChange.objects.order_by("id").values_list(
            "coder__key", "action", "old_value", "new_value", "changed_by__username"
        )
    )
    assert log == [
        ("alice", "created", None, "sports", "writer"),
        ("bob", "created", None, "culture", "writer"),
        ("alice", "updated", "sports", "sports|politics", "writer"),
        ("bob", "created", None, "culture", "writer"),
    ]


def test_numbers_are_stored_and_logged_canonically(
    write_path: str, scheme: Scheme, actor: Actor
) -> None:
    upsert(scheme, actor, "age", [{"item": "doc-1", "coder": "alice", "label": "30"}])
    result = upsert(scheme, actor, "age", [{"item": "doc-1", "coder": "alice", "label": 30.0}])
    upsert(scheme, actor, "age", [{"item": "doc-1", "coder": "alice", "label": 30.5}])

    assert result.unchanged == 1
    assert Annotation.objects.get().number == 30.5
    assert list(AnnotationChange.objects.order_by("id").values_list("old_value", "new_value")) == [
        (None, "30"),
        ("30", "30.5"),
    ]


def test_a_hierarchy_node_moves_from_leaf_to_leaf(
    write_path: str, scheme: Scheme, actor: Actor
) -> None:
    upsert(scheme, actor, "taxon", [{"item": "doc-1", "coder": "alice", "label": "animal/dog"}])
    upsert(scheme, actor, "taxon", [{"item": "doc-1", "coder": "alice", "label": "tree"}])

    assert Annotation.objects.get().category == scheme.categories["tree"]
    assert AnnotationChange.objects.filter(action="updated").get().old_value == "dog"


def test_create_missing_creates_items_and_coders_once(
    write_path: str, scheme: Scheme, actor: Actor
) -> None:
    rows = [{"item": "new", "coder": "carol", "label": "pos"}]

    first = upsert(scheme, actor, "sentiment", rows, create_missing=True)
    second = upsert(scheme, actor, "sentiment", rows, create_missing=True)

    assert (first.items_created, first.coders_created) == (1, 1)
    assert (second.items_created, second.coders_created, second.unchanged) == (0, 0, 1)


def test_a_rejected_upload_raises_every_row_error(scheme: Scheme, actor: Actor) -> None:
    with pytest.raises(ValidationError) as caught:
        upsert(
            scheme,
            actor,
            "sentiment",
            [
                {"item": "doc-1", "coder": "alice", "label": "x"},
                {"item": "doc-9", "coder": "zoe", "label": "pos"},
            ],
        )

    errors = caught.value.error_dict
    assert {attr: [e.code for e in errors[attr]] for attr in errors} == {
        "annotations.0.label": ["unknown_category"],
        "annotations.1.item": ["unknown_item"],
        "annotations.1.coder": ["unknown_coder"],
    }


def test_too_long_keys_are_row_errors_even_with_create_missing(
    scheme: Scheme, actor: Actor
) -> None:
    with pytest.raises(ValidationError) as caught:
        upsert(
            scheme,
            actor,
            "sentiment",
            [{"item": "i" * 300, "coder": "c" * 300, "label": "pos"}],
            create_missing=True,
        )

    assert set(caught.value.error_dict) == {"annotations.0.item", "annotations.0.coder"}


def test_the_row_limit_is_checked_first(
    scheme: Scheme, actor: Actor, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(services, "MAX_BULK_ROWS", 1)

    with pytest.raises(PayloadTooLargeError):
        upsert(scheme, actor, "sentiment", [{}, {}])


def test_a_closed_round_refuses_the_upload(scheme: Scheme, actor: Actor) -> None:
    with pytest.raises(ConflictError) as caught:
        annotations_bulk_upsert(
            study=scheme.study,
            round_ref="Pilot",
            question_key="sentiment",
            rows=[{"item": "doc-1", "coder": "alice", "label": "pos"}],
            actor=actor,
        )

    assert caught.value.code == "round_closed"


def test_deleting_logs_the_old_value(write_path: str, scheme: Scheme, actor: Actor) -> None:
    upsert(scheme, actor, "score", [{"item": "doc-1", "coder": "alice", "label": -1.25}])

    annotation_delete(annotation=Annotation.objects.get(), actor=actor)

    assert not Annotation.objects.exists()
    deleted = AnnotationChange.objects.get(action="deleted")
    assert (deleted.old_value, deleted.new_value, deleted.changed_by) == (
        "-1.25",
        None,
        actor.user,
    )


def test_keys_with_nul_characters_are_row_errors(scheme: Scheme, actor: Actor) -> None:
    with pytest.raises(ValidationError) as caught:
        upsert(
            scheme,
            actor,
            "sentiment",
            [{"item": "doc\x00", "coder": "al\x00ice", "label": "pos"}],
            create_missing=True,
        )

    errors = caught.value.error_dict
    assert [e.code for e in errors["annotations.0.item"]] == ["null_characters_not_allowed"]
    assert [e.code for e in errors["annotations.0.coder"]] == ["null_characters_not_allowed"]
