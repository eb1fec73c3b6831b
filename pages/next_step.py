"""The next step the study page suggests for a question: one rule, read from stored state.

The first that applies, in this order (docs/pages.md, "The study dashboard"):

1. no finished computation: request one;
2. the latest result's annotations, or the distance table it used, changed since: compute
   that round again (with the same parameters, when its distance table changed);
3. the review queue holds open items of that round: review them;
4. one coder's mean agreement with the others is ``retrain_gap`` or more below the mean of
   the other coders' (three coders or more): retrain that coder;
5. no stored sample-size plan takes that round as its pilot: plan the next round;
6. otherwise: report the round (its reliability report).

Nothing here queries or computes: the dashboard passes what it read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pages.number_text import number_text


@dataclass(frozen=True)
class NextStep:
    """A plain sentence (``text``) and the link that does it."""

    kind: str
    text: str
    link_text: str
    url: str
    #: A computation to request again with its own parameters (one click), instead of the
    #: link: a result whose distance table changed (the page's form asks for the defaults).
    again: int | None = None


@dataclass(frozen=True)
class CoderGap:
    """The coder whose mean agreement with the others is lowest, and by how much."""

    coder: str
    value: float
    others_mean: float

    @property
    def gap(self) -> float:
        return self.others_mean - self.value


def lowest_coder(per_coder: Mapping[str, float | None]) -> CoderGap | None:
    """The coder with the lowest mean agreement with the others, against the mean of the
    other coders' means; None with fewer than three coders with a value (with two, each
    coder's mean is the same single pair)."""
    known = sorted(
        ((value, coder) for coder, value in per_coder.items() if value is not None),
        key=lambda pair: (pair[0], pair[1]),
    )
    if len(known) < 3:
        return None
    value, coder = known[0]
    others = [v for v, _ in known[1:]]
    return CoderGap(coder, value, sum(others) / len(others))


@dataclass(frozen=True)
class QuestionState:
    """What the rule reads about one question (all from stored state)."""

    question_key: str
    round_name: str | None
    computed: bool
    stale: bool
    review_open: int
    lowest_coder: CoderGap | None
    pair_coefficient: str
    planned: bool
    can_plan: bool
    compute_url: str
    review_url: str | None
    coder_url: str | None
    plan_url: str | None
    report_url: str | None
    #: What changed after the latest result ("the distance table was replaced"), when it
    #: is stale; its computation.
    stale_changes: tuple[str, ...] = ()
    computation_id: int | None = None


def next_step(state: QuestionState, *, retrain_gap: float) -> NextStep:
    key, round_name = state.question_key, state.round_name
    if not state.computed or round_name is None:
        return NextStep(
            "compute",
            f"No computation of {key} has finished yet.",
            "Request a computation",
            state.compute_url,
        )
    if state.stale:
        if state.stale_changes in ((), ("the annotations changed",)):
            return NextStep(
                "recompute",
                f"The annotations of {key} in {round_name} changed after its latest computation.",
                f"Compute {round_name} again",
                state.compute_url,
            )
        return NextStep(
            "recompute",
            f"Since the latest computation of {key} in {round_name}, "
            f"{' and '.join(state.stale_changes)}.",
            f"Compute {round_name} again",
            state.compute_url,
            again=state.computation_id,
        )
    if state.review_open and state.review_url:
        items = "item" if state.review_open == 1 else "items"
        return NextStep(
            "review",
            f"The review queue of {key} in {round_name} holds {state.review_open} open {items}.",
            "Review it" if state.review_open == 1 else "Review them",
            state.review_url,
        )
    gap = state.lowest_coder
    if gap is not None and gap.gap >= retrain_gap and state.coder_url:
        return NextStep(
            "retrain",
            f"{gap.coder}'s mean agreement with the other coders in {round_name} "
            f"({state.pair_coefficient}) is {number_text(gap.value)}, "
            f"{number_text(gap.gap)} below the others' mean of {number_text(gap.others_mean)}.",
            f"Retrain {gap.coder}",
            state.coder_url,
        )
    if state.can_plan and not state.planned and state.plan_url:
        return NextStep(
            "plan",
            f"No sample-size plan of {key} takes {round_name} as its pilot yet.",
            "Plan the next round",
            state.plan_url,
        )
    return NextStep(
        "report",
        f"{key} in {round_name} has nothing waiting: no open review items, no coder far "
        "below the others" + (", a plan from this round" if state.can_plan else "") + ".",
        "Read its reliability report",
        state.report_url or state.compute_url,
    )
