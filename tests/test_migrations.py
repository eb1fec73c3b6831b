"""Upgrading a database from the schema before the apps were split keeps every row.

The computation and webhook models moved from the ``studies`` app to ``computations`` and
``webhooks``; their tables are renamed in place. This migrates an empty database to the
old schema, writes rows through the old (historical) models, migrates forward and reads
them back through the new ones.
"""

from __future__ import annotations

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

OLD = [("studies", "0004_leaner_annotation_indexes")]

pytestmark = pytest.mark.django_db(transaction=True)


def _migrate(targets: list[tuple[str, str]]) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection)


def _latest() -> list[tuple[str, str]]:
    """Every app's latest migration: going back to the old schema unapplied the apps built
    on ``studies`` too (adjudication, planning, ...), and the tests after this one need them."""
    executor = MigrationExecutor(connection)
    return list(executor.loader.graph.leaf_nodes())


def test_rows_written_before_the_split_are_read_by_the_new_apps() -> None:
    latest = _latest()
    old_state = _migrate([("computations", None), ("webhooks", None), *OLD]).loader.project_state(
        OLD
    )
    old = old_state.apps
    Study = old.get_model("studies", "Study")
    Question = old.get_model("studies", "Question")
    Round = old.get_model("studies", "Round")
    OldComputation = old.get_model("studies", "Computation")
    OldChunk = old.get_model("studies", "ComputationChunk")
    OldEndpoint = old.get_model("studies", "WebhookEndpoint")
    OldDelivery = old.get_model("studies", "WebhookDelivery")
    OldAttempt = old.get_model("studies", "WebhookAttempt")
    ContentType.objects.get_or_create(app_label="studies", model="computation")

    study = Study.objects.create(name="Upgrade")
    question = Question.objects.create(study=study, key="topic", text="Topic?", kind="nominal")
    round_ = Round.objects.create(study=study, name="R1", position=1)
    computation = OldComputation.objects.create(
        study=study,
        question=question,
        scope="round",
        params_hash="h" * 64,
        data_revision="r1",
        status="done",
        results={"coefficients": {"krippendorff_alpha": {"value": 0.5}}},
    )
    computation.rounds.add(round_)
    OldChunk.objects.create(computation=computation, index=0, start=0, stop=10, done=True)
    endpoint = OldEndpoint.objects.create(
        study=study, url="https://example.org/hook", secret="s", events=["ping"]
    )
    delivery = OldDelivery.objects.create(
        endpoint=endpoint, event="ping", event_id="e1", payload={"a": 1}
    )
    OldAttempt.objects.create(delivery=delivery, number=1, status_code=200, succeeded=True)

    new = _migrate(latest).loader.project_state(latest).apps

    Computation = new.get_model("computations", "Computation")
    moved = Computation.objects.get(pk=computation.pk)
    assert moved.results == {"coefficients": {"krippendorff_alpha": {"value": 0.5}}}
    assert list(moved.rounds.values_list("name", flat=True)) == ["R1"]
    assert new.get_model("computations", "ComputationChunk").objects.get().stop == 10
    Delivery = new.get_model("webhooks", "WebhookDelivery")
    assert Delivery.objects.get().payload == {"a": 1}
    assert new.get_model("webhooks", "WebhookAttempt").objects.get().status_code == 200
    assert new.get_model("webhooks", "WebhookEndpoint").objects.get().url == (
        "https://example.org/hook"
    )
    tables = set(connection.introspection.table_names())
    assert {"computations_computation", "computations_computation_rounds"} <= tables
    assert {"webhooks_webhookendpoint", "webhooks_webhookdelivery"} <= tables
    assert not {t for t in tables if t.startswith(("studies_computation", "studies_webhook"))}
    assert ContentType.objects.filter(app_label="computations", model="computation").exists()
    assert not ContentType.objects.filter(app_label="studies", model="computation").exists()
