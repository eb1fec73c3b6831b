"""Every page that takes a question takes its id or its key, in its path or in
``?question=`` (``pages.views._question_of``: digits are an id first, then a key, as in the
API); an unknown key, or another study's question, is a 404 page. The links the site writes
keep naming questions by id.

The headings are the templates' text for round R1 of ``pages_world`` (question ``relevant``)
and the span and region questions added here, written out."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from studies.models import Item, LabelKind, Question, SpanUnit, Study
from tests.factories import CategoryFactory, ItemFactory, QuestionFactory, StudyFactory
from tests.pages.conftest import PagesWorld

pytestmark = pytest.mark.django_db


@dataclass
class KeyWorld:
    study: Study
    round_pk: int
    relevant: Question  # nominal, computed in R1 and R2
    entities: Question  # span
    boxes: Question  # box
    document: Item
    image: Item
    elsewhere: Question  # another study's question


@pytest.fixture
def world(pages_world: PagesWorld) -> KeyWorld:
    study = pages_world.study
    entities = QuestionFactory(
        study=study, key="entities", kind=LabelKind.SPAN, span_unit=SpanUnit.CHARACTER
    )
    CategoryFactory(question=entities, code="PER")
    boxes = QuestionFactory(study=study, key="boxes", kind=LabelKind.BOX)
    CategoryFactory(question=boxes, code="car")
    other = StudyFactory(name="Study B")
    return KeyWorld(
        study=study,
        round_pk=pages_world.rounds[0].pk,
        relevant=pages_world.question,
        entities=entities,
        boxes=boxes,
        document=ItemFactory(study=study, external_id="doc-1", text="Alice met Bob."),
        image=ItemFactory(study=study, external_id="img-1", image_width=100, image_height=50),
        elsewhere=QuestionFactory(study=other, key="elsewhere", kind=LabelKind.NOMINAL),
    )


def _heading(response: Any) -> str:
    return re.search(r"<h1[^>]*>(.*?)</h1>", response.content.decode(), re.S).group(1)


#: Each page whose path names a question: its name, the question, the item after it, the
#: heading it shows for round R1.
PATH_PAGES = [
    ("review-queue", "relevant", None, "Review queue: R1, question relevant"),
    ("adjudication", "relevant", None, "Adjudication: R1, question relevant"),
    ("reference-results", "relevant", None, "Against the reference: R1, question relevant"),
    ("span-items", "entities", None, "Items of R1, question entities"),
    ("span-document", "entities", "document", "Document doc-1: R1, question entities"),
    ("structured-item", "boxes", "image", "img-1: question boxes, R1"),
]


def _path(world: KeyWorld, name: str, ref: Any, item: str | None) -> str:
    after = [getattr(world, item).pk] if item else []
    return reverse(f"pages:{name}", args=[world.study.pk, world.round_pk, ref, *after])


@pytest.mark.parametrize(("name", "question", "item", "heading"), PATH_PAGES)
def test_a_page_names_its_question_in_its_path_by_id_or_key(
    world: KeyWorld,
    viewer: Any,
    site_client: Any,
    name: str,
    question: str,
    item: str | None,
    heading: str,
) -> None:
    client = site_client(viewer)
    chosen = getattr(world, question)
    by_id = client.get(_path(world, name, chosen.pk, item))
    by_key = client.get(_path(world, name, chosen.key, item))
    assert by_id.status_code == by_key.status_code == 200
    assert _heading(by_id) == heading
    assert _heading(by_key) == heading
    # The page's own links name the question by id, as before.
    assert f"/questions/{chosen.key}/" not in by_key.content.decode()


@pytest.mark.parametrize(("name", "question", "item", "heading"), PATH_PAGES)
def test_an_unknown_or_another_studys_question_in_a_path_is_a_404_page(
    world: KeyWorld,
    viewer: Any,
    site_client: Any,
    name: str,
    question: str,
    item: str | None,
    heading: str,
) -> None:
    client = site_client(viewer)
    for ref in ("no-such-question", world.elsewhere.key, world.elsewhere.pk, "9" * 30):
        response = client.get(_path(world, name, ref, item))
        assert response.status_code == 404, ref
        assert response["Content-Type"] == "text/html; charset=utf-8"


@pytest.mark.parametrize(
    ("name", "heading"),
    [
        ("round-report", "Round report: R1, question relevant"),
        ("plans", "Plan the next round: question relevant"),
    ],
)
def test_a_page_names_its_question_in_the_query_by_id_or_key(
    world: KeyWorld, viewer: Any, site_client: Any, name: str, heading: str
) -> None:
    client = site_client(viewer)
    args = [world.study.pk, world.round_pk] if name == "round-report" else [world.study.pk]
    url = reverse(f"pages:{name}", args=args)
    by_id = client.get(url, {"question": world.relevant.pk, "pilot": world.round_pk})
    by_key = client.get(url, {"question": "relevant", "pilot": world.round_pk})
    assert by_id.status_code == by_key.status_code == 200
    assert _heading(by_id) == _heading(by_key) == heading
    for ref in ("no-such-question", world.elsewhere.key, world.elsewhere.pk):
        assert client.get(url, {"question": ref}).status_code == 404, ref


def test_digits_name_a_question_by_id_before_a_key(
    world: KeyWorld, viewer: Any, site_client: Any
) -> None:
    """A question keyed with the digits of another's id: the digits name the other."""
    QuestionFactory(study=world.study, key=str(world.relevant.pk), kind=LabelKind.NOMINAL)
    response = site_client(viewer).get(_path(world, "review-queue", world.relevant.pk, None))
    assert _heading(response) == "Review queue: R1, question relevant"


