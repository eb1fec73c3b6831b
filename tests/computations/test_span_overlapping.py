"""alpha_u's ``overlapping`` parameter end to end: a coder's nested units of one category
leave alpha_u undefined by default, with a reason that names the parameter to send; with
``"overlapping": "merge"`` alpha_u is that of the same units merged by hand.

The round (character offsets, coders ann and bob; docs/references.md#span-polish-nested):

    doc-1 [0, 30)  ann: PER [0, 10), PER [3, 6) (nested), LOC [15, 20)
                   bob: PER [0, 8), LOC [15, 22)
    doc-2 [0, 20)  ann: ORG [2, 9)
                   bob: ORG [2, 9), PER [12, 15)

By hand, on the units as given (nesting does not matter to them):

- span F1, exact: only ORG [2, 9) matches; ann has 4 units, bob 4: F1 = 2·1 / 8 = 1/4.
- span F1, overlap (IoU ≥ 0.5): PER [0, 10) ~ [0, 8) (IoU 0.8), LOC [15, 20) ~ [15, 22)
  (5/7), ORG ~ ORG; PER [3, 6) ~ [0, 8) has IoU 3/8 and [0, 8) is taken: F1 = 2·3 / 8 = 3/4.
- token alpha: nested units of one category are no conflict; positions where the two differ:
  8–9 (PER/O), 20–21 (O/LOC), 12–14 of doc-2 (O/PER): 7 of 50, so D_o = 14/100. Values per
  category over both coders: PER 10 + 11, LOC 5 + 7, ORG 7 + 7, O 28 + 25 = 21, 12, 14, 53;
  D_e = (100² − (21² + 12² + 14² + 53²)) / (100 · 99) = 6410/9900;
  alpha = 1 − (14/100) / (6410/9900) = 2512/3205.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError

from computations.comparison import COMPARISON_KEY
from computations.models import Computation, ComputationScope, ComputationStatus
from computations.services import computation_parameters, computation_request
from studies.models import Annotation, Coder, Item, LabelKind, Question, Round, Study
from tests.computations.helpers import nominal_question
from tests.factories import (
    CategoryFactory,
    CoderFactory,
    ItemFactory,
    QuestionFactory,
    RoundFactory,
)

pytestmark = pytest.mark.django_db

F1_EXACT = 1 / 4
F1_OVERLAP = 3 / 4
TOKEN_ALPHA = 2512 / 3205

#: (document, coder, begin, end, category) as the module docstring lists them.
NESTED = [
    ("doc-1", "ann", 0, 10, "PER"),
    ("doc-1", "ann", 3, 6, "PER"),
    ("doc-1", "ann", 15, 20, "LOC"),
    ("doc-1", "bob", 0, 8, "PER"),
    ("doc-1", "bob", 15, 22, "LOC"),
    ("doc-2", "ann", 2, 9, "ORG"),
    ("doc-2", "bob", 2, 9, "ORG"),
    ("doc-2", "bob", 12, 15, "PER"),
]
#: The same units with ann's nested PER [3, 6) merged into PER [0, 10) by hand.
MERGED = [unit for unit in NESTED if unit[2:4] != (3, 6)]
EXTENTS = {"doc-1": (0, 30), "doc-2": (0, 20)}
#: alpha_u's reason on the nested units, by default.
REFUSED = (
    "document 'doc-1', coder 'ann': units [0, 10) and [3, 6) of category 'PER' overlap; "
    "alpha_U needs one coder's units of a category to be disjoint (request the computation "
    'again with the parameter "overlapping": "merge" to merge them into their union)'
)


def _question(study: Study, key: str) -> Question:
    question = QuestionFactory(study=study, kind=LabelKind.SPAN, key=key)
    for position, code in enumerate(("PER", "ORG", "LOC")):
        CategoryFactory(question=question, code=code, position=position)
    return question


def _annotate(
    question: Question, round_: Round, units: list[tuple[str, str, int, int, str]]
) -> None:
    study = question.study
    categories = dict(question.categories.values_list("code", "id"))
    coders = {}
    for key in ("ann", "bob"):
        found = Coder.objects.filter(study=study, key=key).first()
        coders[key] = found or CoderFactory(study=study, key=key)
    for document, (begin, end) in EXTENTS.items():
        item = Item.objects.filter(study=study, external_id=document).first() or ItemFactory(
            study=study, external_id=document, text="", extent_begin=begin, extent_end=end
        )
        for key, coder in coders.items():
            Annotation.objects.create(
                round=round_,
                question=question,
                item=item,
                coder=coder,
                units=sorted(
                    [b, e, categories[c]] for d, k, b, e, c in units if (d, k) == (document, key)
                ),
            )


def _compute(question: Question, round_: Round, capture: Any, **parameters: Any) -> Computation:
    with capture(execute=True):
        result = computation_request(
            study=question.study,
            question=question,
            scope=ComputationScope.ROUND,
            rounds=[round_],
            parameters={"bootstrap": 0, **parameters},
        )
    computation = Computation.objects.get(pk=result.computation.pk)
    assert computation.status == ComputationStatus.DONE, computation.error
    return computation


def test_nested_units_leave_alpha_u_undefined_by_default_with_the_parameter_to_send(
    study: Study, django_capture_on_commit_callbacks: Any
) -> None:
    question = _question(study, "entities")
    round_ = RoundFactory(study=study, name="R1", position=1)
    _annotate(question, round_, NESTED)
    results = _compute(question, round_, django_capture_on_commit_callbacks).results
    coefficients = results["coefficients"]
    alpha_u = coefficients["alpha_u"]
    assert alpha_u["value"] is None
    assert alpha_u["reason"] == REFUSED
    assert results["skipped"]["alpha_u"] == alpha_u["reason"]
    assert coefficients["span_f1"]["value"] == pytest.approx(F1_EXACT)
    assert coefficients["span_f1_overlap"]["value"] == pytest.approx(F1_OVERLAP)
    assert coefficients["token_alpha"]["value"] == pytest.approx(TOKEN_ALPHA)
    assert all(d["observed_disagreement"] is None for d in results["documents"])


def test_merge_gives_alpha_u_of_the_units_merged_by_hand(
    study: Study, django_capture_on_commit_callbacks: Any
) -> None:
    capture = django_capture_on_commit_callbacks
    nested, merged = _question(study, "entities"), _question(study, "merged")
    round_ = RoundFactory(study=study, name="R1", position=1)
    _annotate(nested, round_, NESTED)
    _annotate(merged, round_, MERGED)
    by_hand = _compute(merged, round_, capture, bootstrap=50).results
    asked = _compute(nested, round_, capture, bootstrap=50, overlapping="merge")
    assert asked.parameters["overlapping"] == "merge"
    results = asked.results
    alpha_u, expected = results["coefficients"]["alpha_u"], by_hand["coefficients"]["alpha_u"]
    assert expected["value"] is not None
    assert alpha_u["value"] == pytest.approx(expected["value"], abs=1e-12)
    assert alpha_u["overlapping"] == "merge"
    for code in ("PER", "ORG", "LOC"):
        assert alpha_u["categories"][code]["value"] == pytest.approx(
            expected["categories"][code]["value"], abs=1e-12
        )
    assert alpha_u["ci"]["replicates"] == 50
    shares = {d["external_id"]: d["observed_disagreement"] for d in results["documents"]}
    assert shares == pytest.approx(
        {d["external_id"]: d["observed_disagreement"] for d in by_hand["documents"]}
    )
    # The other measures read the units as given: ann's nested unit still counts in F1.
    assert results["coefficients"]["span_f1"]["value"] == pytest.approx(F1_EXACT)
    assert results["coefficients"]["token_alpha"]["value"] == pytest.approx(TOKEN_ALPHA)
    assert "alpha_u" not in results["skipped"]


def test_the_comparison_with_the_previous_round_merges_as_the_computation_did(
    study: Study, django_capture_on_commit_callbacks: Any
) -> None:
    capture = django_capture_on_commit_callbacks
    question = _question(study, "entities")
    rounds = [RoundFactory(study=study, name=f"R{n}", position=n) for n in (1, 2)]
    _annotate(question, rounds[0], NESTED)
    _annotate(question, rounds[1], MERGED)
    _compute(question, rounds[0], capture, overlapping="merge")
    later = _compute(question, rounds[1], capture, overlapping="merge").results
    entry = later[COMPARISON_KEY]["coefficients"]["alpha_u"]
    assert entry["method"] == "bootstrap"
    # The same units once merged: the two rounds have the same alpha_u.
    assert entry["difference"]["estimate"] == pytest.approx(0.0, abs=1e-12)
    default = _compute(question, rounds[1], capture).results[COMPARISON_KEY]
    refused = default["coefficients"]["alpha_u"]["reason"]
    assert refused == f"no bootstrap interval: {REFUSED}"


def test_overlapping_is_checked_naming_the_field(study: Study) -> None:
    question = _question(study, "entities")
    params = computation_parameters(question=question, given={})
    assert params["overlapping"] == "error"
    with pytest.raises(ValidationError) as caught:
        computation_parameters(question=question, given={"overlapping": "union"})
    assert caught.value.message_dict == {
        "overlapping": [
            "What alpha_u does with one coder's overlapping units of a category: one of "
            "error, merge."
        ]
    }
    with pytest.raises(ValidationError) as caught:
        computation_parameters(question=nominal_question(study), given={"overlapping": "merge"})
    assert caught.value.message_dict == {
        "overlapping": [
            "Nominal questions take no overlapping: it is a parameter of span questions."
        ]
    }


def test_the_api_takes_overlapping_and_answers_400_naming_it(
    study: Study, annotator_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = _question(study, "entities")
    round_ = RoundFactory(study=study, name="R1", position=1)
    _annotate(question, round_, NESTED)
    url = f"/api/v1/studies/{study.pk}/computations/"
    body = {"question": "entities", "round": "R1", "bootstrap": 0}
    refused = annotator_client.post(url, {**body, "overlapping": "union"}, format="json")
    assert refused.status_code == 400, refused.content
    assert "overlapping" in str(refused.json())
    with django_capture_on_commit_callbacks(execute=True):
        accepted = annotator_client.post(url, {**body, "overlapping": "merge"}, format="json")
    assert accepted.status_code in (200, 201, 202), accepted.content
    computation = Computation.objects.get()
    assert computation.parameters["overlapping"] == "merge"
    assert computation.results["coefficients"]["alpha_u"]["value"] is not None
