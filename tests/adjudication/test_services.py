"""Gold coder, adjudication and the results against the reference, computed on the worker
(eager Celery, as in the other tests) and stored.

Expected values are worked by hand from the table in ``conftest.py``
(docs/references.md#adjudication-hand-round).
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from adjudication import services
from adjudication.models import Adjudication, ReferenceResult, ReferenceStatus
from adjudication.selectors import (
    adjudication_item_ids,
    coder_reference_history,
    items_to_adjudicate,
)
from computations.models import Computation, ComputationStatus
from computations.services import computation_request
from review.models import ReviewEntry, ReviewResolution
from review.services import review_rule_set
from studies.models import Item
from tests.factories import CoderFactory, RoundFactory, StudyFactory

pytestmark = pytest.mark.django_db


def stored(round_: Any, question: Any) -> dict[str, Any]:
    result = ReferenceResult.objects.get(round=round_, question=question)
    assert result.status == ReferenceStatus.DONE, result.error
    return result.results


def by_coder(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["coder"]: entry for entry in results["coders"]}


def test_a_gold_coder_gives_each_coder_its_results(
    gold_round: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    # docs/references.md#adjudication-hand-round
    round_, question, (_, _, gold) = (
        gold_round["round"],
        gold_round["question"],
        gold_round["coders"],
    )
    with django_capture_on_commit_callbacks(execute=True):
        services.gold_coder_set(round_=round_, coder=gold)
    results = stored(round_, question)
    assert results["gold_coder"] == "g"
    assert results["n_reference_items"] == 4
    assert results["labels"] == ["a", "b", "c"]
    coders = by_coder(results)
    assert sorted(coders) == ["c1", "c2"]  # the gold coder is not measured
    c1, c2 = coders["c1"], coders["c2"]
    assert c1["n_items"] == 4
    assert c1["accuracy"]["value"] == pytest.approx(0.5)
    assert c1["kappa"]["value"] == pytest.approx(0.2)
    assert c2["accuracy"]["value"] == pytest.approx(0.75)
    assert c2["kappa"]["value"] == pytest.approx(0.5)
    assert c1["alpha"]["value"] == pytest.approx(1 / 8)
    assert c2["alpha"]["value"] == pytest.approx(8 / 15)
    assert results["distance"] == "nominal"
    assert c1["notes"] == {}
    assert c1["confusion"] == [[1, 0, 0], [2, 1, 0], [0, 0, 0]]
    assert c1["categories"][1] == {
        "label": "b", "precision": 1.0, "recall": pytest.approx(1 / 3), "f1": 0.5, "support": 3
    }  # fmt: skip
    assert c1["accuracy"]["low"] is not None
    assert c1["accuracy"]["low"] <= 0.5 <= c1["accuracy"]["high"]


def test_an_adjudicated_label_overrides_the_gold_coder_and_keeps_history(
    gold_round: dict[str, Any], django_capture_on_commit_callbacks: Any, manager: Any
) -> None:
    # docs/references.md#adjudication-hand-round
    round_, question = gold_round["round"], gold_round["question"]
    c1, _c2, gold = gold_round["coders"]
    u4 = gold_round["items"][3]
    with django_capture_on_commit_callbacks(execute=True):
        services.gold_coder_set(round_=round_, coder=gold)
        first = services.adjudicate(
            round_=round_, question=question, item=u4, label="c", note="neither", user=manager
        )
    assert first.value == "c"
    with django_capture_on_commit_callbacks(execute=True):
        second = services.adjudicate(
            round_=round_, question=question, item=u4, coder=c1, note="c1 was right"
        )
    assert (second.value, second.source, second.source_coder) == ("a", "coder", c1)
    first.refresh_from_db()
    assert first.superseded_at is not None
    assert first.created_by == manager
    assert list(
        Adjudication.objects.filter(item=u4).order_by("id").values_list("value", "note")
    ) == [("c", "neither"), ("a", "c1 was right")]
    results = stored(round_, question)
    assert results["n_adjudicated"] == 1
    coders = by_coder(results)
    assert coders["c1"]["accuracy"]["value"] == pytest.approx(0.75)
    assert coders["c2"]["accuracy"]["value"] == pytest.approx(1.0)


def test_adjudications_alone_make_a_reference(
    gold_round: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    round_, question = gold_round["round"], gold_round["question"]
    u2 = gold_round["items"][1]
    with django_capture_on_commit_callbacks(execute=True):
        services.adjudicate(round_=round_, question=question, item=u2, label="b")
    results = stored(round_, question)
    assert results["gold_coder"] is None
    assert results["n_reference_items"] == 1
    coders = by_coder(results)
    assert sorted(coders) == ["c1", "c2", "g"]
    assert coders["c1"]["accuracy"]["value"] == 0.0
    assert coders["c2"]["accuracy"]["value"] == 1.0
    assert coders["c1"]["accuracy"]["low"] is None  # one item: no interval
    assert coders["c1"]["notes"]["accuracy_interval"] == "An interval needs at least two items."


def test_refusals_name_the_field(gold_round: dict[str, Any]) -> None:
    round_, question = gold_round["round"], gold_round["question"]
    c1 = gold_round["coders"][0]
    u1 = gold_round["items"][0]
    with pytest.raises(ValidationError) as both:
        services.adjudicate(round_=round_, question=question, item=u1, label="a", coder=c1)
    assert both.value.message_dict == {
        "label": ["Give either a label or the coder whose label to take, not both."]
    }
    with pytest.raises(ValidationError) as unknown:
        services.adjudicate(round_=round_, question=question, item=u1, label="z")
    assert "label" in unknown.value.message_dict
    assert "'z'" in unknown.value.message_dict["label"][0]
    stranger = CoderFactory(study=round_.study, key="late")
    with pytest.raises(ValidationError) as unlabelled:
        services.adjudicate(round_=round_, question=question, item=u1, coder=stranger)
    assert unlabelled.value.message_dict == {
        "coder": ["Coder late did not label item u1 in this round."]
    }
    other = CoderFactory(study=StudyFactory(), key="elsewhere")
    with pytest.raises(ValidationError) as foreign:
        services.gold_coder_set(round_=round_, coder=other)
    assert foreign.value.message_dict == {"gold_coder": ["This coder belongs to another study."]}


def test_adjudicated_items_leave_the_review_queue(
    study: Any, gold_round: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    round_, question = gold_round["round"], gold_round["question"]
    review_rule_set(question=question, disagreement=True)
    with (
        mock.patch("webhooks.services.dispatch.deliveries_enqueue"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        computation_request(
            study=study, question=question, rounds=[round_], parameters={"bootstrap": 0}
        )
    assert sorted(
        ReviewEntry.objects.filter(resolved_at__isnull=True).values_list(
            "item__external_id", flat=True
        )
    ) == ["u2", "u4"]
    with django_capture_on_commit_callbacks(execute=True):
        services.adjudicate(
            round_=round_, question=question, item=gold_round["items"][1], label="b", note="b"
        )
    entry = ReviewEntry.objects.get(item__external_id="u2")
    assert (entry.resolution, entry.resolution_note) == (ReviewResolution.ADJUDICATED, "b")
    assert list(
        ReviewEntry.objects.filter(resolved_at__isnull=True).values_list(
            "item__external_id", flat=True
        )
    ) == ["u4"]


def test_a_finished_computation_refreshes_the_results_of_a_round_with_a_reference(
    study: Any, gold_round: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    round_, question, gold = gold_round["round"], gold_round["question"], gold_round["coders"][2]
    with django_capture_on_commit_callbacks(execute=True):
        services.gold_coder_set(round_=round_, coder=gold)
    ReferenceResult.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=True):
        request = computation_request(
            study=study, question=question, rounds=[round_], parameters={"bootstrap": 0}
        )
    assert Computation.objects.get(pk=request.computation.pk).status == ComputationStatus.DONE
    assert by_coder(stored(round_, question))["c2"]["accuracy"]["value"] == pytest.approx(0.75)
    # A round without a reference computes nothing against one.
    bare = RoundFactory(study=study, name="Round 2", position=2)
    assert services.reference_on_computation_finished(computation_id=request.computation.pk)
    assert not ReferenceResult.objects.filter(round=bare).exists()


def test_the_sweep_resends_what_the_broker_refused(
    gold_round: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    round_, question, gold = gold_round["round"], gold_round["question"], gold_round["coders"][2]
    with (
        mock.patch("agreement_server.outbox.signature", side_effect=ConnectionError("broker down")),
        django_capture_on_commit_callbacks(execute=True),
    ):
        services.gold_coder_set(round_=round_, coder=gold)
    result = ReferenceResult.objects.get(round=round_, question=question)
    assert (result.status, result.dispatched_at) == (ReferenceStatus.QUEUED, None)
    assert services.reference_results_sweep(now=timezone.now()) == [result.pk]
    assert stored(round_, question)["gold_coder"] == "g"


def test_history_and_the_items_to_adjudicate(
    study: Any, gold_round: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    round_, question, gold = gold_round["round"], gold_round["question"], gold_round["coders"][2]
    with django_capture_on_commit_callbacks(execute=True):
        services.gold_coder_set(round_=round_, coder=gold)
    rows = coder_reference_history(study=study, question=question, coder=gold_round["coders"][1])
    assert [(r["round"], r["coder"], r["accuracy"]["value"]) for r in rows] == [
        ("Round 1", "c2", 0.75)
    ]
    ids = adjudication_item_ids(round_=round_, question=question)
    listed = items_to_adjudicate(round_=round_, question=question, item_ids=ids)
    assert [(i.external_id, i.labels) for i in listed] == [
        ("u2", {"c1": "a", "c2": "b", "g": "b"}),
        ("u4", {"c1": "a", "c2": "a", "g": "b"}),
    ]
    services.adjudicate(round_=round_, question=question, item=gold_round["items"][0], label="a")
    assert [
        Item.objects.get(pk=pk).external_id
        for pk in adjudication_item_ids(round_=round_, question=question)
    ] == ["u1", "u2", "u4"]
    assert len(adjudication_item_ids(round_=round_, question=question, disputed_only=False)) == 4


def test_a_study_with_adjudications_can_be_deleted_and_a_deleted_category_drops_out(
    study: Any, gold_round: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    from studies.models import Category
    from studies.services.study import study_delete
    from tests.factories import CategoryFactory

    round_, question = gold_round["round"], gold_round["question"]
    u1, u2 = gold_round["items"][:2]
    extra = CategoryFactory(question=question, code="d", position=9)
    with django_capture_on_commit_callbacks(execute=True):
        services.adjudicate(round_=round_, question=question, item=u1, label="d", note="rare")
        services.adjudicate(round_=round_, question=question, item=u2, label="b")
    Category.objects.filter(pk=extra.pk).delete()
    kept = Adjudication.objects.get(item=u1)
    assert (kept.category_id, kept.value, kept.note) == (None, "d", "rare")
    with django_capture_on_commit_callbacks(execute=True):
        services.reference_result_request(round_=round_, question=question)
    assert stored(round_, question)["n_reference_items"] == 1  # u2 only
    study_delete(study=study)
    assert not Adjudication.objects.exists()


def test_the_demo_has_a_gold_round_and_adjudicated_items(
    django_capture_on_commit_callbacks: Any,
) -> None:
    from demo.loader import demo_study_create

    with django_capture_on_commit_callbacks(execute=True):
        study = demo_study_create()
    main = study.rounds.get(name="Main")
    assert main.reference.gold_coder.key == "chen"
    current = Adjudication.objects.filter(round__study=study, superseded_at__isnull=True)
    assert sorted(current.values_list("round__name", flat=True)) == ["Main"] * 4 + ["Pilot"] * 4
    assert current.filter(source="entered").count() == 2
    sentiment = study.questions.get(key="sentiment")
    results = stored(main, sentiment)
    assert results["gold_coder"] == "chen"
    # The people and the model coder, each against the gold coder's labels.
    assert sorted(entry["coder"] for entry in results["coders"]) == ["alice", "bob", "llm-judge"]
    pilot = stored(study.rounds.get(name="Pilot"), sentiment)
    assert (pilot["gold_coder"], pilot["n_reference_items"]) == (None, 4)


def test_the_sweep_runs_on_beat_and_requeues_a_result_whose_worker_died(
    gold_round: dict[str, Any], django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    from datetime import timedelta

    from agreement_server.celery import app

    assert settings.CELERY_BEAT_SCHEDULE["reference-sweep"] == {
        "task": "adjudication.reference_sweep",
        "schedule": 60.0,
    }
    assert {"adjudication.reference_sweep", "adjudication.reference_compute"} <= set(app.tasks)
    round_, question, gold = gold_round["round"], gold_round["question"], gold_round["coders"][2]
    with mock.patch("agreement_server.outbox.signature"):  # the broker takes it; nobody runs it
        with django_capture_on_commit_callbacks(execute=True):
            result = services.gold_coder_set(round_=round_, coder=gold)
        claimed = ReferenceResult.objects.get(round=round_, question=question)
        assert services.reference_result_claim(result_id=claimed.pk)
        assert not services.reference_result_claim(result_id=claimed.pk)  # one worker wins
        assert services.reference_results_sweep() == []  # running, not yet stale
    later = timezone.now() + services.STALE_AFTER + timedelta(seconds=1)
    assert services.reference_results_sweep(now=later) == [claimed.pk]
    assert result.gold_coder == gold
    assert stored(round_, question)["gold_coder"] == "g"
