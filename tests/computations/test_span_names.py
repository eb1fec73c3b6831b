"""Stored span results name documents by item external id (``<round name>/<external id>``
when rounds are pooled) and coders by key, in reasons, coder pairs and the documents list."""

from __future__ import annotations

from typing import Any

import pytest

from computations.models import Computation, ComputationScope, ComputationStatus
from computations.scope import scope_spans
from computations.services import computation_request
from studies.models import Annotation, LabelKind, Question, Round, Study
from tests.factories import (
    CategoryFactory,
    CoderFactory,
    ItemFactory,
    QuestionFactory,
    RoundFactory,
)

pytestmark = pytest.mark.django_db

#: alpha_u's refusal of ann's nested PER units, naming the document and the coder.
REFUSED = (
    "units [0, 10) and [3, 6) of category 'PER' overlap; alpha_U needs one coder's units of a "
    'category to be disjoint (request the computation again with the parameter "overlapping": '
    '"merge" to merge them into their union)'
)


def _question(study: Study) -> Question:
    question = QuestionFactory(study=study, kind=LabelKind.SPAN, key="entities")
    for position, code in enumerate(("PER", "LOC")):
        CategoryFactory(question=question, code=code, position=position)
    return question


def _label(question: Question, round_: Round, names: tuple[str, str] = ("doc-1", "doc-2")) -> None:
    """ann: PER [0, 10) with PER [3, 6) nested in doc-1, LOC [2, 6) in doc-2; bob: PER [0, 8)
    in doc-1, LOC [2, 6) in doc-2 (items of extent [0, 20))."""
    study = question.study
    per, loc = (question.categories.get(code=code).pk for code in ("PER", "LOC"))
    coders = {key: study.coders.filter(key=key).first() for key in ("ann", "bob")}
    coders = {k: c or CoderFactory(study=study, key=k) for k, c in coders.items()}
    units = {
        (names[0], "ann"): [[0, 10, per], [3, 6, per]],
        (names[0], "bob"): [[0, 8, per]],
        (names[1], "ann"): [[2, 6, loc]],
        (names[1], "bob"): [[2, 6, loc]],
    }
    for (name, key), stored in units.items():
        item = study.items.filter(external_id=name).first() or ItemFactory(
            study=study, external_id=name, text="", extent_begin=0, extent_end=20
        )
        Annotation.objects.create(
            round=round_, question=question, item=item, coder=coders[key], units=stored
        )


def _compute(question: Question, rounds: list[Round], capture: Any) -> dict[str, Any]:
    scope = ComputationScope.ROUND if len(rounds) == 1 else ComputationScope.ROUNDS
    with capture(execute=True):
        result = computation_request(
            study=question.study,
            question=question,
            scope=scope,
            rounds=rounds,
            parameters={"bootstrap": 0},
        )
    computation = Computation.objects.get(pk=result.computation.pk)
    assert computation.status == ComputationStatus.DONE, computation.error
    return dict(computation.results)


def test_reasons_pairs_and_documents_name_external_ids_and_coder_keys(
    study: Study, django_capture_on_commit_callbacks: Any
) -> None:
    question = _question(study)
    round_ = RoundFactory(study=study, name="R1", position=1)
    _label(question, round_)
    results = _compute(question, [round_], django_capture_on_commit_callbacks)
    coefficients = results["coefficients"]
    assert coefficients["alpha_u"]["reason"] == f"document 'doc-1', coder 'ann': {REFUSED}"
    assert results["skipped"]["alpha_u"] == f"document 'doc-1', coder 'ann': {REFUSED}"
    for measure in ("pk", "window_diff"):
        ((pair),) = coefficients[measure]["pairs"]
        assert (pair["coders"], pair["documents"]) == (["ann", "bob"], 2)
    documents = {d["document"]: d for d in results["documents"]}
    assert set(documents) == {"doc-1", "doc-2"}
    items = dict(study.items.values_list("external_id", "pk"))
    for name, entry in documents.items():
        assert (entry["external_id"], entry["item"], entry["round"]) == (
            name, items[name], round_.pk
        )  # fmt: skip
        assert entry["coders"] == ["ann", "bob"]
    coders = dict(study.coders.values_list("key", "pk"))
    assert results["coder_keys"] == {str(coders["ann"]): "ann", str(coders["bob"]): "bob"}


def test_pooled_rounds_name_documents_round_slash_external_id(
    study: Study, django_capture_on_commit_callbacks: Any
) -> None:
    question = _question(study)
    rounds = [RoundFactory(study=study, name=f"R{n}", position=n) for n in (1, 2)]
    for round_ in rounds:
        _label(question, round_)
    results = _compute(question, rounds, django_capture_on_commit_callbacks)
    assert results["coefficients"]["alpha_u"]["reason"] == (
        f"document 'R1/doc-1', coder 'ann': {REFUSED}"
    )
    ((pair),) = results["coefficients"]["pk"]["pairs"]
    assert (pair["coders"], pair["documents"]) == (["ann", "bob"], 4)
    assert sorted(d["document"] for d in results["documents"]) == [
        "R1/doc-1", "R1/doc-2", "R2/doc-1", "R2/doc-2",
    ]  # fmt: skip
    assert all(d["external_id"] == d["document"] for d in results["documents"])


def test_pooled_names_two_documents_would_share_are_told_apart_by_their_ids(
    study: Study,
) -> None:
    question = _question(study)
    slash = RoundFactory(study=study, name="a/b", position=1)
    plain = RoundFactory(study=study, name="a", position=2)
    _label(question, slash, names=("c", "d"))
    _label(question, plain, names=("b/c", "e"))
    scope = scope_spans(question=question, round_ids=[slash.pk, plain.pk])
    items = dict(study.items.values_list("external_id", "pk"))
    assert sorted(scope.document_names) == sorted(
        [
            f"a/b/c (item {items['c']}, round {slash.pk})",
            "a/b/d",
            f"a/b/c (item {items['b/c']}, round {plain.pk})",
            "a/e",
        ]
    )
    assert scope.coder_names == ("ann", "bob")
    assert scope.named.documents == scope.document_names
    assert scope.named.coders == ("ann", "bob")
