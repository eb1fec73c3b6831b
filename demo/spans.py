"""The demo study's span question: named entities in six short news texts.

Three coders mark persons (PER), organisations (ORG) and places (LOC) by character offsets,
in both rounds of the demo. In the pilot they cut some names differently ("Dr. Amina Diallo"
or "Amina Diallo"), confuse a club with its city, miss a few entities, one coder found
nothing in one text and one text was not annotated by one coder; in the main round, after
the guidelines said to leave titles out, they agree on nearly everything.

Every unit is written as its mention in the text, and its offsets are found there, so the
texts can be edited without counting characters.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from studies.models import (
    Annotation,
    AnnotationChange,
    Category,
    Coder,
    Item,
    LabelKind,
    Question,
    Round,
    SpanUnit,
    Study,
)

SPAN_QUESTION_KEY = "entities"
ENTITY_CATEGORIES = (("PER", "Person"), ("ORG", "Organisation"), ("LOC", "Place"))

#: External id -> text.
SPAN_TEXTS: dict[str, str] = {
    "news-1": "Maria Lopez, the mayor of Lyon, opened the new tram line with Keolis on Monday.",
    "news-2": "The Lyon Jazz Festival moves to the Roman theatre of Fourviere this July.",
    "news-3": "Olympique Lyonnais beat Paris Saint-Germain 2-1; Alexandre Lacazette scored twice.",
    "news-4": "Dr. Amina Diallo of the University of Geneva leads the new malaria vaccine trial.",
    "news-5": "Rents in Berlin rose eight percent last year, says the Federal Statistical Office.",
    "news-6": "Greta Thunberg spoke in Stockholm the day the UN climate report came out.",
}

#: What the guidelines ask for: (mention, category) per text.
ENTITIES: dict[str, list[tuple[str, str]]] = {
    "news-1": [("Maria Lopez", "PER"), ("Lyon", "LOC"), ("Keolis", "ORG")],
    "news-2": [("Lyon Jazz Festival", "ORG"), ("Fourviere", "LOC")],
    "news-3": [
        ("Olympique Lyonnais", "ORG"),
        ("Paris Saint-Germain", "ORG"),
        ("Alexandre Lacazette", "PER"),
    ],
    "news-4": [("Amina Diallo", "PER"), ("University of Geneva", "ORG")],
    "news-5": [("Berlin", "LOC"), ("Federal Statistical Office", "ORG")],
    "news-6": [("Greta Thunberg", "PER"), ("Stockholm", "LOC"), ("UN", "ORG")],
}

Units = list[tuple[str, str]]
#: Per round (by position), coder and text: the coder's units where they differ from
#: ``ENTITIES``; ``None`` = the coder did not annotate the text, ``[]`` = found nothing.
DEVIATIONS: dict[int, dict[str, dict[str, Units | None]]] = {
    1: {
        "alice": {
            "news-3": [("Olympique Lyonnais", "ORG"), ("Paris Saint-Germain", "ORG")],
            "news-4": [("Dr. Amina Diallo", "PER"), ("University of Geneva", "ORG")],
        },
        "bob": {
            "news-1": [("Maria Lopez", "PER"), ("Lyon", "ORG"), ("Keolis", "ORG")],
            "news-2": [("Lyon", "LOC"), ("Fourviere", "LOC")],
            "news-6": [("Greta Thunberg", "PER"), ("Stockholm", "LOC"), ("UN climate", "ORG")],
        },
        "chen": {
            "news-1": [("Maria Lopez", "PER"), ("Lyon", "LOC")],
            "news-3": [
                ("Olympique Lyonnais", "ORG"),
                ("Paris", "LOC"),
                ("Alexandre Lacazette", "PER"),
            ],
            "news-4": [("Dr. Amina Diallo", "PER"), ("University of Geneva", "ORG")],
            "news-5": [],
            "news-6": None,
        },
    },
    2: {
        "alice": {"news-2": [("Lyon Jazz Festival", "ORG"), ("Roman theatre of Fourviere", "LOC")]},
        "bob": {"news-4": [("Dr. Amina Diallo", "PER"), ("University of Geneva", "ORG")]},
        "chen": {"news-6": [("Greta Thunberg", "PER"), ("Stockholm", "LOC")]},
    },
}


def _offsets(text: str, mention: str) -> tuple[int, int]:
    begin = text.index(mention)  # a mention missing from its text is a bug in the demo data
    return begin, begin + len(mention)


def demo_span_question_create(
    *, study: Study, rounds: Sequence[Round], coders: Sequence[Coder], position: int
) -> Question:
    """The span question, its six texts and every round's units, with their change log."""
    question = Question.objects.create(
        study=study,
        key=SPAN_QUESTION_KEY,
        text="Mark every person (PER), organisation (ORG) and place (LOC) the text names.",
        kind=LabelKind.SPAN,
        span_unit=SpanUnit.CHARACTER,
        position=position,
    )
    category_ids = {
        code: Category.objects.create(question=question, code=code, label=label, position=i).pk
        for i, (code, label) in enumerate(ENTITY_CATEGORIES)
    }
    items = Item.objects.bulk_create(
        Item(study=study, external_id=name, text=text, metadata={"source": "news"})
        for name, text in SPAN_TEXTS.items()
    )
    codes = {pk: code for code, pk in category_ids.items()}
    annotations: list[Annotation] = []
    changes: list[AnnotationChange] = []
    for round_ in rounds:
        deviations = DEVIATIONS.get(round_.position, {})
        opened: datetime = round_.opened_at
        for n, (item, coder) in enumerate((i, c) for i in items for c in coders):
            chosen = deviations.get(coder.key, {}).get(item.external_id, ENTITIES[item.external_id])
            if chosen is None:
                continue
            units = sorted(
                [*_offsets(item.text, mention), category_ids[code]] for mention, code in chosen
            )
            when = opened + timedelta(hours=2 + 3 * n)
            key = {"round": round_, "question": question, "item": item, "coder": coder}
            annotations.append(Annotation(**key, units=units, updated_at=when))
            changes.append(
                AnnotationChange(
                    study=study,
                    **key,
                    action=AnnotationChange.Action.CREATED,
                    new_value="; ".join(f"{b}-{e} {codes[pk]}" for b, e, pk in units),
                    changed_at=when,
                )
            )
    Annotation.objects.bulk_create(annotations)
    AnnotationChange.objects.bulk_create(changes)
    return question
