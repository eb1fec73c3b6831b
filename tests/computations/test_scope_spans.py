"""computations.scope.scope_spans: a span question's annotations as metrics.spans.SpanData,
checked against a literal table."""

from __future__ import annotations

import numpy as np
import pytest

from computations.scope import scope_spans
from studies.models import Annotation, Study
from tests.annotations.span_setup import SpanScheme, build_span_scheme
from tests.factories import AnnotationFactory, RoundFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def scheme(study: Study) -> SpanScheme:
    return build_span_scheme(study)


def annotate(scheme: SpanScheme, round_: object, item: str, coder: str, units: list) -> None:
    codes = scheme.categories
    AnnotationFactory(
        round=round_,
        question=scheme.entities,
        item=scheme.items[item],
        coder=scheme.coders[coder],
        category=None,
        units=[[begin, end, codes[label].pk] for begin, end, label in units],
    )


@pytest.fixture
def table(scheme: SpanScheme) -> SpanScheme:
    """Round 1:
    doc-1 (text, 23 characters)  alice: 0-5 PER, 17-22 LOC   bob: 0-5 PER
    doc-2 (extent 0..100)        bob: annotated, nothing found
    rec-1 (no text, no extent)   alice: 3-9 ORG
    """
    annotate(scheme, scheme.round, "doc-1", "alice", [(17, 22, "LOC"), (0, 5, "PER")])
    annotate(scheme, scheme.round, "doc-1", "bob", [(0, 5, "PER")])
    annotate(scheme, scheme.round, "doc-2", "bob", [])
    annotate(scheme, scheme.round, "rec-1", "alice", [(3, 9, "ORG")])
    return scheme


def test_one_round_gives_one_document_per_item(table: SpanScheme) -> None:
    scope = scope_spans(question=table.entities, round_ids=[table.round.pk])
    data = scope.data
    items, coders = table.items, table.coders
    assert data.documents == (items["doc-1"].pk, items["doc-2"].pk, items["rec-1"].pk)
    assert scope.item_ids.tolist() == [items["doc-1"].pk, items["doc-2"].pk, items["rec-1"].pk]
    assert scope.round_ids.tolist() == [table.round.pk] * 3
    assert data.coders == (coders["alice"].pk, coders["bob"].pk)
    assert scope.coder_ids.tolist() == [coders["alice"].pk, coders["bob"].pk]
    assert data.categories == ("PER", "ORG", "LOC")  # the declared order
    # doc-1: its text's length; doc-2: its extent; rec-1: the largest end of its units.
    assert data.extents.tolist() == [[0.0, 23.0], [0.0, 100.0], [0.0, 9.0]]
    assert data.annotated.tolist() == [[True, True], [False, True], [True, False]]
    assert data.document.tolist() == [0, 0, 0, 2]
    assert data.coder.tolist() == [0, 0, 1, 0]
    assert data.begin.tolist() == [0.0, 17.0, 0.0, 3.0]
    assert data.end.tolist() == [5.0, 22.0, 5.0, 9.0]
    assert data.category.tolist() == [0, 2, 0, 1]
    assert data.offsets.tolist() == [0, 3, 3, 4]
    assert scope.n_annotations == 4


def test_pooled_rounds_give_one_document_per_round_and_item(table: SpanScheme) -> None:
    later = RoundFactory(study=table.study, name="Round 2", position=2)
    annotate(table, later, "doc-1", "bob", [(0, 3, "PER")])
    scope = scope_spans(question=table.entities, round_ids=[table.round.pk, later.pk])
    first, second = table.round.pk, later.pk
    items = table.items
    assert scope.data.documents == (
        (first << 40) + items["doc-1"].pk,
        (first << 40) + items["doc-2"].pk,
        (first << 40) + items["rec-1"].pk,
        (second << 40) + items["doc-1"].pk,
    )
    assert scope.item_ids.tolist() == [
        items["doc-1"].pk,
        items["doc-2"].pk,
        items["rec-1"].pk,
        items["doc-1"].pk,
    ]
    assert scope.round_ids.tolist() == [first, first, first, second]
    assert scope.data.annotated.tolist() == [
        [True, True],
        [False, True],
        [True, False],
        [False, True],
    ]
    assert scope.data.extents.tolist()[3] == [0.0, 23.0]
    assert scope.data.document.tolist() == [0, 0, 0, 2, 3]
    assert scope.data.end.tolist() == [5.0, 22.0, 5.0, 9.0, 3.0]


def test_an_empty_scope_is_empty_span_data(scheme: SpanScheme) -> None:
    scope = scope_spans(question=scheme.entities, round_ids=[scheme.round.pk])
    assert (scope.data.n_documents, scope.data.n_coders, scope.data.n_units) == (0, 0, 0)
    assert scope.data.extents.shape == (0, 2)


def test_units_stored_outside_the_extent_widen_it(table: SpanScheme) -> None:
    annotation = Annotation.objects.get(item=table.items["doc-2"])
    annotation.units = [[90, 120, table.categories["ORG"].pk]]
    annotation.save()
    scope = scope_spans(question=table.entities, round_ids=[table.round.pk])
    assert scope.data.extents.tolist()[1] == [0.0, 120.0]


def test_the_fingerprint_follows_the_units(table: SpanScheme) -> None:
    before = scope_spans(question=table.entities, round_ids=[table.round.pk]).fingerprint
    again = scope_spans(question=table.entities, round_ids=[table.round.pk]).fingerprint
    annotation = Annotation.objects.get(item=table.items["rec-1"])
    annotation.units = [[3, 8, table.categories["ORG"].pk]]
    annotation.save()
    after = scope_spans(question=table.entities, round_ids=[table.round.pk])
    assert before == again
    assert after.fingerprint != before
    assert np.array_equal(after.data.end, [5.0, 22.0, 5.0, 8.0])
