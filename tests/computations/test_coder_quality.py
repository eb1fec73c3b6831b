"""Coder quality (Dawid–Skene and MACE) stored by a round's computation, through the
computation service (Celery eager via on-commit callbacks).

Expected values are worked by hand below, never taken from the library on the same data:
three coders who always agree make Dawid–Skene's confusion matrices the identity (accuracy 1)
and MACE's best fit "never spamming"; the planted spammer, who answers "a" whatever the
item, must come last on both models.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings

from computations import engine
from computations.models import ComputationScope
from computations.scope import scope_annotations
from computations.services import computation_request
from studies.models import LabelKind
from tests.computations.helpers import label_round, nominal_question
from tests.factories import CoderFactory, ItemFactory, QuestionFactory, RoundFactory

pytestmark = pytest.mark.django_db

#: Twelve items whose truth runs a b c a b c ...; ann, bob and cid each miss one item (items
#: 5, 9 and 2), spam answers "a" to everything.
SPAMMER_TABLE = [
    ["a", "b", "c", "a", "c", "c", "a", "b", "c", "a", "b", "c"],  # ann: item 5 wrong
    ["a", "b", "c", "a", "b", "c", "a", "b", "b", "a", "b", "c"],  # bob: item 9 wrong
    ["a", "c", "c", "a", "b", "c", "a", "b", "c", "a", "b", "c"],  # cid: item 2 wrong
    ["a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a"],  # spam
]
#: Counted by hand, each item's majority label is its truth: a miss is outvoted two to one
#: (item 2: b b c a; item 5: c b b a; item 9: c b c a).
SPAMMER_CODERS = ("ann", "bob", "cid", "spam")

#: Three coders who always agree, two labels.
ALWAYS_AGREE = [list("aabbab"), list("aabbab"), list("aabbab")]


def compute(study: Any, question: Any, round_: Any, capture: Any, **parameters: Any) -> Any:
    with capture(execute=True):
        result = computation_request(
            study=study, question=question, scope=ComputationScope.ROUND, rounds=[round_],
            parameters={"bootstrap": 0, **parameters},
        )  # fmt: skip
    computation = result.computation
    computation.refresh_from_db()
    assert computation.status == "done", computation.error
    return computation


def named_round(study: Any, question: Any, table: list[list[str]], keys: tuple[str, ...]) -> Any:
    round_ = RoundFactory(study=study, position=1)
    coders = [CoderFactory(study=study, key=key) for key in keys]
    items = [ItemFactory(study=study, external_id=f"q{u + 1:02d}") for u in range(len(table[0]))]
    label_round(round_, question, table, coders=coders, items=items)
    return round_


def test_coders_who_always_agree_are_fully_accurate_and_competent(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    # By hand: the soft majority vote starts one-hot on the agreed label, so every coder's
    # confusion matrix is the identity, the priors are the label shares (a: 3/6, b: 3/6),
    # accuracy = Σ_t π_t e[t, t] = 1, and the next E step returns the same one-hot
    # posteriors (converged). For MACE, "never spamming" gives each item likelihood
    # 1/K = 1/2, while any spamming multiplies in ξ's below 1: competence → 1 (up to the
    # smoothing of 0.01/K per count).
    question = nominal_question(study, codes=("a", "b", "c"))
    round_ = named_round(study, question, ALWAYS_AGREE, ("ann", "bob", "cid"))
    quality = compute(study, question, round_, django_capture_on_commit_callbacks).results[
        "coder_quality"
    ]
    assert quality["labels"] == ["a", "b"]  # "c" is never given: not modelled
    assert (quality["n_items"], quality["n_coders"], quality["n_annotations"]) == (6, 3, 18)
    ds = quality["dawid_skene"]
    assert set(ds["coders"]) == {"ann", "bob", "cid"}
    for entry in ds["coders"].values():
        assert entry["accuracy"] == pytest.approx(1.0, abs=1e-6)
        assert entry["confusion"] == [
            [pytest.approx(1.0, abs=1e-6), pytest.approx(0.0, abs=1e-6)],
            [pytest.approx(0.0, abs=1e-6), pytest.approx(1.0, abs=1e-6)],
        ]
    assert ds["priors"] == {"a": pytest.approx(0.5, abs=1e-6), "b": pytest.approx(0.5, abs=1e-6)}
    assert ds["converged"] is True
    for entry in quality["mace"]["coders"].values():
        assert entry["competence"] > 0.9
    assert quality["mace"]["n_restarts"] == 3
    posterior = quality["posterior_labels"]
    assert posterior["n_items"] == 6
    assert posterior["agreement_with_majority"] == pytest.approx(1.0)
    assert [(s["item"], s["label"]) for s in posterior["sample"]] == [
        ("q01", "a"), ("q02", "a"), ("q03", "b"), ("q04", "b"), ("q05", "a"), ("q06", "b"),
    ]  # fmt: skip
    for entry in posterior["sample"]:
        assert entry["probability"] == pytest.approx(1.0, abs=1e-6)


def test_the_planted_spammer_has_the_lowest_competence_and_accuracy(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study, codes=("a", "b", "c"))
    round_ = named_round(study, question, SPAMMER_TABLE, SPAMMER_CODERS)
    quality = compute(study, question, round_, django_capture_on_commit_callbacks).results[
        "coder_quality"
    ]
    accuracy = {c: e["accuracy"] for c, e in quality["dawid_skene"]["coders"].items()}
    competence = {c: e["competence"] for c, e in quality["mace"]["coders"].items()}
    assert min(accuracy, key=accuracy.__getitem__) == "spam"
    assert min(competence, key=competence.__getitem__) == "spam"
    for good in ("ann", "bob", "cid"):
        assert competence[good] > competence["spam"] + 0.5
        assert accuracy[good] > accuracy["spam"] + 0.3
    # spam's labels, whatever the truth, are "a": each row of its confusion matrix is
    # (1, 0, 0), and its MACE spamming distribution sits on "a".
    for row in quality["dawid_skene"]["coders"]["spam"]["confusion"]:
        assert row == [pytest.approx(1.0, abs=1e-6), pytest.approx(0.0, abs=1e-6),
                       pytest.approx(0.0, abs=1e-6)]  # fmt: skip
    assert quality["mace"]["coders"]["spam"]["spamming"]["a"] > 0.9
    # The posterior labels are the truth a b c a b c ... on all twelve items.
    labels = [s["label"] for s in quality["posterior_labels"]["sample"]]
    assert labels == list("abcabcabcabc")


def test_the_run_is_seeded(study: Any, django_capture_on_commit_callbacks: Any) -> None:
    question = nominal_question(study, codes=("a", "b", "c"))
    round_ = named_round(study, question, SPAMMER_TABLE, SPAMMER_CODERS)
    first = compute(study, question, round_, django_capture_on_commit_callbacks, seed=7)
    assert first.results["coder_quality"]["seed"] == 7
    scope = scope_annotations(question=question, round_ids=[round_.pk])
    again = engine.coder_quality(
        (scope.item_ids, scope.coder_ids, scope.labels),
        domain=scope.domain or (),
        seed=7,
        coder_names={},
        item_names=lambda units: {},
    )
    stored = first.results["coder_quality"]["mace"]["coders"]
    assert sorted(c["competence"] for c in stored.values()) == sorted(
        c["competence"] for c in again["mace"]["coders"].values()
    )


@pytest.mark.parametrize(
    ("kind", "table"),
    [
        (LabelKind.INTERVAL, [[1.0, 2.0, 3.0], [1.0, 2.0, 4.0]]),
        (LabelKind.RATIO, [[1.0, 2.0, 3.0], [1.0, 2.0, 4.0]]),
    ],
)
def test_a_numeric_question_says_why_there_is_no_coder_quality(
    study: Any, django_capture_on_commit_callbacks: Any, kind: str, table: Any
) -> None:
    question = QuestionFactory(study=study, kind=kind)
    round_ = RoundFactory(study=study, position=1)
    label_round(round_, question, table)
    computation = compute(study, question, round_, django_capture_on_commit_callbacks)
    assert computation.results["coder_quality"] == {
        "skipped": "Coder quality models need one category per annotation: nominal or ordinal "
        f"questions, not {kind} ones."
    }


def test_a_set_question_says_why_there_is_no_coder_quality(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study, codes=("a", "b"), kind=LabelKind.SET)
    round_ = RoundFactory(study=study, position=1)
    label_round(round_, question, [["a", "a|b", "b"], ["a", "b", "b"]])
    computation = compute(study, question, round_, django_capture_on_commit_callbacks)
    assert computation.results["coder_quality"] == {
        "skipped": "Coder quality models need one category per annotation: nominal or ordinal "
        "questions, not set ones."
    }


def test_an_ordinal_question_is_modelled_as_nominal(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study, codes=("a", "b", "c"), kind=LabelKind.ORDINAL)
    round_ = named_round(study, question, SPAMMER_TABLE, SPAMMER_CODERS)
    quality = compute(study, question, round_, django_capture_on_commit_callbacks).results[
        "coder_quality"
    ]
    competence = {c: e["competence"] for c, e in quality["mace"]["coders"].items()}
    assert min(competence, key=competence.__getitem__) == "spam"


def test_one_coder_per_item_says_why(study: Any, django_capture_on_commit_callbacks: Any) -> None:
    question = nominal_question(study, codes=("a", "b"))
    round_ = RoundFactory(study=study, position=1)
    label_round(round_, question, [["a", None, "b"], [None, "b", None]])
    computation = compute(study, question, round_, django_capture_on_commit_callbacks)
    assert computation.results["coder_quality"] == {
        "skipped": "No item has labels from two coders: coder quality cannot be estimated."
    }


@override_settings(AGREEMENT_QUALITY_MAX_ANNOTATIONS=10)
def test_above_the_cap_it_is_skipped_with_the_reason(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study, codes=("a", "b", "c"))
    round_ = named_round(study, question, SPAMMER_TABLE, SPAMMER_CODERS)
    computation = compute(study, question, round_, django_capture_on_commit_callbacks)
    assert computation.results["coder_quality"] == {
        "skipped": "48 annotations: above the 10 for which coder quality models run on the "
        "server (AGREEMENT_QUALITY_MAX_ANNOTATIONS)."
    }
    assert "alpha" in computation.results["coefficients"]


def test_a_failure_is_stored_as_a_reason_and_the_computation_finishes(
    study: Any, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("no good")

    monkeypatch.setattr(engine, "coder_quality", broken)
    question = nominal_question(study, codes=("a", "b", "c"))
    round_ = named_round(study, question, SPAMMER_TABLE, SPAMMER_CODERS)
    computation = compute(study, question, round_, django_capture_on_commit_callbacks)
    assert computation.results["coder_quality"] == {
        "skipped": "The coder quality models failed: ValueError: no good"
    }
    assert "alpha" in computation.results["coefficients"]
