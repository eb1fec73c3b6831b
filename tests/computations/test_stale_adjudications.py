"""A computation whose model coder gave confidences records the scope's adjudications its
calibration read, and is stale once they change (computations/selectors.py,
``Staleness``); the same request then computes anew. A computation without model
confidences reads no adjudication and is never stale for one.

The data is ADJUDICATION_CASE (tests/computations/model_rounds.py), hand-worked in
tests/computations/test_model_coders.py: with n ≤ 10 distinct confidences each label is a
bin of its own, so ECE = mean |correct − confidence|. Before any adjudication, against the
people's majority: i0 (0.9, right), i1 (0.8, wrong), i2 (0.7, right); ECE = (0.1 + 0.8 +
0.3)/3 = 0.4. After adjudicating i1 "b" and i3 "c" (ADJUDICATED): i0 (0.9, right), i1
(0.8, right), i2 (0.7, right), i3 (0.6, wrong); ECE = (0.1 + 0.2 + 0.3 + 0.6)/4 = 0.3.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from adjudication.services import adjudicate
from computations.models import Computation
from computations.selectors import computation_staleness, study_history
from computations.services import computation_request
from studies.models import CoderKind, Item, Question, Round, Study
from tests.computations.helpers import nominal_question
from tests.computations.model_rounds import ADJUDICATED, adjudication_case_rows, upload
from tests.factories import CoderFactory, RoundFactory

pytestmark = pytest.mark.django_db

CHANGED = "the adjudications changed after this result"


def _case(
    study: Study, client: APIClient, *, confidences: bool = True, model: bool = True
) -> tuple[Question, Round]:
    """Question ``q``, round ``R1``: three people and the model coder ``llm`` on the five
    items of ADJUDICATION_CASE, with the model's confidences or without them (or the
    people alone)."""
    question = nominal_question(study, key="q")
    RoundFactory(study=study, name="R1", position=1)
    round_ = Round.objects.get(study=study, name="R1")
    CoderFactory(study=study, key="llm", kind=CoderKind.MODEL, model_name="gpt-test")
    rows = adjudication_case_rows()
    if not confidences:
        rows = [{k: v for k, v in row.items() if k != "confidence"} for row in rows]
    if not model:
        rows = [row for row in rows if row["coder"] != "llm"]
    response = upload(client, study, rows)
    assert response.status_code in (200, 201), response.content
    return question, round_


def _compute(
    client: APIClient, study: Study, on_commit: Any, **parameters: Any
) -> tuple[int, dict[str, Any]]:
    """The status code of the request and the computation as the API shows it."""
    with on_commit(execute=True):
        posted = client.post(
            f"/api/v1/studies/{study.pk}/computations/",
            {"question": "q", "round": "R1", "bootstrap": 0, **parameters},
            format="json",
        )
    assert posted.status_code in (200, 202), posted.json()
    body = dict(client.get(posted["Location"]).json())
    assert body["status"] == "done", body.get("error")
    return posted.status_code, body


def _read(client: APIClient, study: Study, computation_id: int) -> dict[str, Any]:
    return dict(client.get(f"/api/v1/studies/{study.pk}/computations/{computation_id}/").json())


def _ece(body: dict[str, Any]) -> float:
    return float(body["results"]["model_coders"]["per_model"][0]["calibration"]["ece"])


def _adjudicate(study: Study, question: Question, round_: Round, labels: dict[str, str]) -> None:
    items = {item.external_id: item for item in Item.objects.filter(study=study)}
    for external_id, label in labels.items():
        adjudicate(round_=round_, question=question, item=items[external_id], label=label)


def test_an_adjudication_makes_the_calibrated_result_stale_and_the_request_computes_anew(
    study: Study, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    on_commit = django_capture_on_commit_callbacks
    question, round_ = _case(study, manager_client)
    _, first = _compute(manager_client, study, on_commit)
    assert _ece(first) == pytest.approx(0.4, abs=1e-12)
    assert (first["stale"], first["stale_reason"]) == (False, None)
    # It read the scope's adjudications (none yet): their fingerprint is recorded.
    assert first["adjudications_fingerprint"] != ""

    # i1 first as its majority says ("a"), then overturned ("b"); i3 settled.
    _adjudicate(study, question, round_, {"i1": "a"})
    _adjudicate(study, question, round_, ADJUDICATED)

    stale = _read(manager_client, study, first["id"])
    assert (stale["stale"], stale["stale_reason"]) == (True, CHANGED)
    listed = manager_client.get(f"/api/v1/studies/{study.pk}/computations/").json()
    assert [(row["stale"], row["stale_reason"]) for row in listed["results"]] == [(True, CHANGED)]
    (entry,) = [r for r in study_history(study=study)["questions"][0]["rounds"] if r["computation"]]
    assert (entry["stale"], entry["stale_reason"], entry["stale_short"]) == (
        True,
        CHANGED,
        "adjudications changed since",
    )

    status, second = _compute(manager_client, study, on_commit)
    # A new computation (202), not the stored one (200), made from the adjudications.
    assert (status, second["id"] != first["id"]) == (202, True)
    assert _ece(second) == pytest.approx(0.3, abs=1e-12)
    assert (second["stale"], second["stale_reason"]) == (False, None)
    # Nothing changed since: the same request finds it.
    status, third = _compute(manager_client, study, on_commit)
    assert (status, third["id"]) == (200, second["id"])


def test_adjudicating_an_item_again_with_the_same_label_is_no_change(
    study: Study, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    question, round_ = _case(study, manager_client)
    _adjudicate(study, question, round_, ADJUDICATED)
    _, first = _compute(manager_client, study, django_capture_on_commit_callbacks)
    assert _ece(first) == pytest.approx(0.3, abs=1e-12)
    # A new record supersedes the current one, with the same label: the same reference.
    _adjudicate(study, question, round_, {"i1": "b"})
    again = _read(manager_client, study, first["id"])
    assert (again["stale"], again["stale_reason"]) == (False, None)


def test_changed_annotations_and_adjudications_are_both_named(
    study: Study, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    question, round_ = _case(study, manager_client)
    _, first = _compute(manager_client, study, django_capture_on_commit_callbacks)
    _adjudicate(study, question, round_, ADJUDICATED)
    response = upload(manager_client, study, [{"item": "i4", "coder": "ann", "label": "b"}])
    assert response.status_code in (200, 201), response.content
    staleness = computation_staleness(Computation.objects.get(pk=first["id"]))
    assert staleness.reason == (
        "the annotations changed and the adjudications changed after this result"
    )
    assert staleness.short == "annotations changed and adjudications changed since"


@pytest.mark.parametrize("model_coder", [True, False], ids=["model-without-confidences", "people"])
def test_a_result_without_model_confidences_stays_fresh_after_an_adjudication(
    study: Study,
    manager_client: APIClient,
    django_capture_on_commit_callbacks: Any,
    model_coder: bool,
) -> None:
    on_commit = django_capture_on_commit_callbacks
    question, round_ = _case(study, manager_client, confidences=False, model=model_coder)
    _, first = _compute(manager_client, study, on_commit)
    assert first["adjudications_fingerprint"] == ""
    _adjudicate(study, question, round_, ADJUDICATED)
    fresh = _read(manager_client, study, first["id"])
    assert (fresh["stale"], fresh["stale_reason"]) == (False, None)
    status, again = _compute(manager_client, study, on_commit)
    # Unless the annotations changed, the same request is the stored result.
    assert (status, again["id"]) == (200, first["id"])


def _queries(read: Any) -> tuple[int, Any]:
    with CaptureQueriesContext(connection) as queries:
        out = read()
    return len(queries.captured_queries), out


def test_the_list_and_the_history_read_the_adjudications_once_per_scope(
    study: Study, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    """One stale computation, then three of the same scope (other seeds) and a second stale
    round: the list and the history read as many queries (no query per computation)."""
    on_commit = django_capture_on_commit_callbacks
    question, round_ = _case(study, manager_client)
    _compute(manager_client, study, on_commit, seed=1)
    _adjudicate(study, question, round_, {"i1": "b"})

    def listed() -> list[str | None]:
        body = manager_client.get(f"/api/v1/studies/{study.pk}/computations/").json()
        return [row["stale_reason"] for row in body["results"]]

    def history() -> list[str | None]:
        rounds = study_history(study=study)["questions"][0]["rounds"]
        return [r["stale_reason"] for r in rounds]

    one_listed, reasons = _queries(listed)
    assert reasons == [CHANGED]
    one_history, reasons = _queries(history)
    assert reasons == [CHANGED]

    for seed in (2, 3):
        _compute(manager_client, study, on_commit, seed=seed)
    _adjudicate(study, question, round_, {"i3": "c"})
    assert _queries(listed) == (one_listed, [CHANGED] * 3)

    RoundFactory(study=study, name="R2", position=2)
    second = Round.objects.get(study=study, name="R2")
    response = manager_client.post(
        f"/api/v1/studies/{study.pk}/annotations/bulk/",
        {"round": "R2", "question": "q", "annotations": adjudication_case_rows()},
        format="json",
    )
    assert response.status_code in (200, 201), response.content
    with on_commit(execute=True):
        posted = manager_client.post(
            f"/api/v1/studies/{study.pk}/computations/",
            {"question": "q", "round": "R2", "bootstrap": 0},
            format="json",
        )
    assert posted.status_code == 202, posted.json()
    _adjudicate(study, question, second, {"i3": "c"})
    assert _queries(history) == (one_history, [CHANGED, CHANGED])


def test_the_request_reads_the_adjudications_in_one_query_however_many(
    study: Study, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    question, round_ = _case(study, manager_client)

    def request(seed: int) -> int:
        with django_capture_on_commit_callbacks(execute=False):
            count, _ = _queries(
                lambda: computation_request(
                    study=study, question=question, rounds=[round_], parameters={"seed": seed}
                )
            )
        return count

    _adjudicate(study, question, round_, {"i1": "b"})
    one = request(1)
    _adjudicate(study, question, round_, {"i0": "a", "i2": "b", "i3": "c", "i4": "c"})
    assert request(2) == one
    reads = Computation.objects.order_by("id").values_list("adjudications_fingerprint", flat=True)
    assert len(set(reads)) == 2


def test_a_computation_split_by_items_records_the_adjudications_as_an_unsplit_one(
    study: Study, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    question, round_ = _case(study, manager_client)
    _adjudicate(study, question, round_, ADJUDICATED)
    with override_settings(AGREEMENT_ITEM_CHUNK_ANNOTATIONS=10**9):
        _, single = _compute(manager_client, study, django_capture_on_commit_callbacks)
    Computation.objects.all().delete()  # the same request again is new
    with override_settings(AGREEMENT_ITEM_CHUNK_ANNOTATIONS=8):
        _, split = _compute(manager_client, study, django_capture_on_commit_callbacks)
    assert split["results"]["item_chunks"]["split"] is True
    assert _ece(split) == pytest.approx(0.3, abs=1e-12)
    assert split["adjudications_fingerprint"] == single["adjudications_fingerprint"] != ""
    _adjudicate(study, question, round_, {"i4": "b"})
    assert _read(manager_client, study, split["id"])["stale_reason"] == CHANGED
