"""A study shaped like the Label Studio project of the connection tests, and how to read
what a round holds so that two rounds (live, and an export file imported) compare."""

from __future__ import annotations

from typing import Any

from studies.models import Annotation, LabelKind, Round, SpanUnit, Study
from tests.factories import CategoryFactory, QuestionFactory, RoundFactory, StudyFactory

LABEL_CONFIG = """<View>
  <Text name="text" value="$text"/>
  <Choices name="sentiment" toName="text" choice="single">
    <Choice value="positive"/><Choice value="negative"/><Choice value="neutral"/>
  </Choices>
  <Labels name="entities" toName="text">
    <Label value="PER"/><Label value="ORG"/>
  </Labels>
  <TextArea name="comment" toName="text"/>
  <Image name="image" value="$image"/>
  <RectangleLabels name="boxes" toName="image">
    <Label value="car"/><Label value="person"/>
  </RectangleLabels>
</View>"""


def connection_study() -> tuple[Study, Round]:
    """Questions named after the project's controls: sentiment (nominal), entities (spans),
    boxes (boxes); the comment box maps to no question."""
    study = StudyFactory(name="Live from Label Studio")
    sentiment = QuestionFactory(study=study, key="sentiment", kind=LabelKind.NOMINAL)
    for code in ("positive", "negative", "neutral"):
        CategoryFactory(question=sentiment, code=code)
    entities = QuestionFactory(
        study=study, key="entities", kind=LabelKind.SPAN, span_unit=SpanUnit.CHARACTER
    )
    for code in ("PER", "ORG"):
        CategoryFactory(question=entities, code=code)
    boxes = QuestionFactory(study=study, key="boxes", kind=LabelKind.BOX)
    for code in ("car", "person"):
        CategoryFactory(question=boxes, code=code)
    return study, RoundFactory(study=study, name="Live")


def round_table(round_: Round) -> dict[tuple[str, str, str], Any]:
    """{(question, item, coder): stored value} of a round."""
    rows = Annotation.objects.filter(round=round_).values_list(
        "question__key",
        "item__external_id",
        "coder__key",
        "category_id",
        "number",
        "category_set",
        "units",
    )
    return {(q, item, coder): tuple(value) for q, item, coder, *value in rows}


def choices(value: str) -> dict[str, Any]:
    return {
        "from_name": "sentiment",
        "to_name": "text",
        "type": "choices",
        "value": {"choices": [value]},
    }


def span(start: int, end: int, text: str, label: str) -> dict[str, Any]:
    return {
        "from_name": "entities",
        "to_name": "text",
        "type": "labels",
        "value": {"start": start, "end": end, "text": text, "labels": [label]},
    }


def box(x: float, y: float, label: str) -> dict[str, Any]:
    return {
        "from_name": "boxes",
        "to_name": "image",
        "type": "rectanglelabels",
        "original_width": 640,
        "original_height": 480,
        "image_rotation": 0,
        "value": {
            "x": x,
            "y": y,
            "width": 20,
            "height": 25,
            "rotation": 0,
            "rectanglelabels": [label],
        },
    }


def comment(text: str) -> dict[str, Any]:
    return {
        "from_name": "comment",
        "to_name": "text",
        "type": "textarea",
        "value": {"text": [text]},
    }
