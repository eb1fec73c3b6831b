"""The next step the dashboard suggests: the first rule that applies, as a plain sentence.

Hand-made states, one per rule, in the rule's order (pages/next_step.py, docs/pages.md).
"""

from __future__ import annotations

from dataclasses import replace

from pages.next_step import CoderGap, QuestionState, lowest_coder, next_step

GAP = 0.1

#: A question computed in R2 with nothing waiting.
QUIET = QuestionState(
    question_key="tone",
    round_name="R2",
    computed=True,
    stale=False,
    review_open=0,
    lowest_coder=None,
    pair_coefficient="Cohen's kappa / multi-kappa",
    planned=True,
    can_plan=True,
    compute_url="/studies/1/#compute-heading",
    review_url="/review/",
    coder_url="/coders/3/",
    plan_url="/plans/?question=2&pilot=5",
    report_url="/studies/1/rounds/5/report/",
)


def _said(state: QuestionState) -> tuple[str, str, str, str]:
    step = next_step(state, retrain_gap=GAP)
    return step.kind, step.text, step.link_text, step.url


def test_a_question_without_a_result_asks_for_a_computation() -> None:
    state = replace(QUIET, computed=False, round_name=None, stale=True, review_open=3)
    assert _said(state) == (
        "compute",
        "No computation of tone has finished yet.",
        "Request a computation",
        "/studies/1/#compute-heading",
    )


def test_a_stale_result_asks_for_the_round_again_before_anything_else() -> None:
    state = replace(QUIET, stale=True, review_open=3, planned=False)
    assert _said(state) == (
        "recompute",
        "The annotations of tone in R2 changed after its latest computation.",
        "Compute R2 again",
        "/studies/1/#compute-heading",
    )


def test_open_review_items_come_before_a_coder_to_retrain() -> None:
    state = replace(QUIET, review_open=2, lowest_coder=CoderGap("C", 0.5, 0.9))
    assert _said(state) == (
        "review",
        "The review queue of tone in R2 holds 2 open items.",
        "Review them",
        "/review/",
    )
    assert _said(replace(state, review_open=1))[1:3] == (
        "The review queue of tone in R2 holds 1 open item.",
        "Review it",
    )


def test_a_coder_far_below_the_others_is_to_be_retrained() -> None:
    # 0.566 against the others' mean 0.761: 0.195 below, more than 0.1.
    state = replace(QUIET, lowest_coder=CoderGap("C", 0.566, 0.761), planned=False)
    assert _said(state) == (
        "retrain",
        "C's mean agreement with the other coders in R2 (Cohen's kappa / multi-kappa) is "
        "0.566, 0.195 below the others' mean of 0.761.",
        "Retrain C",
        "/coders/3/",
    )


def test_a_coder_close_to_the_others_is_not_and_a_missing_plan_is_proposed() -> None:
    # 0.70 against 0.79: 0.09 below, less than 0.1.
    state = replace(QUIET, lowest_coder=CoderGap("C", 0.70, 0.79), planned=False)
    assert _said(state) == (
        "plan",
        "No sample-size plan of tone takes R2 as its pilot yet.",
        "Plan the next round",
        "/plans/?question=2&pilot=5",
    )


def test_with_nothing_waiting_the_report_is_next() -> None:
    assert _said(QUIET) == (
        "report",
        "tone in R2 has nothing waiting: no open review items, no coder far below the "
        "others, a plan from this round.",
        "Read its reliability report",
        "/studies/1/rounds/5/report/",
    )
    # A kind without plans is not asked for one.
    assert _said(replace(QUIET, planned=False, can_plan=False))[1] == (
        "tone in R2 has nothing waiting: no open review items, no coder far below the others."
    )


def test_the_lowest_coder_is_measured_against_the_mean_of_the_others() -> None:
    # Means 0.5, 0.7, 0.8, 0.9: the others' mean is (0.7 + 0.8 + 0.9) / 3 = 0.8.
    gap = lowest_coder({"A": 0.7, "B": 0.9, "C": 0.5, "D": 0.8, "E": None})
    assert gap is not None
    assert (gap.coder, gap.value) == ("C", 0.5)
    assert abs(gap.others_mean - 0.8) < 1e-12
    assert abs(gap.gap - 0.3) < 1e-12
    # Two coders share one pair: no coder stands out.
    assert lowest_coder({"A": 0.4, "B": 0.4}) is None
