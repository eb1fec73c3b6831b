"""A real Label Studio 1.23.2 export (captured from the suite's Label Studio,
``tests/plugins/label_studio.py``): choices, labels (spans), a comment box and
rectanglelabels, two annotators, imported as the docs say (the comment box mapped to null)."""

from __future__ import annotations

from pathlib import Path

import pytest

from exchange.imports import annotations_import
from studies.access import Actor
from studies.models import Annotation
from tests.connections.helpers import connection_study

pytestmark = pytest.mark.django_db

SAMPLE = Path(__file__).parent / "samples" / "label_studio_1.23.2_export.json"


def test_a_real_label_studio_export_imports_every_control() -> None:
    study, round_ = connection_study()
    report = annotations_import(
        study=study,
        format_name="label_studio",
        data=SAMPLE.read_bytes(),
        round_ref=round_.pk,
        question_map={"comment": None},
        create_missing=True,
        actor=Actor(user=None, token=None),
    )
    assert report.committed, report.rejected
    assert report.ignored_fields == {"comment": 1}
    # Coders are Label Studio's user ids; items its task ids.
    stored = Annotation.objects.filter(round=round_)
    assert set(stored.values_list("coder__key", flat=True)) == {"2", "3"}
    assert set(stored.values_list("item__external_id", flat=True)) == {"1", "2"}
    per_question = {
        key: stored.filter(question__key=key).count() for key in ("sentiment", "entities", "boxes")
    }
    # Each of the four annotations answers every question: a span or region field without a
    # result of that annotation is "found nothing" / "drew nothing".
    assert per_question == {"sentiment": 4, "entities": 4, "boxes": 4}
    empty_spans = stored.filter(question__key="entities", units=[]).count()
    empty_boxes = stored.filter(question__key="boxes", units=[]).count()
    assert (empty_spans, empty_boxes) == (2, 2)
