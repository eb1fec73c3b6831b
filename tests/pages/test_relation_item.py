"""A relation question's round report (most disputed documents) and its per-document page,
which draws every coder's relations as arcs on the text.

The data, all on ``Alice met Bob in Paris.`` (Alice [0, 5), Bob [10, 13), Paris [17, 22),
"Paris." [17, 23); ``knows`` undirected):

- d1: alice Alice -> Bob works_for; bob the same and Bob -> Paris knows;
- d2: alice Bob -> Paris works_for; bob Bob -> "Paris." works_for;
- d3: both annotated it and related nothing.

Hand-worked: per document, relation F1 by overlap (IoU 5/6 for Paris / "Paris."): d1 TP 1,
FP 1, FN 0: 2/3; d2 TP 1: 1; d3 0/0 (nothing to dispute, left out). Over the round: exact
TP 1, FP 2, FN 1: 2/5; by overlap TP 2, FP 1, FN 0: 4/5; alpha (units aligned by overlap):
candidate pairs (Alice, Bob) wf, wf; (Bob, Paris) in d1 none, knows; (Bob, Paris) in d2 wf,
wf; n = 6 (wf 4, knows 1, none 1); D_o = 2/6; D_e = (36 − 16 − 1 − 1)/30 = 3/5;
alpha = 1 − (1/3)/(3/5) = 4/9.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from studies.models import Item, Question, Study
from tests.factories import ItemFactory, RoundFactory

pytestmark = pytest.mark.django_db

TEXT = "Alice met Bob in Paris."
ALICE, BOB, PARIS, PARIS_DOT = (0, 5), (10, 13), (17, 22), (17, 23)


def _row(document: str, coder: str, head: Any = None, tail: Any = None, label: str = "") -> Any:
    if head is None:
        return {"document": document, "coder": coder}
    return {
        "document": document,
        "coder": coder,
        "head_begin": head[0],
        "head_end": head[1],
        "tail_begin": tail[0],
        "tail_end": tail[1],
        "label": label,
    }


ROWS = [
    _row("d1", "alice", ALICE, BOB, "works_for"),
    _row("d1", "bob", ALICE, BOB, "works_for"),
    _row("d1", "bob", BOB, PARIS, "knows"),
    _row("d2", "alice", BOB, PARIS, "works_for"),
    _row("d2", "bob", BOB, PARIS_DOT, "works_for"),
    _row("d3", "alice"),
    _row("d3", "bob"),
]


@pytest.fixture
def computed(
    study: Study, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> dict[str, Any]:
    round_ = RoundFactory(study=study, name="Round 1", position=1)
    for name in ("d1", "d2", "d3"):
        ItemFactory(study=study, external_id=name, text=TEXT)
    response = manager_client.post(
        f"/api/v1/studies/{study.pk}/questions/",
        {
            "key": "rel",
            "kind": "relation",
            "categories": [{"code": "works_for"}, {"code": "knows", "undirected": True}],
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    response = manager_client.post(
        f"/api/v1/studies/{study.pk}/annotations/structured/",
        {"round": "Round 1", "question": "rel", "rows": ROWS},
        format="json",
    )
    assert response.status_code == 200, response.json()
    question = Question.objects.get(study=study, key="rel")
    with django_capture_on_commit_callbacks(execute=True):
        posted = manager_client.post(
            f"/api/v1/studies/{study.pk}/computations/",
            {"question": question.pk, "round": round_.pk, "bootstrap": 50},
            format="json",
        )
    assert posted.status_code == 202, posted.json()
    computation = manager_client.get(posted.json()["url"]).json()
    assert computation["status"] == "done", computation.get("error")
    return {"round": round_, "question": question, "results": computation["results"]}


def test_the_computation_gives_the_hand_worked_values_and_most_disputed_documents(
    computed: dict[str, Any],
) -> None:
    results = computed["results"]
    coefficients = results["coefficients"]
    assert coefficients["relation_f1"]["value"] == pytest.approx(2 / 5, abs=1e-12)
    assert coefficients["relation_f1_overlap"]["value"] == pytest.approx(4 / 5, abs=1e-12)
    assert coefficients["alpha"]["value"] == pytest.approx(4 / 9, abs=1e-12)
    assert results["undirected"] == ["knows"]
    for name in ("relation_f1", "relation_f1_overlap", "alpha"):
        low, high = coefficients[name]["ci"]["low"], coefficients[name]["ci"]["high"]
        assert low <= high
    disputed = [(e["name"], e["value"], e["n_relations"]) for e in results["most_disputed"]]
    assert disputed == [("d1", pytest.approx(2 / 3, abs=1e-12), 3), ("d2", 1.0, 2)]


def test_the_round_report_lists_the_coefficients_and_links_the_disputed_documents(
    computed: dict[str, Any], study: Study, manager: Any
) -> None:
    browser = Client()
    browser.force_login(manager)
    page = browser.get(f"/studies/{study.pk}/rounds/{computed['round'].pk}/?question=rel")
    assert page.status_code == 200
    text = page.content.decode()
    for name in (
        "Relation F1, exact (head, tail, label)",
        "Relation F1, units matched by overlap",
        "Krippendorff&#x27;s alpha on relations (nominal)",
    ):
        assert f'<th scope="row">{name}</th>' in text
    assert '<th scope="col">Relation F1 by overlap</th>' in text
    d1 = Item.objects.get(study=study, external_id="d1")
    item_url = (
        f"/studies/{study.pk}/rounds/{computed['round'].pk}/questions/"
        f"{computed['question'].pk}/images/{d1.pk}/"
    )
    assert f'<a href="{item_url}">d1</a>' in text


def _item_page(study: Study, manager: Any, computed: dict[str, Any], name: str) -> str:
    browser = Client()
    browser.force_login(manager)
    item = Item.objects.get(study=study, external_id=name)
    page = browser.get(
        f"/studies/{study.pk}/rounds/{computed['round'].pk}/questions/"
        f"{computed['question'].pk}/images/{item.pk}/"
    )
    assert page.status_code == 200
    return page.content.decode()


def test_the_document_page_draws_each_coders_relations_as_arcs_on_the_text(
    computed: dict[str, Any], study: Study, manager: Any
) -> None:
    text = _item_page(study, manager, computed, "d1")
    svg = text[text.index('<svg id="relation-arcs"') : text.index("</svg>") + 6]
    assert svg.count('<path class="arc"') == 3
    assert svg.count('<g class="relation-lane"') == 2
    assert "<title>bob: 10–13 → 17–22 knows</title>" in svg
    # The text sits under each lane, stretched so each character is at its offset.
    assert svg.count(f'lengthAdjust="spacingAndGlyphs" xml:space="preserve">{TEXT}</text>') == 2
    # CSP: no inline script or style, only attributes of the SVG's geometry and colours.
    assert "style=" not in svg
    assert "<script>" not in text
    assert (
        '<tr data-coder="alice"><th scope="row">alice</th><td class="unit">0–5 <q>Alice</q></td>'
        '<td class="label">works_for</td><td class="unit">10–13 <q>Bob</q></td></tr>'
    ) in text
    assert (
        '<tr data-coder="bob"><th scope="row">bob</th><td class="unit">10–13 <q>Bob</q></td>'
        '<td class="label">knows</td><td class="unit">17–22 <q>Paris</q></td></tr>'
    ) in text


def test_a_document_nobody_related_anything_in_says_so_for_each_coder(
    computed: dict[str, Any], study: Study, manager: Any
) -> None:
    text = _item_page(study, manager, computed, "d3")
    for coder in ("alice", "bob"):
        assert (
            f'<tr data-coder="{coder}"><th scope="row">{coder}</th>'
            '<td colspan="3">annotated, no relation</td></tr>'
        ) in text
