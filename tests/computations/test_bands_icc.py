"""Stored benchmark bands, ICC tables and the probability that a round is higher, through
the computation service (Celery eager via on-commit callbacks).

Published values: Shrout & Fleiss (1979), Table 4, and pingouin 0.7.0's full-precision
ICC(A,1) (docs/references.md#shrout-fleiss-1979, #pingouin-icc-cases). The band and
later-round probabilities are hand cases whose every replicate falls on one side.
"""

from __future__ import annotations

from typing import Any

import pytest

from computations.comparison import rounds_compare
from computations.models import ComputationScope
from computations.services import computation_request
from studies.models import LabelKind
from tests.computations.helpers import label_round, nominal_question
from tests.factories import QuestionFactory, RoundFactory

pytestmark = pytest.mark.django_db

# Shrout & Fleiss (1979), Table 2, judges × targets. docs/references.md#shrout-fleiss-1979
SHROUT_FLEISS = [
    [9, 6, 8, 7, 10, 6],
    [2, 1, 4, 1, 5, 2],
    [5, 3, 6, 2, 6, 4],
    [8, 2, 8, 6, 9, 7],
]
SHROUT_FLEISS_TABLE_4 = {
    "ICC1": 0.17,
    "ICC2": 0.29,
    "ICC3": 0.71,
    "ICC1k": 0.44,
    "ICC2k": 0.62,
    "ICC3k": 0.91,
}


def compute(study: Any, question: Any, round_: Any, capture: Any, **parameters: Any) -> Any:
    with capture(execute=True):
        result = computation_request(
            study=study, question=question, scope=ComputationScope.ROUND, rounds=[round_],
            parameters=parameters,
        )  # fmt: skip
    computation = result.computation
    computation.refresh_from_db()
    assert computation.status == "done", computation.error
    return computation


# -- ICC ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [LabelKind.INTERVAL, LabelKind.RATIO])
def test_an_interval_question_stores_the_icc_table(
    study: Any, django_capture_on_commit_callbacks: Any, kind: str
) -> None:
    question = QuestionFactory(study=study, kind=kind)
    round_ = RoundFactory(study=study, position=1)
    label_round(round_, question, SHROUT_FLEISS)
    computation = compute(study, question, round_, django_capture_on_commit_callbacks, bootstrap=0)
    table = computation.results["icc"]
    assert (table["n_items"], table["n_coders"]) == (6, 4)
    named = {f["shrout_fleiss"]: f for f in table["forms"] if f["shrout_fleiss"]}
    assert {k: round(v["value"], 2) for k, v in named.items()} == SHROUT_FLEISS_TABLE_4
    icc2 = named["ICC2"]
    assert (icc2["form"], icc2["df1"], icc2["df2"], round(icc2["f"], 2)) == (
        "ICC(A,1)",
        5.0,
        15.0,
        11.03,
    )
    assert icc2["low"] == pytest.approx(0.018786513374712058, rel=1e-9)
    assert icc2["high"] == pytest.approx(0.7610843696489527, rel=1e-9)
    assert icc2["p_value"] == pytest.approx(0.000134566516484335, rel=1e-9)
    assert "icc" not in computation.results["skipped"]


