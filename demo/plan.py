"""The demo's steps after the number: a review queue and plans for the next round.

The sentiment question gets a review rule (items where the coders disagree), so the queue is
built on the worker when the demo's computations finish. Two sample-size plans for the next
round take the latest round ("Main") as the pilot, both for alpha's 95% lower bound with
probability 0.8: genre (alpha 0.68 in Main) for a lower bound of 0.5, in the demo's design
of three coders; sentiment (alpha 0.45 in Main) for a modest 0.3, also for two and four
coders per item. Both plan on Main's one-sided 80% lower bound (the default), on which a
target of 0.6 for genre is out of reach from a 40-item pilot. Workers compute and store
them; see docs/workflow.md.
"""

from __future__ import annotations

from planning.models import PlanRequest
from planning.services import plan_request_create
from review.services import review_rule_set
from studies.models import Question, Round, Study

#: (question key, target, other designs) of each demo plan.
DEMO_PLANS: tuple[tuple[str, float, tuple[int, ...]], ...] = (
    ("genre", 0.5, ()),
    ("sentiment", 0.3, (2, 4)),
)
DEMO_PLAN_POWER = 0.8


def demo_plan_create(*, study: Study) -> list[PlanRequest]:
    """Set the sentiment question's review rule and request the plans (sent after commit)."""
    sentiment = Question.objects.get(study=study, key="sentiment")
    review_rule_set(question=sentiment, disagreement=True)
    pilot = Round.objects.filter(study=study).order_by("-position").first()
    return [
        plan_request_create(
            study=study,
            question=Question.objects.get(study=study, key=key),
            pilot_round=pilot,
            target=target,
            power=DEMO_PLAN_POWER,
            coders_per_item=designs,
        )
        for key, target, designs in DEMO_PLANS
    ]