@pytest.mark.parametrize(
    ("name", "extra", "filename"),
    [
        ("results-download", ["csv"], "R1-relevant-results.csv"),
        ("annotations-download", ["long"], "R1-relevant-long.csv"),
        ("items-download", [], "R1-relevant-items.csv"),
    ],
)
def test_a_download_names_its_question_by_id_or_key(
    world: KeyWorld, viewer: Any, site_client: Any, name: str, extra: list[str], filename: str
) -> None:
    client = site_client(viewer)
    s, r = world.study.pk, world.round_pk
    by_id = client.get(reverse(f"pages:{name}", args=[s, r, world.relevant.pk, *extra]))
    by_key = client.get(reverse(f"pages:{name}", args=[s, r, "relevant", *extra]))
    assert by_id.status_code == by_key.status_code == 200
    expected = f'attachment; filename="study{s}-{filename}"'
    assert by_id["Content-Disposition"] == by_key["Content-Disposition"] == expected
    assert by_key.content == by_id.content
    unknown = client.get(reverse(f"pages:{name}", args=[s, r, "elsewhere", *extra]))
    assert unknown.status_code == 404


def test_the_forms_of_the_pages_take_a_question_key(world: KeyWorld, manager: Any) -> None:
    """Posted by key, each form answers as by id: its redirect names the question by id."""
    client = Client()
    client.force_login(manager)
    s, r, q = world.study.pk, world.round_pk, world.relevant.pk
    item = Item.objects.filter(study=world.study, annotations__round_id=r).first()
    decided = client.post(
        reverse("pages:adjudicate", args=[s, r, "relevant"]),
        {"item": item.pk, "choice": "__entered__", "label": "yes", "note": ""},
    )
    assert decided.status_code == 302
    assert (
        decided["Location"] == f"/studies/{s}/rounds/{r}/questions/{q}/adjudication/#item-{item.pk}"
    )
    requested = client.post(reverse("pages:reference-request", args=[s, r, "relevant"]))
    assert requested["Location"] == f"/studies/{s}/rounds/{r}/questions/{q}/reference/"
    computed = client.post(
        reverse("pages:computation-request", args=[s]),
        {"question": "relevant", "round": r},
        HTTP_ACCEPT="application/json",
    )
    assert computed.status_code in (200, 202), computed.json()
    assert computed.json()["report_url"] == f"/studies/{s}/rounds/{r}/?question={q}"
    refused = client.post(
        reverse("pages:computation-request", args=[s]),
        {"question": "elsewhere", "round": r},
        HTTP_ACCEPT="application/json",
    )
    assert refused.status_code == 400
    assert list(refused.json()["errors"]) == ["question"]
    planned = client.post(
        reverse("pages:plan-request", args=[s]),
        {
            "question": "relevant",
            "pilot_round": r,
            "coefficient": "alpha",
            "target": 0.1,
            "confidence": 0.95,
            "power": 0.8,
            "pilot_uncertainty": "none",
        },
    )
    assert planned.status_code == 302
    assert planned["Location"] == f"/studies/{s}/plans/?question={q}"
    assert client.post(reverse("pages:adjudicate", args=[s, r, "elsewhere"]), {}).status_code == 404
