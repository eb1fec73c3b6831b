"""A computation request takes each kind's own parameters (relation's ``alpha_match``),
refuses a parameter the question's kind does not take naming it, and refuses any field it
does not know, with the closest name (DRF alone would drop it unseen).

Hand case, document ``d1`` ``Alice met Bob in Paris.`` (Alice [0, 5), Bob [10, 13),
"Paris" [17, 22), "Paris." [17, 23)):

- ``ann``: Alice -> Bob works_for; Bob -> "Paris" lives_in;
- ``ben``: Alice -> Bob works_for; Bob -> "Paris." lives_in.

Alpha with units aligned by overlap (IoU of [17, 22) and [17, 23) = 5/6 >= 0.5): items
(Alice, Bob): works_for, works_for; (Bob, Paris): lives_in, lives_in. No disagreement,
D_e = (16 - 4 - 4) / (4·3) > 0: alpha = 1.

Alpha with units aligned exactly: [17, 22) and [17, 23) are two units, so the items are
(Alice, Bob): works_for, works_for; (Bob, [17, 22)): lives_in, no relation; (Bob, [17, 23)):
no relation, lives_in. n = 6 (works_for 2, lives_in 2, none 2); D_o = (2 + 2) / 6 = 2/3 (each
disagreeing pair counted both ways); D_e = (36 - 4 - 4 - 4) / (6·5) = 4/5;
alpha = 1 - (2/3) / (4/5) = 1/6.

Relation F1, exact tuples: TP 1 (works_for), FP 1, FN 1 (the lives_in with different
tails): F1 = 2·1 / (2·1 + 1 + 1) = 1/2.
"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from computations.models import Computation
from studies.models import Study
from tests.computations.helpers import label_round, nominal_question
from tests.factories import ItemFactory, RoundFactory

pytestmark = pytest.mark.django_db

TEXT = "Alice met Bob in Paris."
RELATIONS = {
    "ann": [(0, 5, 10, 13, "works_for"), (10, 13, 17, 22, "lives_in")],
    "ben": [(0, 5, 10, 13, "works_for"), (10, 13, 17, 23, "lives_in")],
}


@pytest.fixture
def relation_study(study: Study, manager_client: APIClient) -> Study:
    round_ = RoundFactory(study=study, name="Round 1", position=1)
    ItemFactory(study=study, external_id="d1", text=TEXT)
    declared = manager_client.post(
        f"/api/v1/studies/{study.pk}/questions/",
        {
            "key": "rel",
            "kind": "relation",
            "categories": [{"code": "works_for"}, {"code": "lives_in"}],
        },
        format="json",
    )
    assert declared.status_code == 201, declared.json()
    rows = [
        {
            "document": "d1",
            "coder": coder,
            "head_begin": hb,
            "head_end": he,
            "tail_begin": tb,
            "tail_end": te,
            "label": label,
        }
        for coder, relations in RELATIONS.items()
        for hb, he, tb, te, label in relations
    ]
    uploaded = manager_client.post(
        f"/api/v1/studies/{study.pk}/annotations/structured/",
        {"round": "Round 1", "question": "rel", "rows": rows, "create_missing": True},
        format="json",
    )
    assert uploaded.status_code == 200, uploaded.json()
    label_round(round_, nominal_question(study, key="topic"), [["a", "b"], ["a", "a"]])
    return study


def _request(client: APIClient, study: Study, capture: Any, **body: Any) -> Any:
    """POST a computation of Round 1 with the worker run eagerly after the commit."""
    with capture(execute=True):
        return client.post(
            f"/api/v1/studies/{study.pk}/computations/",
            {"round": "Round 1", "bootstrap": 0, **body},
            format="json",
        )


def _errors(response: Any) -> list[tuple[str, str]]:
    assert response.status_code == 400, response.json()
    return [(error["attr"], error["detail"]) for error in response.json()["errors"]]


def test_alpha_match_changes_how_alpha_aligns_the_units(
    relation_study: Study, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    alphas = {}
    for alpha_match in ("overlap", "exact"):
        posted = _request(
            manager_client,
            relation_study,
            django_capture_on_commit_callbacks,
            question="rel",
            alpha_match=alpha_match,
        )
        assert posted.status_code == 202, posted.json()
        assert posted.json()["parameters"]["alpha_match"] == alpha_match
        computation = manager_client.get(posted.json()["url"]).json()
        assert computation["status"] == "done", computation.get("error")
        alphas[alpha_match] = computation["results"]["coefficients"]["alpha"]["value"]
    assert alphas["overlap"] == pytest.approx(1.0, abs=1e-12)
    assert alphas["exact"] == pytest.approx(1 / 6, abs=1e-12)


@pytest.mark.parametrize(("value", "alpha"), [("exact", 1 / 6), ('"exact"', 1 / 6)])
def test_a_form_posted_kind_parameter_is_read_as_text_or_as_json(
    value: str,
    alpha: float,
    relation_study: Study,
    manager_client: APIClient,
    django_capture_on_commit_callbacks: Any,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        posted = manager_client.post(
            f"/api/v1/studies/{relation_study.pk}/computations/",
            {"round": "Round 1", "bootstrap": "0", "question": "rel", "alpha_match": value},
        )
    assert posted.status_code == 202, posted.json()
    assert posted.json()["parameters"]["alpha_match"] == "exact"
    computation = manager_client.get(posted.json()["url"]).json()
    assert computation["results"]["coefficients"]["alpha"]["value"] == pytest.approx(alpha)


def test_a_relation_request_may_choose_the_relation_coefficients(
    relation_study: Study, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    posted = _request(
        manager_client,
        relation_study,
        django_capture_on_commit_callbacks,
        question="rel",
        coefficients=["relation_f1"],
    )
    assert posted.status_code == 202, posted.json()
    results = manager_client.get(posted.json()["url"]).json()["results"]
    assert list(results["coefficients"]) == ["relation_f1"]
    assert results["coefficients"]["relation_f1"]["value"] == pytest.approx(1 / 2, abs=1e-12)


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        (
            {"question": "rel", "alpha_match": "fuzzy"},
            [("alpha_match", "How alpha aligns units: one of overlap, exact.")],
        ),
        (
            {"question": "rel", "min_overlap": 0},
            [("min_overlap", "The IoU two units need to match, in (0, 1], e.g. 0.5.")],
        ),
        (
            {"question": "topic", "alpha_match": "exact"},
            [
                (
                    "alpha_match",
                    "Nominal questions take no alpha_match: it is a parameter of relation "
                    "questions.",
                )
            ],
        ),
        (
            {"question": "rel", "iou_threshold": 0.5},
            [
                (
                    "iou_threshold",
                    "Relation questions take no iou_threshold: it is a parameter of box, "
                    "polygon and keypoint questions.",
                )
            ],
        ),
        (
            {"question": "rel", "level": "nominal"},
            [
                (
                    "level",
                    "Relation questions take no level: it is a parameter of nominal, ordinal, "
                    "interval, ratio, set and hierarchy questions.",
                )
            ],
        ),
        (
            {"question": "rel", "min_overlpa": 0.3},
            [("min_overlpa", "Unknown field: 'min_overlpa'; did you mean 'min_overlap'?")],
        ),
        (
            {"question": "topic", "bootsrap": 10, "zzz": 1},
            [
                ("bootsrap", "Unknown field: 'bootsrap'; did you mean 'bootstrap'?"),
                (
                    "zzz",
                    "Unknown field: 'zzz'; the fields are: alpha_match, alt_test_alpha, "
                    "bootstrap, chunk_size, coefficients, confidence, distance, epsilon, "
                    "expected, expected_pairs, iou_threshold, level, min_overlap, overlapping, "
                    "question, round, rounds, scope, seed.",
                ),
            ],
        ),
    ],
)
def test_a_bad_or_unknown_parameter_answers_400_naming_the_field(
    body: dict[str, Any],
    errors: list[tuple[str, str]],
    relation_study: Study,
    manager_client: APIClient,
    django_capture_on_commit_callbacks: Any,
) -> None:
    response = _request(manager_client, relation_study, django_capture_on_commit_callbacks, **body)
    assert _errors(response) == errors
    assert not Computation.objects.exists()


def test_a_comparison_request_refuses_an_unknown_field(
    relation_study: Study, manager_client: APIClient
) -> None:
    response = manager_client.post(
        f"/api/v1/studies/{relation_study.pk}/comparisons/",
        {"question": "topic", "first": "Round 1", "second": "Round 1", "bootsrap": 20},
        format="json",
    )
    assert _errors(response) == [
        ("bootsrap", "Unknown field: 'bootsrap'; did you mean 'bootstrap'?")
    ]
