"""Stale marks: an adjudication, a review-queue entry, a reference result or a plan made
before a coder relabelled says so, with what changed, and offers the one-click recompute.

The world: one round of a yes/no question, three coders, eight items; the review rule sends
disagreements; item-1 is adjudicated "yes" from coder-a; a plan is made from the round. Then
coder-b relabels item-1 (and item-2) through the upload service, which logs each change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from adjudication.models import Adjudication, ReferenceResult
from adjudication.services import adjudicate
from annotations.services import annotations_bulk_upsert
from computations.services import computation_request
from planning.models import PlanRequest
from planning.services import plan_request_create
from review.services import review_rule_set
from studies.access import Actor
from studies.models import Coder, Item, Question, Round, Study
from tests.computations.helpers import label_round, nominal_question
from tests.factories import RoundFactory

pytestmark = pytest.mark.django_db

#: ``LABELS[c][u]``: coder c's label of item u.
LABELS = [
    ["yes", "yes", "no", "no", "yes", "no", "yes", "no"],
    ["no", "yes", "no", "yes", "yes", "no", "yes", "no"],
    ["yes", "no", "no", "no", "yes", "yes", "yes", "no"],
]


@dataclass
class StaleWorld:
    study: Study
    question: Question
    round: Round
    coders: list[Coder]
    items: list[Item]
    plan: PlanRequest


@pytest.fixture
def world(study: Study, manager: Any, django_capture_on_commit_callbacks: Any) -> StaleWorld:
    question = nominal_question(study, codes=("yes", "no"), key="relevant")
    review_rule_set(question=question, disagreement=True)
    round_ = RoundFactory(study=study, name="R1", position=1)
    coders = [Coder.objects.create(study=study, key=f"coder-{c}") for c in "abc"]
    items = [Item.objects.create(study=study, external_id=f"item-{n}") for n in range(8)]
    label_round(round_, question, LABELS, coders=coders, items=items)
    with django_capture_on_commit_callbacks(execute=True):
        computation_request(
            study=study, question=question, rounds=[round_], parameters={"bootstrap": 50}
        )
    with django_capture_on_commit_callbacks(execute=True):
        adjudicate(round_=round_, question=question, item=items[0], coder=coders[0], user=manager)
    with django_capture_on_commit_callbacks(execute=True):
        plan = plan_request_create(
            study=study,
            question=question,
            pilot_round=round_,
            target=0.1,
            power=0.8,
            replicates=50,
            # An 8-item pilot: its 80% lower bound leaves no size reaching the target; the
            # marks, not the plan, are under test here.
            pilot_uncertainty="none",
        )
    plan.refresh_from_db()
    assert plan.status == "done", plan.error
    return StaleWorld(study, question, round_, coders, items, plan)


def _relabel(world: StaleWorld, manager: Any, capture: Any) -> None:
    """coder-b changes item-1 from no to yes and item-2 from yes to no."""
    with capture(execute=True):
        annotations_bulk_upsert(
            study=world.study,
            round_ref=world.round.pk,
            question_key=world.question.key,
            rows=[
                {"item": "item-0", "coder": "coder-b", "label": "yes"},
                {"item": "item-1", "coder": "coder-b", "label": "no"},
            ],
            actor=Actor(user=manager, token=None),
        )


def _flat(html: str) -> str:
    return re.sub(r"\s+", " ", html)


def _csrf(client: Client, url: str) -> str:
    client.get(url)
    return client.cookies["csrftoken"].value


def test_nothing_is_marked_before_the_labels_change(
    world: StaleWorld, manager: Any, site_client: Any
) -> None:
    client = site_client(manager)
    args = [world.study.pk, world.round.pk, world.question.pk]
    for name in ("pages:adjudication", "pages:review-queue", "pages:reference-results"):
        assert "Changed since" not in client.get(reverse(name, args=args)).content.decode()
    plans = client.get(reverse("pages:plans", args=[world.study.pk])).content.decode()
    assert "Changed since" not in plans


def test_an_adjudication_made_before_a_relabelling_says_what_changed_and_is_kept_in_one_click(
    world: StaleWorld, manager: Any, site_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    _relabel(world, manager, django_capture_on_commit_callbacks)
    client = site_client(manager)
    url = reverse("pages:adjudication", args=[world.study.pk, world.round.pk, world.question.pk])
    html = _flat(client.get(url).content.decode())
    row = re.search(r'<tr id="item-\d+" data-item="item-0".*?</tr>', html)
    assert row is not None
    assert (
        '<strong class="stale">Changed since this decision</strong>: 1 label changed (coder-b 1)'
        in row.group(0)
    )
    assert "<li>coder-b relabelled item-0: no → yes <small>(" in row.group(0)
    assert (
        '<input type="hidden" name="choice" value="coder-a"><input type="hidden" name="label" '
        'value=""><input type="hidden" name="note" value="Confirmed after the labels changed.">'
        '<button type="submit">Keep yes</button>'
    ) in row.group(0)
    # item-1 had no decision: nothing to mark.
    other = re.search(r'<tr id="item-\d+" data-item="item-1".*?</tr>', html)
    assert other is not None
    assert "Changed since" not in other.group(0)
    # One click: the decision is recorded again, after the change, and the mark goes.
    token = _csrf(client, url)
    response = client.post(
        reverse("pages:adjudicate", args=[world.study.pk, world.round.pk, world.question.pk]),
        {
            "item": world.items[0].pk,
            "choice": "coder-a",
            "label": "",
            "note": "Confirmed after the labels changed.",
            "csrfmiddlewaretoken": token,
        },
    )
    assert response.status_code == 302
    current = Adjudication.objects.get(item=world.items[0], superseded_at__isnull=True)
    assert (current.value, current.note) == ("yes", "Confirmed after the labels changed.")
    assert "Changed since this decision" not in client.get(url).content.decode()


def test_a_review_entry_queued_before_a_relabelling_is_marked_with_a_rebuild_button(
    world: StaleWorld, manager: Any, site_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    _relabel(world, manager, django_capture_on_commit_callbacks)
    client = site_client(manager)
    url = reverse("pages:review-queue", args=[world.study.pk, world.round.pk, world.question.pk])
    html = _flat(client.get(url).content.decode())
    assert (
        '<strong class="stale">1 item of the queue changed since it was queued</strong>'
    ) in html
    row = re.search(r'<tr data-entry="\d+" class="stale-row">.*?</tr>', html)
    assert row is not None
    assert '<th scope="row">item-1</th>' in row.group(0)
    assert "coder-b relabelled item-1: yes → no" in row.group(0)
    assert (
        f'<input type="hidden" name="question" value="{world.question.pk}"><input '
        f'type="hidden" name="round" value="{world.round.pk}"><input type="hidden" name="next" '
        f'value="{url}"><button type="submit">Compute R1 again and rebuild the queue</button>'
    ) in html
    token = _csrf(client, url)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("pages:computation-request", args=[world.study.pk]),
            {
                "question": world.question.pk,
                "round": world.round.pk,
                "next": url,
                "csrfmiddlewaretoken": token,
            },
        )
    assert response.status_code == 302
    assert response["Location"] == url
    assert "changed since it was queued" not in client.get(url).content.decode()


def test_a_reference_result_computed_before_a_relabelling_is_marked_and_recomputed(
    world: StaleWorld, manager: Any, site_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    assert ReferenceResult.objects.get(round=world.round).status == "done"
    _relabel(world, manager, django_capture_on_commit_callbacks)
    client = site_client(manager)
    args = [world.study.pk, world.round.pk, world.question.pk]
    url = reverse("pages:reference-results", args=args)
    html = _flat(client.get(url).content.decode())
    assert (
        '<strong class="stale">Changed since these results were computed</strong>: 2 labels '
        "changed (coder-b 2)"
    ) in html
    assert '<button type="submit">Compute against the reference again</button>' in html
    token = _csrf(client, url)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("pages:reference-request", args=args), {"csrfmiddlewaretoken": token}
        )
    assert response.status_code == 302
    assert "Changed since" not in client.get(url).content.decode()


def test_a_plan_made_before_the_pilot_changed_is_outdated_and_planned_again_in_one_click(
    world: StaleWorld, manager: Any, site_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    _relabel(world, manager, django_capture_on_commit_callbacks)
    client = site_client(manager)
    url = reverse("pages:plans", args=[world.study.pk]) + f"?question={world.question.pk}"
    html = _flat(client.get(url).content.decode())
    plan = re.search(rf'<article class="plan" data-plan="{world.plan.pk}">.*?</article>', html)
    assert plan is not None
    assert (
        '<strong class="stale">Changed since this plan read its pilot</strong>: 2 labels changed '
        "(coder-b 2)"
    ) in plan.group(0)
    assert (
        "<p>This plan is outdated: it was made from the pilot's earlier labels.</p>"
        in plan.group(0)
    )
    assert (
        f'<input type="hidden" name="pilot_round" value="{world.round.pk}"><input type="hidden" '
        'name="coefficient" value="alpha"><input type="hidden" name="target" value="0.1"><input '
        'type="hidden" name="confidence" value="0.95"><input type="hidden" name="power" '
        'value="0.8"><input type="hidden" name="coders_per_item" value=""><input type="hidden" '
        'name="pilot_uncertainty" value="none"><button type="submit">Plan again from the '
        "current labels</button>"
    ) in plan.group(0)
    token = _csrf(client, url)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("pages:plan-request", args=[world.study.pk]),
            {
                "question": world.question.pk,
                "pilot_round": world.round.pk,
                "coefficient": "alpha",
                "target": "0.1",
                "confidence": "0.95",
                "power": "0.8",
                "coders_per_item": "",
                "pilot_uncertainty": "none",
                "csrfmiddlewaretoken": token,
            },
        )
    assert response.status_code == 302
    newest = PlanRequest.objects.order_by("-id").first()
    assert newest is not None
    assert newest.pk != world.plan.pk
    html = _flat(client.get(url).content.decode())
    fresh = re.search(rf'<article class="plan" data-plan="{newest.pk}">.*?</article>', html)
    assert fresh is not None
    assert "Changed since" not in fresh.group(0)


def test_viewers_see_the_marks_without_the_buttons(
    world: StaleWorld, manager: Any, viewer: Any, site_client: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    _relabel(world, manager, django_capture_on_commit_callbacks)
    client = site_client(viewer)
    args = [world.study.pk, world.round.pk, world.question.pk]
    adjudication = client.get(reverse("pages:adjudication", args=args)).content.decode()
    assert "Changed since this decision" in adjudication
    assert "Keep yes" not in adjudication
    reference = client.get(reverse("pages:reference-results", args=args)).content.decode()
    assert "An annotator or a manager of the study can compute them again." in reference
    refused = client.post(reverse("pages:reference-request", args=args))
    assert refused.status_code == 403
