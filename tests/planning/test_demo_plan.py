"""The demo's plans and review queue, built by the workers (eager) after the demo loads."""

from __future__ import annotations

from typing import Any

import pytest

from demo.loader import demo_study_ensure
from planning.models import PlanRequest, PlanStatus
from review.models import ReviewEntry
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_the_demo_stores_plans_for_the_next_round_and_fills_the_review_queue(
    django_capture_on_commit_callbacks: Any,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        study = demo_study_ensure(manager=UserFactory(username="admin")).study
    plans = {p.question.key: p for p in PlanRequest.objects.filter(study=study)}
    assert sorted(plans) == ["genre", "sentiment"]
    sentiment = plans["sentiment"]
    assert sentiment.status == PlanStatus.DONE, sentiment.error
    assert sentiment.pilot_round is not None
    assert sentiment.pilot_round.name == "Main"
    # The plan is the people's: the demo's model coder (and its sixty posts of its own) is
    # left out of the pilot. The Main round's people's sentiment labels written as CSV
    # (item,coder,label; ids zero-padded so that the file's order is the server's) and
    # planned by ``python -m metrics plan main.csv --domain positive,neutral,negative
    # --target 0.3 --power 0.8``: "910 items ... probability 0.818 ... alpha of the pilot
    # 0.4476" (the default: on the 40-item pilot's one-sided 80% lower bound; taken as the
    # truth, ``--pilot-uncertainty none``, 128 items; docs/references.md#server-plan-pilot).
    assert sentiment.recommended_items == 910
    assert sentiment.result["recommended"]["probability"] == 0.818
    assert sentiment.result["pilot"]["estimate"] == pytest.approx(0.4476, abs=5e-5)
    assert [p["design"] for p in sentiment.result["plans"]] == [
        "pilot",
        "2 coders per item",
        "4 coders per item",
    ]
    assert plans["genre"].status == PlanStatus.DONE, plans["genre"].error
    queue = ReviewEntry.objects.filter(
        round__study=study, question__key="sentiment", resolved_at__isnull=True
    )
    assert queue.filter(round__name="Main").count() > 0
