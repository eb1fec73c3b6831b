"""History round after round, coder drift, and comparing two rounds."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from computations.comparison import rounds_compare
from computations.models import ComputationScope
from computations.selectors import coder_drift, study_history
from computations.services import computation_request
from studies.exceptions import ApplicationError
from studies.models import Annotation
from tests.computations.comparing import compare_through_api
from tests.computations.helpers import (
    EngineDouble,
    label_round,
    nominal_question,
    random_table,
)
from tests.factories import RoundFactory

pytestmark = pytest.mark.django_db


def compute(study: Any, question: Any, round_: Any, capture: Any, **parameters: Any) -> Any:
    with capture(execute=True):
        result = computation_request(
            study=study, question=question, scope=ComputationScope.ROUND, rounds=[round_],
            parameters=parameters,
        )  # fmt: skip
    result.computation.refresh_from_db()
    return result.computation


@pytest.fixture
def two_rounds(study: Any) -> tuple[Any, Any, Any, list, list]:
    question = nominal_question(study)
    first = RoundFactory(study=study, name="R1", position=1)
    second = RoundFactory(study=study, name="R2", position=2)
    coders, items = label_round(first, question, random_table(3, 40, "abc", agree=0.5, seed=1))
    label_round(
        second, question, random_table(3, 40, "abc", agree=0.9, seed=2), coders=coders, items=items
    )
    return question, first, second, coders, items


def test_history_lists_every_round_in_order_with_its_latest_computation(
    study: Any, two_rounds: Any, monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    EngineDouble(monkeypatch)
    question, first, second, *_ = two_rounds
    RoundFactory(study=study, name="R3", position=3)  # not computed yet
    compute(study, question, first, django_capture_on_commit_callbacks, bootstrap=0)
    latest = compute(study, question, second, django_capture_on_commit_callbacks, bootstrap=20)
    history = study_history(study=study)
    (entry,) = history["questions"]
    assert [r["round_name"] for r in entry["rounds"]] == ["R1", "R2", "R3"]
    r1, r2, r3 = entry["rounds"]
    assert r2["computation"] == latest.pk
    assert (r2["n_items"], r2["n_coders"]) == (40, 3)
    assert r2["coefficients"]["alpha"]["ci"]["low"] is not None
    assert r1["coefficients"]["alpha"]["ci"] is None
    assert r3["computation"] is None
    assert r2["stale"] is False


def test_history_flags_a_round_whose_annotations_changed(
    study: Any, two_rounds: Any, monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    EngineDouble(monkeypatch)
    question, first, *_ = two_rounds
    compute(study, question, first, django_capture_on_commit_callbacks, bootstrap=0)
    Annotation.objects.filter(round=first).first().delete()
    (entry,) = study_history(study=study, question_id=question.pk)["questions"]
    assert entry["rounds"][0]["stale"] is True


def test_coder_drift_lists_each_coders_agreement_per_round(
    study: Any, two_rounds: Any, monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    EngineDouble(monkeypatch)
    question, first, second, coders, _ = two_rounds
    compute(study, question, first, django_capture_on_commit_callbacks, bootstrap=0)
    compute(study, question, second, django_capture_on_commit_callbacks, bootstrap=0)
    drift = coder_drift(study=study, question=question)
    assert [r["round"] for r in drift["rounds"]] == [first.pk, second.pk]
    assert sorted(row["coder"] for row in drift["coders"]) == sorted(c.key for c in coders)
    assert all(len(row["values"]) == 2 for row in drift["coders"])


def test_comparing_two_rounds_on_the_same_items_is_a_paired_difference(
    study: Any, two_rounds: Any
) -> None:
    question, first, second, *_ = two_rounds
    result = rounds_compare(
        study=study, question=question, first=second, second=first, replicates=300, seed=1
    )
    assert result["paired"] is True
    assert result["n_shared_items"] == 40
    difference = result["difference"]
    assert difference["estimate"] > 0  # round 2 agrees more than round 1
    assert difference["ci"]["low"] <= difference["estimate"] <= difference["ci"]["high"]
    assert "unpaired" not in result


def test_rounds_with_different_items_get_an_unpaired_comparison(study: Any) -> None:
    question = nominal_question(study)
    first, second = RoundFactory(study=study), RoundFactory(study=study)
    label_round(first, question, random_table(2, 30, "abc", agree=0.6, seed=3))
    label_round(second, question, random_table(2, 30, "abc", agree=0.9, seed=4))
    result = rounds_compare(study=study, question=question, first=second, second=first)
    assert result["paired"] is False
    assert result["n_shared_items"] == 0
    assert result["difference"]["ci"]["low"] is not None


def test_comparing_a_round_without_annotations_is_refused(study: Any, two_rounds: Any) -> None:
    question, first, *_ = two_rounds
    empty = RoundFactory(study=study)
    with pytest.raises(ApplicationError):
        rounds_compare(study=study, question=question, first=first, second=empty)


# -- one convention: later round minus earlier round ---------------------------------------------

#: Two coders, eight items. In R1 the pairs are (a,a), (a,b), (b,b), (b,a), twice: 16 pairable
#: values, 8 a and 8 b, 8 disagreeing: D_o = 8/16 = 0.5, D_e = 2 * 8 * 8 / (16 * 15) = 0.5333,
#: alpha = 1 - 0.5 / 0.5333 = 0.0625. In R2 the coders always agree: alpha = 1.
EARLIER = [list("aabbaabb"), list("abbaabba")]
LATER = [list("aabbaabb"), list("aabbaabb")]
LATER_MINUS_EARLIER = 0.9375


@pytest.fixture
def earlier_and_later(study: Any) -> tuple[Any, Any, Any]:
    question = nominal_question(study, codes=("a", "b"), key="ab")
    earlier = RoundFactory(study=study, name="R1", position=1)
    later = RoundFactory(study=study, name="R2", position=2)
    coders, items = label_round(earlier, question, EARLIER)
    label_round(later, question, LATER, coders=coders, items=items)
    return question, earlier, later


@pytest.mark.parametrize("later_first", [True, False], ids=["later-first", "earlier-first"])
def test_a_comparison_is_later_minus_earlier_whatever_the_order_given(
    study: Any, earlier_and_later: Any, later_first: bool
) -> None:
    question, earlier, later = earlier_and_later
    first, second = (later, earlier) if later_first else (earlier, later)
    result = rounds_compare(
        study=study, question=question, first=first, second=second, coefficient="alpha",
        replicates=200, seed=1,
    )  # fmt: skip
    assert result["difference_is"] == "later round minus earlier round"
    assert result["later"] == {"round": later.pk, "round_name": "R2", "n_items": 8}
    assert result["earlier"] == {"round": earlier.pk, "round_name": "R1", "n_items": 8}
    assert result["first"]["round"] == first.pk
    assert result["paired"] is True
    assert result["difference"]["estimate"] == pytest.approx(LATER_MINUS_EARLIER)


def test_the_api_compares_later_minus_earlier_in_either_order(
    study: Any, earlier_and_later: Any, annotator: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question, earlier, later = earlier_and_later
    client = APIClient()
    client.force_authenticate(user=annotator)
    for first, second in ((earlier, later), (later, earlier)):
        posted, read = compare_through_api(
            client, study.pk, django_capture_on_commit_callbacks, question=question.pk,
            first=first.pk, second=second.pk, coefficient="alpha", bootstrap=200,
        )  # fmt: skip
        assert posted.status_code == 202, posted.json()
        assert read.status_code == 200
        assert read.json()["status"] == "done", read.json()
        body = read.json()["result"]
        assert body["later"]["round_name"] == "R2", body
        assert body["earlier"]["round_name"] == "R1"
        assert body["difference"]["estimate"] == pytest.approx(LATER_MINUS_EARLIER)


def test_a_round_is_not_compared_with_itself(study: Any, earlier_and_later: Any) -> None:
    question, earlier, _ = earlier_and_later
    with pytest.raises(ApplicationError, match="two different rounds"):
        rounds_compare(study=study, question=question, first=earlier, second=earlier)


# -- the comparison with the previous round, stored by the worker ---------------------------------

COMPARISON = "comparison_with_previous"


def _stored(computation: Any) -> dict[str, Any]:
    assert computation.status == "done", computation.error
    return dict(computation.results[COMPARISON])


def test_a_finished_round_stores_its_comparison_with_the_previous_round(
    study: Any, earlier_and_later: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question, earlier, later = earlier_and_later
    first = compute(study, question, earlier, django_capture_on_commit_callbacks, bootstrap=0)
    assert _stored(first) == {"status": "skipped", "reason": "R1 is the study's first round."}
    second = compute(study, question, later, django_capture_on_commit_callbacks, bootstrap=0)
    stored = _stored(second)
    assert stored["status"] == "done"
    assert stored["coefficient"] == "alpha"
    assert stored["difference_is"] == "later round minus earlier round"
    assert stored["later"] == {"round": later.pk, "round_name": "R2", "n_items": 8}
    assert stored["earlier"] == {"round": earlier.pk, "round_name": "R1", "n_items": 8}
    assert stored["paired"] is True
    assert stored["n_shared_items"] == 8
    assert stored["difference"]["estimate"] == pytest.approx(LATER_MINUS_EARLIER)
    ci = stored["difference"]["ci"]
    assert (ci["confidence"], ci["replicates"]) == (0.95, 500)
    assert ci["low"] is not None
    assert ci["high"] is not None
    assert stored["earlier_data_revision"].startswith("n=16;")


def test_the_combine_step_of_a_fanned_out_bootstrap_stores_it_too(
    study: Any, earlier_and_later: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question, _, later = earlier_and_later
    computation = compute(
        study, question, later, django_capture_on_commit_callbacks, bootstrap=40, chunk_size=10
    )
    assert computation.chunks_total == 4
    stored = _stored(computation)
    assert stored["status"] == "done"
    assert stored["earlier"]["round_name"] == "R1"
    assert stored["difference"]["estimate"] == pytest.approx(LATER_MINUS_EARLIER)


def test_the_comparison_skips_earlier_rounds_without_annotations(
    study: Any, earlier_and_later: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question, _, later = earlier_and_later
    later.position = 3
    later.save()
    RoundFactory(study=study, name="R-empty", position=2, closed=True)
    stored = _stored(compute(study, question, later, django_capture_on_commit_callbacks))
    assert stored["earlier"]["round_name"] == "R1"
    assert stored["difference"]["estimate"] == pytest.approx(LATER_MINUS_EARLIER)


def test_no_earlier_round_with_annotations_is_a_stored_reason(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study, codes=("a", "b"), key="ab")
    RoundFactory(study=study, name="R1", position=1, closed=True)
    later = RoundFactory(study=study, name="R2", position=2)
    label_round(later, question, LATER)
    stored = _stored(compute(study, question, later, django_capture_on_commit_callbacks))
    assert stored == {
        "status": "skipped",
        "reason": "No round before R2 has annotations for this question.",
    }


def test_rounds_above_the_bound_are_not_compared_and_say_why(
    study: Any, earlier_and_later: Any, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    settings.AGREEMENT_COMPARE_MAX_ANNOTATIONS = 20
    question, _, later = earlier_and_later
    stored = _stored(compute(study, question, later, django_capture_on_commit_callbacks))
    assert stored == {
        "status": "skipped",
        "reason": "R2 and R1 hold 32 annotations of this question, more than the 20 compared "
        "when a computation finishes (AGREEMENT_COMPARE_MAX_ANNOTATIONS); request their "
        "comparison from the API's comparisons/.",
        "earlier": {"round": earlier_and_later[1].pk, "round_name": "R1"},
    }


@pytest.mark.parametrize(
    ("error", "reason"),
    [(ValueError("too few items to bootstrap"), "too few items to bootstrap"),
     (RuntimeError("out of memory"), "RuntimeError: out of memory")],
    ids=["refused", "crashed"],
)  # fmt: skip
def test_a_failed_comparison_is_stored_and_the_computation_is_still_done(
    study: Any, earlier_and_later: Any, django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch, error: Exception, reason: str,
) -> None:  # fmt: skip
    def fail(*_: Any, **__: Any) -> Any:
        raise error

    monkeypatch.setattr("computations.engine.difference", fail)
    question, _, later = earlier_and_later
    computation = compute(study, question, later, django_capture_on_commit_callbacks)
    assert computation.error == ""
    assert computation.results["coefficients"]["alpha"]["value"] == pytest.approx(1.0)
    assert _stored(computation) == {"status": "failed", "reason": reason}


def test_finishing_again_stores_the_same_comparison(
    study: Any, earlier_and_later: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question, _, later = earlier_and_later
    once = compute(study, question, later, django_capture_on_commit_callbacks, bootstrap=0)
    again = compute(study, question, later, django_capture_on_commit_callbacks, bootstrap=20)
    assert once.pk != again.pk
    assert _stored(again) == _stored(once)
