"""The model-coder step of a round's computation (computations/model_coders.py), stored in
``results["model_coders"]``.

Every stored number is compared with the library (``metrics.models``) or ppi-python run in the
test on the same annotations, read independently of the server (the long lists the round was
built from), never with the server's own arrays.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from adjudication.services import adjudicate
from computations.models import Computation, ComputationScope
from computations.scope import scope_adjudications
from computations.services import computation_parameters, computation_request
from metrics import ReliabilityData
from metrics.models import alt_test, group_agreement, ppi_mean, self_consistency
from studies.models import (
    Annotation,
    CoderKind,
    Item,
    LabelKind,
    ModelCoderRound,
    ModelConfidence,
)
from tests.computations.helpers import label_round, nominal_question
from tests.computations.model_rounds import (
    ADJUDICATED,
    PEOPLE,
    RUN_ONE,
    RUN_TWO,
    ModelRound,
    adjudication_case_rows,
    calibration_round,
    model_round,
    preference_round,
    two_runs,
    upload,
)
from tests.factories import CoderFactory, ItemFactory, QuestionFactory, RoundFactory

pytestmark = pytest.mark.django_db


def compute(
    study: Any, question: Any, round_: Any, capture: Any, **parameters: Any
) -> dict[str, Any]:
    with capture(execute=True):
        result = computation_request(
            study=study, question=question, scope=ComputationScope.ROUND, rounds=[round_],
            parameters={"bootstrap": 200, **parameters},
        )  # fmt: skip
    computation = result.computation
    computation.refresh_from_db()
    assert computation.status == "done", computation.error
    return dict(computation.results)


def soft_labels(data: ModelRound, codes: tuple[str, ...]) -> tuple[Any, ...]:
    """Per item: the people's share of each code, and the model's code (by external id)."""
    people: dict[str, list[str]] = defaultdict(list)
    model: dict[str, str] = {}
    for item, coder, label in zip(data.item_ids, data.coder_keys, data.labels, strict=True):
        if coder == data.model.key:
            model[item] = label
        else:
            people[item].append(label)
    labelled = sorted(i for i in model if i in people)
    unlabelled = sorted(i for i in model if i not in people)
    shares = {
        code: np.array([people[i].count(code) / len(people[i]) for i in labelled]) for code in codes
    }
    return labelled, unlabelled, shares, model


def test_a_round_with_a_model_stores_groups_alt_test_and_ppi_as_the_library_gives_them(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    codes = ("a", "b", "c")
    question = nominal_question(study, codes=codes)
    data = model_round(study, question, codes=codes)
    stored = compute(study, question, data.round, django_capture_on_commit_callbacks)[
        "model_coders"
    ]
    assert stored["people"] == list(PEOPLE)
    assert stored["models"] == ["llm"]
    assert stored["settings"] == {
        "epsilon": 0.2,
        "alt_test_alpha": 0.05,
        "scoring": "accuracy",
        "min_people": 3,
        "confidence": 0.95,
    }
    reliability = ReliabilityData.from_long(
        data.item_ids, data.coder_keys, data.labels, domain=codes
    )
    groups = group_agreement(
        reliability, first=list(PEOPLE), second=["llm"], replicates=200, seed=0
    )
    for name, expected in (("people", groups.first), ("between", groups.between)):
        entry = stored["groups"][name]
        assert entry["value"] == pytest.approx(expected.value, abs=1e-12)
        assert entry["ci"] == pytest.approx(list(expected.ci), abs=1e-12)
        assert entry["n_items"] == expected.n_items
    assert stored["groups"]["models"]["value"] is None
    assert stored["groups"]["models"]["reason"] == (
        "Agreement among a group needs at least two coders; there is 1."
    )

    (model,) = stored["per_model"]
    assert {k: model[k] for k in ("key", "model_name", "model_version", "prompt_version")} == {
        "key": "llm",
        "model_name": "gpt-test",
        "model_version": "2025-01",
        "prompt_version": "v1",
    }
    expected_test = alt_test(
        data.item_ids, data.coder_keys, data.labels, model="llm", humans=list(PEOPLE)
    )
    test = model["alt_test"]
    assert test["winning_rate"] == expected_test.winning_rate
    assert test["advantage_probability"] == pytest.approx(expected_test.advantage_probability)
    assert test["passed"] is expected_test.passed
    assert test["n_humans"] == 4
    assert test["n_items"] == 60
    assert test["excluded_items"] == {
        "labelled by 0 humans, fewer than min_humans_per_item (2)": 40
    }
    for row in test["humans"]:
        human = expected_test.human(row["coder"])
        assert row["p_value"] == pytest.approx(human.p_value, abs=1e-12)
        assert row["rejected"] is human.rejected
        assert row["advantage_probability"] == pytest.approx(human.advantage_probability)

    labelled, unlabelled, shares, labels = soft_labels(data, codes)
    ppi = model["ppi"]
    assert (ppi["n_labelled"], ppi["n_unlabelled"], ppi["what"]) == (60, 40, "prevalence")
    ppi_py = pytest.importorskip("ppi_py")
    for row in ppi["estimates"]:
        code = row["label"]
        y = shares[code]
        yhat = np.array([labels[i] == code for i in labelled], dtype=float)
        unl = np.array([labels[i] == code for i in unlabelled], dtype=float)
        assert row["estimate"] == pytest.approx(
            float(ppi_py.ppi_mean_pointestimate(y, yhat, unl)[0]), abs=1e-9
        )
        low, high = ppi_py.ppi_mean_ci(y, yhat, unl, alpha=0.05)
        assert row["ci"] == pytest.approx([float(low[0]), float(high[0])], abs=1e-9)
        c_low, c_high = ppi_py.classical_mean_ci(y, alpha=0.05)
        assert row["classical_ci"] == pytest.approx([float(c_low), float(c_high)], abs=1e-9)
        assert row["naive"] == pytest.approx((yhat.sum() + unl.sum()) / 100)


def test_coder_quality_is_the_peoples(study: Any, django_capture_on_commit_callbacks: Any) -> None:
    question = nominal_question(study)
    data = model_round(study, question)
    quality = compute(study, question, data.round, django_capture_on_commit_callbacks)[
        "coder_quality"
    ]
    assert sorted(quality["mace"]["coders"]) == list(PEOPLE)
    assert quality["n_annotations"] == 4 * 60


def test_the_versions_of_the_round_are_recorded_at_its_first_computation(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study)
    data = model_round(study, question)
    compute(study, question, data.round, django_capture_on_commit_callbacks)
    data.model.prompt_version = "v2"
    data.model.save()
    recorded = ModelCoderRound.objects.get(coder=data.model, round=data.round)
    assert recorded.prompt_version == "v1"
    stored = compute(study, question, data.round, django_capture_on_commit_callbacks, bootstrap=100)
    assert stored["model_coders"]["per_model"][0]["prompt_version"] == "v1"


def test_numbers_use_the_negative_rmse_and_a_ppi_mean(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = QuestionFactory(study=study, kind=LabelKind.INTERVAL)
    data = model_round(study, question, codes=(1.0, 2.0, 3.0, 4.0, 5.0), people_agree=0.6)
    stored = compute(study, question, data.round, django_capture_on_commit_callbacks)[
        "model_coders"
    ]
    assert stored["settings"]["scoring"] == "neg_rmse"
    expected = alt_test(
        data.item_ids,
        data.coder_keys,
        data.labels,
        model="llm",
        humans=list(PEOPLE),
        scoring="neg_rmse",
    )
    model = stored["per_model"][0]
    assert model["alt_test"]["advantage_probability"] == pytest.approx(
        expected.advantage_probability
    )
    assert model["alt_test"]["winning_rate"] == expected.winning_rate
    people: dict[str, list[float]] = defaultdict(list)
    predicted: dict[str, float] = {}
    for item, coder, label in zip(data.item_ids, data.coder_keys, data.labels, strict=True):
        (predicted.__setitem__(item, label) if coder == "llm" else people[item].append(label))
    labelled = sorted(i for i in predicted if i in people)
    unlabelled = sorted(i for i in predicted if i not in people)
    mean = ppi_mean(
        [np.mean(people[i]) for i in labelled],
        [predicted[i] for i in labelled],
        [predicted[i] for i in unlabelled],
    )
    (row,) = model["ppi"]["estimates"]
    assert row["label"] == "mean"
    assert row["estimate"] == pytest.approx(mean.estimate, abs=1e-12)
    assert row["ci"] == pytest.approx(list(mean.ci), abs=1e-12)
    distance_groups = group_agreement(
        ReliabilityData.from_long(data.item_ids, data.coder_keys, data.labels),
        first=list(PEOPLE),
        second=["llm"],
        distance="interval",
        replicates=200,
    )
    assert stored["groups"]["between"]["value"] == pytest.approx(
        distance_groups.between.value, abs=1e-12
    )


def test_fewer_than_three_people_store_the_reason(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study)
    data = model_round(study, question, people=("ann", "bob"))
    model = compute(study, question, data.round, django_capture_on_commit_callbacks)[
        "model_coders"
    ]["per_model"][0]
    assert model["alt_test"] == {
        "refused": "The alternative annotator test needs at least 3 people (person coders) "
        "in the round; it has 2 (ann, bob)."
    }
    assert "estimates" in model["ppi"]


def test_two_models_get_agreement_among_models_and_one_test_each(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study)
    data = model_round(study, question)
    other = CoderFactory(study=study, key="claude", kind=CoderKind.MODEL, model_name="c")
    label_round(
        data.round, question, [[data.labels[-100 + u] for u in range(100)]], coders=[other],
        items=data.items,
    )  # fmt: skip
    stored = compute(study, question, data.round, django_capture_on_commit_callbacks)[
        "model_coders"
    ]
    assert stored["models"] == ["claude", "llm"]
    assert [m["key"] for m in stored["per_model"]] == ["claude", "llm"]
    assert stored["groups"]["models"]["value"] == pytest.approx(1.0)
    # Each model is tested against the people only, never against the other model.
    assert {row["coder"] for row in stored["per_model"][0]["alt_test"]["humans"]} == set(PEOPLE)


def test_a_computation_split_by_items_stores_the_model_results_of_an_unsplit_one(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study)
    data = model_round(study, question, n_items=40, model_only=20)
    with override_settings(AGREEMENT_ITEM_CHUNK_ANNOTATIONS=10**9):
        single = compute(study, question, data.round, django_capture_on_commit_callbacks)
    assert "item_chunks" not in single
    Computation.objects.filter(question=question).delete()  # the same request again is new
    with override_settings(AGREEMENT_ITEM_CHUNK_ANNOTATIONS=40):
        split = compute(study, question, data.round, django_capture_on_commit_callbacks)
    assert split["item_chunks"]["split"] is True
    assert split["item_chunks"]["chunks"] > 1
    single_models, split_models = single["model_coders"], split["model_coders"]
    single_models.pop("seconds")
    split_models.pop("seconds")
    assert "alt_test" in split_models["per_model"][0]  # computed, not a reason
    assert split_models == single_models


def test_a_round_without_models_stores_nothing_new(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study)
    round_ = RoundFactory(study=study, position=1)
    label_round(round_, question, [list("abcab"), list("abcaa")])
    assert "model_coders" not in compute(
        study, question, round_, django_capture_on_commit_callbacks
    )


def test_a_kind_without_model_tests_says_so(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study, codes=("a", "b"), kind=LabelKind.SET)
    round_ = RoundFactory(study=study, position=1)
    model = CoderFactory(study=study, key="m", kind=CoderKind.MODEL, model_name="m")
    items = [ItemFactory(study=study) for _ in range(4)]
    label_round(round_, question, [["a", "b", "a|b", "a"]] * 2, items=items)
    label_round(round_, question, [["a", "b", "a", "a"]], coders=[model], items=items)
    stored = compute(study, question, round_, django_capture_on_commit_callbacks)
    assert stored["model_coders"] == {
        "skipped": "Set questions have no model-coder tests (the alternative annotator test, "
        "prediction-powered estimates)."
    }


def test_epsilon_is_a_checked_parameter_joining_only_when_given(study: Any) -> None:
    question = nominal_question(study)
    assert "epsilon" not in computation_parameters(question=question, given={})
    params = computation_parameters(question=question, given={"epsilon": 0.1})
    assert params["epsilon"] == 0.1
    with pytest.raises(ValidationError) as refused:
        computation_parameters(question=question, given={"epsilon": 1.5, "alt_test_alpha": 0})
    assert set(refused.value.message_dict) == {"epsilon", "alt_test_alpha"}
    span = QuestionFactory(study=study, kind=LabelKind.SPAN)
    with pytest.raises(ValidationError) as refused:
        computation_parameters(question=span, given={"epsilon": 0.1})
    assert refused.value.message_dict == {"epsilon": ["Span questions have no model-coder tests."]}


def test_a_smaller_epsilon_is_used(study: Any, django_capture_on_commit_callbacks: Any) -> None:
    question = nominal_question(study)
    data = model_round(study, question)
    stored = compute(study, question, data.round, django_capture_on_commit_callbacks, epsilon=0.1)[
        "model_coders"
    ]
    expected = alt_test(
        data.item_ids, data.coder_keys, data.labels, model="llm", epsilon=0.1, humans=list(PEOPLE)
    )
    assert stored["settings"]["epsilon"] == 0.1
    assert stored["per_model"][0]["alt_test"]["epsilon"] == 0.1
    assert stored["per_model"][0]["alt_test"]["winning_rate"] == expected.winning_rate


# -- self-consistency -------------------------------------------------------------------------


def test_two_runs_of_one_model_store_its_self_consistency_with_an_interval(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study)
    round_, _ = two_runs(study, question)
    stored = compute(study, question, round_, django_capture_on_commit_callbacks)
    first, second = stored["model_coders"]["per_model"]
    assert first["self_consistency"] == second["self_consistency"]  # one model, stored twice
    entry = first["self_consistency"]
    assert entry["alpha"] == pytest.approx(80 / 99, abs=1e-12)
    assert entry["n_items"] == 10
    assert entry["identical"] == pytest.approx(0.9)
    assert entry["runs"] == ["llm-a", "llm-b"]
    assert entry["distance"] == "nominal"
    # The interval: the library's bootstrap of the same two runs, read from the lists.
    expected = self_consistency(
        list(range(10)) * 2, ["llm-a"] * 10 + ["llm-b"] * 10, RUN_ONE + RUN_TWO,
        replicates=200, seed=0,
    )  # fmt: skip
    assert expected.ci is not None
    assert entry["ci"] == pytest.approx(list(expected.ci), abs=1e-12)


def test_a_model_with_one_run_stores_why_it_has_no_self_consistency(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study)
    data = model_round(study, question)
    (model,) = compute(study, question, data.round, django_capture_on_commit_callbacks)[
        "model_coders"
    ]["per_model"]
    assert model["self_consistency"] == {
        "refused": "No other run of model gpt-test (version 2025-01) labelled this scope: "
        "self-consistency needs a second model coder with the same model name and version "
        "(another run, or another prompt version) on the same items.",
        "runs": ["llm"],
    }


# -- position bias on pairwise preferences ------------------------------------------------------


def test_a_model_coders_position_bias_on_preferences_is_stored(
    study: Any, manager_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = preference_round(study, manager_client)
    round_ = question.study.rounds.get(name="Round 1")
    stored = compute(study, question, round_, django_capture_on_commit_callbacks, bootstrap=0)
    models = stored["model_coders"]
    assert models["people"] == ["ann", "bob"]
    assert models["models"] == ["judge"]
    (entry,) = models["per_model"]
    assert {k: entry[k] for k in ("key", "model_name", "model_version", "prompt_version")} == {
        "key": "judge",
        "model_name": "gpt-judge",
        "model_version": "2025-02",
        "prompt_version": "p3",
    }
    # 9 of 10 non-tie choices picked the option shown first; the exact two-sided binomial
    # p by hand: 2·(C(10,9) + C(10,10))/2^10 = 22/1024.
    assert entry["position_bias"] == {"share_first": 0.9, "n": 10, "p": 22 / 1024}


# -- calibration ------------------------------------------------------------------------------


def test_a_models_confidences_store_its_calibration_against_the_peoples_majority(
    study: Any, manager_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question, round_ = calibration_round(study, manager_client)
    assert ModelConfidence.objects.count() == 21
    stored = compute(study, question, round_, django_capture_on_commit_callbacks, bootstrap=0)
    calibration = stored["model_coders"]["per_model"][0]["calibration"]
    assert calibration["ece"] == pytest.approx(0.125, abs=1e-12)
    assert calibration["binning"] == "equal-mass"
    assert calibration["n"] == 20
    assert calibration["n_bins"] == 10
    assert calibration["n_without_reference"] == 1
    assert calibration["accuracy"] == pytest.approx(0.75)
    assert calibration["mean_confidence"] == pytest.approx(0.735)
    assert [b["count"] for b in calibration["bins"]] == [2] * 10
    assert [b["mean_confidence"] for b in calibration["bins"]] == pytest.approx(
        [0.51 + 0.05 * b for b in range(10)]
    )
    assert [b["accuracy"] for b in calibration["bins"]] == [0.5] * 5 + [1.0] * 5
    assert calibration["reference"] == (
        "the adjudicated label where the item has one, else the people's majority label (items "
        "where one label has more of the people than any other; ties left out)"
    )
    assert (calibration["n_adjudicated"], calibration["n_majority"]) == (0, 20)


def test_calibration_takes_an_items_adjudicated_label_over_the_peoples_majority(
    study: Any, manager_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """ADJUDICATION_CASE (model_rounds.py) by hand. With n ≤ 10 distinct confidences each
    label is a bin of its own (numpy.percentile puts the edges at positions (n − 1)·j/10 of
    the sorted confidences: every gap between two holds one), so ECE = mean |correct − c|.

    Before any adjudication, against the people's majority: i0 (0.9, right), i1 (0.8,
    wrong: the majority says "a"), i2 (0.7, right); i3 and i4 tie, no reference.
    ECE = (0.1 + 0.8 + 0.3)/3 = 0.4, accuracy 2/3, mean confidence 0.8.

    After adjudicating i1 "b" (first "a", superseded) and i3 "c": i0 (0.9, right), i1 (0.8,
    right by the adjudication), i2 (0.7, right), i3 (0.6, wrong: "a" is not "c"); i4 still
    has none. ECE = (0.1 + 0.2 + 0.3 + 0.6)/4 = 0.3, accuracy 3/4, mean confidence 0.75;
    2 labels against an adjudication, 2 against the majority, 1 without a reference."""
    question = nominal_question(study, key="q")
    round_ = RoundFactory(study=study, name="R1", position=1)
    CoderFactory(study=study, key="llm", kind=CoderKind.MODEL, model_name="gpt-test")
    response = upload(manager_client, study, adjudication_case_rows())
    assert response.status_code in (200, 201), response.content
    stored = compute(study, question, round_, django_capture_on_commit_callbacks, bootstrap=0)
    before = stored["model_coders"]["per_model"][0]["calibration"]
    assert before["ece"] == pytest.approx(0.4, abs=1e-12)
    assert (before["n"], before["n_adjudicated"], before["n_majority"]) == (3, 0, 3)
    assert before["n_without_reference"] == 2
    assert before["accuracy"] == pytest.approx(2 / 3)

    items = {item.external_id: item for item in Item.objects.filter(study=study)}
    adjudicate(round_=round_, question=question, item=items["i1"], label="a")
    for external_id, label in ADJUDICATED.items():
        adjudicate(round_=round_, question=question, item=items[external_id], label=label)
    # The data revision counts the annotations only: another seed makes a new computation.
    with CaptureQueriesContext(connection) as queries:
        stored = compute(
            study, question, round_, django_capture_on_commit_callbacks, bootstrap=0, seed=1
        )
    after = stored["model_coders"]["per_model"][0]["calibration"]
    assert after["ece"] == pytest.approx(0.3, abs=1e-12)
    assert (after["n"], after["n_adjudicated"], after["n_majority"]) == (4, 2, 2)
    assert after["n_without_reference"] == 1
    assert after["accuracy"] == pytest.approx(0.75)
    assert after["mean_confidence"] == pytest.approx(0.75)
    assert [b["count"] for b in after["bins"]] == [1, 1, 1, 1]
    # One read of the adjudicated labels for the whole computation, not one per item (the
    # round's results against the reference, requested on commit, read them their own way).
    reads = [
        q["sql"]
        for q in queries.captured_queries
        if 'FROM "adjudication_adjudication"' in q["sql"]
        and '"studies_category"."code"' in q["sql"]
    ]
    assert len(reads) == 1


def test_the_adjudications_of_pooled_rounds_are_read_in_one_query_by_round_and_item(
    study: Any, django_assert_num_queries: Any
) -> None:
    """Pooled rounds key a unit as round id · 2**40 + item id (``scope_annotations``); only
    current adjudications whose category still exists are references."""
    question = nominal_question(study, key="q")
    first, second = (RoundFactory(study=study, position=p) for p in (1, 2))
    item = ItemFactory(study=study, external_id="i0")
    other = ItemFactory(study=study, external_id="i1")
    adjudicate(round_=first, question=question, item=item, label="a")
    adjudicate(round_=first, question=question, item=item, label="b")  # supersedes "a"
    adjudicate(round_=second, question=question, item=item, label="c")
    adjudicate(round_=second, question=question, item=other, label="c")
    question.categories.get(code="c").delete()
    adjudicate(round_=second, question=question, item=other, label="a")
    with django_assert_num_queries(1):
        read = scope_adjudications(question_id=question.pk, round_ids=[first.pk, second.pk])
    assert sorted(zip(read.units.tolist(), read.codes, strict=True)) == sorted(
        [(first.pk * 2**40 + item.pk, "b"), (second.pk * 2**40 + other.pk, "a")]
    )


def test_a_confidence_is_a_model_coders_and_a_number_from_0_to_1(
    study: Any, manager_client: Any
) -> None:
    nominal_question(study, key="q")
    RoundFactory(study=study, name="R1", position=1)
    CoderFactory(study=study, key="llm", kind=CoderKind.MODEL, model_name="gpt-test")
    rows = [
        {"item": "i0", "coder": "ann", "label": "a", "confidence": 0.8},
        {"item": "i0", "coder": "llm", "label": "a", "confidence": 1.5},
    ]
    response = upload(manager_client, study, rows)
    assert response.status_code == 400
    errors = response.json()
    assert "annotations.1.confidence" in str(errors)
    rows[1]["confidence"] = 0.7
    response = upload(manager_client, study, rows)
    assert response.status_code == 400
    assert "Only a model coder's label has a confidence; coder 'ann' is a person" in str(
        response.json()
    )
    assert "annotations.0.confidence" in str(response.json())
    assert ModelConfidence.objects.count() == 0  # nothing half-written
    assert not Annotation.objects.exists()