def test_an_incomplete_interval_design_stores_why_there_is_no_icc(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = QuestionFactory(study=study, kind=LabelKind.INTERVAL)
    round_ = RoundFactory(study=study, position=1)
    ratings: list[list[float | None]] = [list(map(float, row)) for row in SHROUT_FLEISS]
    ratings[1][0] = None
    label_round(round_, question, ratings)
    computation = compute(study, question, round_, django_capture_on_commit_callbacks, bootstrap=0)
    assert "icc" not in computation.results
    assert computation.results["skipped"]["icc"] == (
        "The ICC needs a complete design, every one of the 4 coders' ratings of every item: "
        "1 of 6 items miss a rating. The report gives the ICC for complete designs only."
    )


def test_a_nominal_question_has_no_icc(study: Any, django_capture_on_commit_callbacks: Any) -> None:
    question = nominal_question(study, codes=("a", "b"))
    round_ = RoundFactory(study=study, position=1)
    label_round(round_, question, AGREE)
    computation = compute(study, question, round_, django_capture_on_commit_callbacks, bootstrap=0)
    assert "icc" not in computation.results
    assert "icc" not in computation.results["skipped"]


# -- benchmark bands ------------------------------------------------------------------------------

#: Two coders who agree on all twelve items: every replicate of the observed agreement is 1,
#: and alpha is 1 on every resample holding both categories (undefined on the others).
AGREE = [list("aabbaabbabab"), list("aabbaabbabab")]
ALMOST_PERFECT = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("chunk_size", [1000, 10], ids=["inline", "fanned-out"])
def test_every_interval_stores_its_band_probabilities(
    study: Any, django_capture_on_commit_callbacks: Any, chunk_size: int
) -> None:
    question = nominal_question(study, codes=("a", "b"))
    round_ = RoundFactory(study=study, position=1)
    label_round(round_, question, AGREE)
    computation = compute(
        study, question, round_, django_capture_on_commit_callbacks,
        bootstrap=40, chunk_size=chunk_size, coefficients=["observed_agreement", "alpha"],
    )  # fmt: skip
    coefficients = computation.results["coefficients"]
    for name in ("observed_agreement", "alpha"):
        bands = coefficients[name]["ci"]["benchmarks"]
        assert bands["method"] == "replicates"
        assert bands["n_replicates"] + bands["n_omitted"] == 40
        landis_koch = bands["scales"]["landis_koch"]
        assert landis_koch["probabilities"] == ALMOST_PERFECT
        assert (landis_koch["attained"], landis_koch["attained_probability"]) == (
            "almost perfect",
            1.0,
        )
        assert bands["scales"]["krippendorff"]["attained"] == "good"
        assert bands["scales"]["fleiss"]["leading"] == "excellent"
    assert coefficients["observed_agreement"]["ci"]["benchmarks"]["n_omitted"] == 0


# -- is the later round higher? -------------------------------------------------------------------

#: R1: the coders disagree on every item (alpha below 0 on every resample); R2: they agree on
#: every item (alpha 1 where defined). Every paired replicate of R2 − R1 is positive.
DISAGREE = [list("aabbaabbabab"), list("bbaabbaababa")]


def test_the_stored_comparison_gives_the_probability_that_the_later_round_is_higher(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study, codes=("a", "b"))
    earlier = RoundFactory(study=study, name="R1", position=1)
    later = RoundFactory(study=study, name="R2", position=2)
    coders, items = label_round(earlier, question, DISAGREE)
    label_round(later, question, AGREE, coders=coders, items=items)
    compute(study, question, earlier, django_capture_on_commit_callbacks, bootstrap=0)
    computation = compute(study, question, later, django_capture_on_commit_callbacks, bootstrap=100)
    stored = computation.results["comparison_with_previous"]
    assert stored["paired"] is True
    later_higher = stored["difference"]["probability_later_higher"]
    assert (later_higher["probability"], later_higher["share_higher"]) == (1.0, 1.0)
    assert (later_higher["share_tied"], later_higher["share_lower"]) == (0.0, 0.0)
    assert later_higher["n_replicates"] + later_higher["n_omitted"] == 500


def test_a_worse_later_round_has_probability_zero_and_unpaired_has_none(study: Any) -> None:
    question = nominal_question(study, codes=("a", "b"))
    earlier = RoundFactory(study=study, name="R1", position=1)
    later = RoundFactory(study=study, name="R2", position=2)
    coders, items = label_round(earlier, question, AGREE)
    label_round(later, question, DISAGREE, coders=coders, items=items)
    result = rounds_compare(
        study=study, question=question, first=earlier, second=later, coefficient="alpha",
        replicates=200, seed=1,
    )  # fmt: skip
    later_higher = result["difference"]["probability_later_higher"]
    assert (later_higher["probability"], later_higher["share_lower"]) == (0.0, 1.0)
    # Different items: an unpaired difference, no paired replicates to read.
    other = RoundFactory(study=study, name="R3", position=3)
    label_round(other, question, AGREE, coders=coders)
    unpaired = rounds_compare(
        study=study, question=question, first=earlier, second=other, coefficient="alpha",
        replicates=200, seed=1,
    )  # fmt: skip
    assert unpaired["paired"] is False
    assert "probability_later_higher" not in unpaired["difference"]
