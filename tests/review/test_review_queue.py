"""The review queue end to end: built on the worker when a computation finishes, read and
resolved over the API, exported, announced by webhook, shown on a page.

The round (coders c1..c3, items u1..u4, question ``sentiment``)::

    item  c1  c2  c3
    u1    a   a   a     all agree
    u2    a   b   b     disagree; agreeing pairs 1 of 3
    u3    b   b   b     all agree
    u4    c   -   -     one coder

Rule: disagreement, or fewer than 2 coders -> u2 (disagreement) and u4 (few_coders).
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from django.test import Client
from django.utils import timezone

from computations.models import Computation, ComputationStatus
from computations.services import computation_request
from review.models import ReviewEntry, ReviewResolution
from review.services import review_rule_set
from studies.models import Annotation
from tests.computations.helpers import label_round, nominal_question
from tests.factories import CoderFactory, ItemFactory, RoundFactory
from webhooks.models import WebhookDelivery
from webhooks.services import webhook_endpoint_create

pytestmark = pytest.mark.django_db

TABLE = [
    ["a", "a", "b", "c"],
    ["a", "b", "b", None],
    ["a", "b", "b", None],
]


@pytest.fixture
def queue(study: Any, django_capture_on_commit_callbacks: Any) -> dict[str, Any]:
    question = nominal_question(study, key="sentiment")
    round_ = RoundFactory(study=study, name="Round 1")
    coders = [CoderFactory(study=study, key=f"c{n}") for n in (1, 2, 3)]
    items = [ItemFactory(study=study, external_id=f"u{n}", text=f"Text {n}") for n in (1, 2, 3, 4)]
    label_round(round_, question, TABLE, coders=coders, items=items)
    review_rule_set(question=question, disagreement=True, min_coders=2)
    webhook_endpoint_create(
        study=study, url="https://hooks.example.org/review", events=["review.items_added"]
    )
    with mock.patch("webhooks.services.dispatch.deliveries_enqueue"):
        compute(study, question, round_, django_capture_on_commit_callbacks)
    return {"question": question, "round": round_, "items": items, "coders": coders}


def compute(study: Any, question: Any, round_: Any, capture: Any) -> None:
    with capture(execute=True):
        result = computation_request(
            study=study, question=question, rounds=[round_], parameters={"bootstrap": 0}
        )
    assert Computation.objects.get(pk=result.computation.pk).status == ComputationStatus.DONE


def open_entries() -> list[tuple[str, str, dict[str, str], int, float | None]]:
    return [
        (e.item.external_id, e.reason, e.labels, e.n_coders, e.agreement)
        for e in ReviewEntry.objects.filter(resolved_at__isnull=True).order_by("item__external_id")
    ]


def test_a_finished_computation_builds_the_queue(queue: dict[str, Any]) -> None:
    assert open_entries() == [
        ("u2", "disagreement", {"c1": "a", "c2": "b", "c3": "b"}, 3, pytest.approx(1 / 3)),
        ("u4", "few_coders", {"c1": "c"}, 1, None),
    ]


def test_items_entering_the_queue_fire_review_items_added(queue: dict[str, Any]) -> None:
    delivery = WebhookDelivery.objects.get(event="review.items_added")
    data = delivery.payload["data"]
    assert data["round"]["name"] == "Round 1"
    assert data["question"]["key"] == "sentiment"
    assert data["added"] == 2
    assert [(e["item"], e["reason"], e["labels"]) for e in data["entries"]] == [
        ("u2", ["disagreement"], {"c1": "a", "c2": "b", "c3": "b"}),
        ("u4", ["few_coders"], {"c1": "c"}),
    ]
    assert data["queue_url"].endswith(
        f"/api/v1/studies/{queue['round'].study_id}/review/?round={queue['round'].pk}"
        "&question=sentiment"
    )


def test_a_reannotated_item_leaves_the_queue_at_the_next_computation(
    study: Any, queue: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    u2 = queue["items"][1]
    Annotation.objects.filter(item=u2, coder=queue["coders"][0]).update(
        category=queue["question"].categories.get(code="b"), updated_at=timezone.now()
    )
    with mock.patch("webhooks.services.dispatch.deliveries_enqueue"):
        compute(study, queue["question"], queue["round"], django_capture_on_commit_callbacks)
    assert [row[0] for row in open_entries()] == ["u4"]
    left = ReviewEntry.objects.get(item=u2)
    assert left.resolution == ReviewResolution.REANNOTATED
    assert left.resolved_at is not None


def _base(study: Any) -> str:
    return f"/api/v1/studies/{study.pk}"


def test_members_read_the_queue_and_outsiders_find_nothing(
    study: Any, queue: dict[str, Any], viewer_client: Any, outsider_client: Any
) -> None:
    response = viewer_client.get(f"{_base(study)}/review/", {"question": "sentiment"})
    assert response.status_code == 200
    rows = response.json()["results"]
    assert [(r["item"], r["reason"], r["labels"], r["round"]) for r in rows] == [
        ("u2", ["disagreement"], {"c1": "a", "c2": "b", "c3": "b"}, "Round 1"),
        ("u4", ["few_coders"], {"c1": "c"}, "Round 1"),
    ]
    assert outsider_client.get(f"{_base(study)}/review/").status_code == 404
    assert viewer_client.get(f"{_base(study)}/review/", {"colour": "red"}).status_code == 400


def test_annotators_resolve_viewers_may_not(
    study: Any, queue: dict[str, Any], viewer_client: Any, annotator_client: Any
) -> None:
    entry = ReviewEntry.objects.get(item__external_id="u2")
    url = f"{_base(study)}/review/{entry.pk}/resolve/"
    assert viewer_client.post(url, {"note": "x"}, format="json").status_code == 403
    response = annotator_client.post(url, {"note": "b is right"}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert (body["resolution"], body["resolution_note"], body["resolved_by"]) == (
        "resolved",
        "b is right",
        "annotator_a",
    )
    again = annotator_client.post(url, {"note": "twice"}, format="json")
    assert again.status_code == 400
    listed = annotator_client.get(f"{_base(study)}/review/").json()["results"]
    assert [r["item"] for r in listed] == ["u4"]
    everything = annotator_client.get(f"{_base(study)}/review/", {"unresolved": "false"})
    assert [r["item"] for r in everything.json()["results"]] == ["u2", "u4"]


def test_a_resolved_item_stays_out_while_its_labels_are_unchanged(
    study: Any,
    queue: dict[str, Any],
    annotator_client: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    entry = ReviewEntry.objects.get(item__external_id="u2")
    annotator_client.post(f"{_base(study)}/review/{entry.pk}/resolve/", {}, format="json")
    # Another item changes (so the round is computed again); u2 keeps its labels.
    u1 = queue["items"][0]
    Annotation.objects.filter(item=u1, coder=queue["coders"][2]).delete()
    with mock.patch("webhooks.services.dispatch.deliveries_enqueue"):
        compute(study, queue["question"], queue["round"], django_capture_on_commit_callbacks)
    assert [row[0] for row in open_entries()] == ["u4"]


def test_managers_edit_rules_others_read_them(
    study: Any, queue: dict[str, Any], manager_client: Any, viewer_client: Any
) -> None:
    url = f"{_base(study)}/review-rules/{queue['question'].pk}/"
    assert viewer_client.get(url).json() == {
        "question": "sentiment",
        "disagreement": True,
        "min_coders": 2,
        "max_item_agreement": None,
        "is_active": True,
        "updated_at": viewer_client.get(url).json()["updated_at"],
    }
    assert viewer_client.patch(url, {"min_coders": 3}, format="json").status_code == 403
    response = manager_client.patch(url, {"max_item_agreement": 0.5}, format="json")
    assert response.status_code == 200
    assert (response.json()["min_coders"], response.json()["max_item_agreement"]) == (2, 0.5)
    bad = manager_client.patch(url, {"max_item_agreement": 1.5}, format="json")
    assert bad.status_code == 400
    assert manager_client.delete(url).status_code == 204
    assert viewer_client.get(url).json()["is_active"] is False


def test_the_csv_export_is_literal(study: Any, queue: dict[str, Any], viewer_client: Any) -> None:
    ids = dict(ReviewEntry.objects.values_list("item__external_id", "pk"))
    response = viewer_client.get(f"{_base(study)}/review/csv/")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response.content.decode() == (
        "entry,round,question,item,reason,n_coders,agreement,coder,label,resolved_at,"
        "resolution,note\n"
        f"{ids['u2']},Round 1,sentiment,u2,disagreement,3,0.3333333333333333,c1,a,,,\n"
        f"{ids['u2']},Round 1,sentiment,u2,disagreement,3,0.3333333333333333,c2,b,,,\n"
        f"{ids['u2']},Round 1,sentiment,u2,disagreement,3,0.3333333333333333,c3,b,,,\n"
        f"{ids['u4']},Round 1,sentiment,u4,few_coders,1,,c1,c,,,\n"
    )


def test_the_csv_export_neutralises_formulas(study: Any, viewer_client: Any) -> None:
    from review import exports

    entry = mock.Mock(
        pk=1,
        reason="disagreement",
        n_coders=2,
        agreement=0.0,
        labels={"=cmd()": "+1"},
        resolved_at=None,
        resolution="",
        resolution_note="@SUM(A1)",
    )
    entry.round.name = "R"
    entry.question.key = "q"
    entry.item.external_id = "-2+3"
    assert exports.review_csv([entry]).splitlines()[1] == (
        "1,R,q,'-2+3,disagreement,2,0.0,'=cmd(),'+1,,,'@SUM(A1)"
    )


def test_the_label_studio_export_has_one_prediction_per_coder(
    study: Any, queue: dict[str, Any], viewer_client: Any
) -> None:
    u2 = ReviewEntry.objects.get(item__external_id="u2")
    response = viewer_client.get(
        f"{_base(study)}/review/label-studio/", {"question": "sentiment", "reason": "disagreement"}
    )
    assert response.status_code == 200

    def choice(label: str) -> dict[str, Any]:
        return {
            "from_name": "sentiment",
            "to_name": "text",
            "type": "choices",
            "value": {"choices": [label]},
        }

    assert response.json() == [
        {
            "data": {
                "text": "Text 2",
                "item": "u2",
                "round": "Round 1",
                "review_entry": u2.pk,
                "review_reason": "disagreement",
            },
            "predictions": [
                {"model_version": "c1", "result": [choice("a")]},
                {"model_version": "c2", "result": [choice("b")]},
                {"model_version": "c3", "result": [choice("b")]},
            ],
        }
    ]


def test_the_page_lists_the_queue_with_the_competing_labels(
    study: Any, queue: dict[str, Any], viewer: Any, outsider: Any
) -> None:
    client = Client()
    client.force_login(viewer)
    url = f"/studies/{study.pk}/rounds/{queue['round'].pk}/questions/{queue['question'].pk}/review/"
    text = client.get(url).content.decode()
    assert "Review queue: Round 1, question sentiment" in text
    assert "Rule:" in text
    assert "items where the coders disagree; items with fewer than 2 coders." in text
    assert "2 items; the queue is rebuilt" in text
    assert (
        '<th scope="row">u2</th><td>disagreement</td><td class="num">3</td>'
        '<td class="num">0.333</td><td>a</td><td>b</td><td>b</td>'
    ) in text
    assert (
        '<th scope="row">u4</th><td>few_coders</td><td class="num">1</td>'
        '<td class="num">—</td><td>c</td><td>—</td><td>—</td>'
    ) in text
    client.force_login(outsider)
    assert client.get(url).status_code == 404
