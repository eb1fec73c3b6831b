"""The worker stores a one-round computation's per-item diagnostics beside it
(``ComputationItemTable``), not in ``results``; the item downloads read that table. A
computation split by items assembles the same table from its item ranges."""

from __future__ import annotations

import csv
import io
import zlib
from datetime import timedelta
from typing import Any

import numpy as np
import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from computations import item_table
from computations import services as service
from computations.item_table import ChangedWhileSplitError, assemble, chunk_item_rows, unpack
from computations.models import (
    Computation,
    ComputationItemChunk,
    ComputationItemTable,
    ComputationScope,
    ComputationStatus,
)
from computations.services import computation_request, computations_sweep
from studies.models import Coder, LabelKind
from tests.computations.helpers import label_round, nominal_question
from tests.factories import CoderFactory, RoundFactory

pytestmark = pytest.mark.django_db

CODES = ("c1", "c2", "c3", "c4", "c5")
#: Wikipedia's Fleiss' kappa example, subjects 1 and 2: how many of the 14 raters chose each
#: of the 5 categories.  # docs/references.md#fleiss-wikipedia-14-raters
SUBJECT_COUNTS = ([0, 0, 0, 0, 14], [0, 2, 6, 4, 2])


def fleiss_round(study: Any) -> tuple[Any, Any]:
    round_ = RoundFactory(study=study)
    question = nominal_question(study, codes=CODES)
    columns = []
    for counts in SUBJECT_COUNTS:
        columns.append([code for code, n in zip(CODES, counts, strict=True) for _ in range(n)])
    table = [[column[c] for column in columns] for c in range(14)]
    label_round(round_, question, table)
    return round_, question


def compute(study: Any, question: Any, round_: Any, capture: Any, **params: Any) -> Any:
    with capture(execute=True):
        computation = computation_request(
            study=study,
            question=question,
            scope=ComputationScope.ROUND,
            rounds=[round_],
            parameters={"bootstrap": 0, **params},
        ).computation
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.DONE, computation.error
    return computation


def test_the_worker_stores_each_items_figures_beside_the_results(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    round_, question = fleiss_round(study)
    computation = compute(study, question, round_, django_capture_on_commit_callbacks)
    stored = ComputationItemTable.objects.get(computation=computation)
    assert stored.n_items == 2
    table = unpack(stored.table)
    assert len(table.coders) == 14
    first, second = table.items
    assert (first["n_coders"], first["n_distinct"], first["majority_share"]) == (14, 1, 1.0)
    assert first["pairwise_agreement"] == 1.0
    # docs/references.md#fleiss-wikipedia-14-raters: P_2 = 0.253, 6 of 14 chose category 3.
    assert (second["n_coders"], second["n_distinct"]) == (14, 4)
    assert second["pairwise_agreement"] == pytest.approx(0.253, abs=5e-4)
    assert second["majority_share"] == pytest.approx(6 / 14)
    assert len(second["labels"]) == 14
    # The pages read ``results`` often: the item table is not in it.
    assert "item_table" not in computation.results
    assert "labels" not in str(computation.results.get("diagnostics", {}).keys())


def test_a_computation_split_by_items_stores_the_table_and_the_download_answers(
    study: Any,
    settings: Any,
    viewer: Any,
    client: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    round_, question = fleiss_round(study)
    settings.AGREEMENT_ITEM_CHUNK_ANNOTATIONS = 10  # each subject (14 labels) a range
    computation = compute(study, question, round_, django_capture_on_commit_callbacks)
    assert computation.item_chunks.count() == 2
    url = reverse("pages:items-download", args=[study.pk, round_.pk, question.pk])
    client.force_login(viewer)
    response = client.get(url)
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [row["n_coders"] for row in rows] == ["14", "14"]
    assert [row["n_distinct"] for row in rows] == ["1", "4"]
    assert [row["majority"] for row in rows] == ["c5", "c3"]
    # docs/references.md#fleiss-wikipedia-14-raters: P_1 = 1, P_2 = 0.253; 6 of 14 chose c3.
    assert [row["pairwise_agreement"] for row in rows] == ["1", "0.252747"]
    assert [row["majority_share"] for row in rows] == ["1", "0.428571"]


#: Coders whose keys sort in another order than they are created (and numbered).
KEYS = ("zoe", "amy", "kim", "bob", "lee", "dan")
#: Annotations per item range: a few items each.
TINY = 17


def crowd_round(study: Any, kind: str) -> tuple[Any, Any]:
    """30 items, 6 coders, about a quarter of the labels missing; ``zoe`` labels the first
    items only and ``amy`` (the first key) the last ones only, so most item ranges have
    fewer coders than the round, in other positions."""
    rng = np.random.default_rng(7)
    n_items = 30
    if kind == LabelKind.INTERVAL:
        question = nominal_question(study, codes=(), kind=LabelKind.INTERVAL)
        truth = rng.normal(50.0, 10.0, n_items)
        table: list[list[Any]] = [
            [round(float(t + rng.normal(0, 4)), 2) for t in truth] for _ in KEYS
        ]
    else:
        question = nominal_question(study, codes=("a", "b", "c"))
        truth = rng.integers(0, 3, n_items)
        table = [
            ["abc"[t] if rng.random() < 0.7 else "abc"[rng.integers(0, 3)] for t in truth]
            for _ in KEYS
        ]
    for c, row in enumerate(table):
        for u in range(n_items):
            if rng.random() < 0.25 or (c == 0 and u >= 6) or (c == 1 and u < n_items - 6):
                row[u] = None
    round_ = RoundFactory(study=study)
    coders = [CoderFactory(study=study, key=key) for key in KEYS]
    label_round(round_, question, table, coders=coders)
    return round_, question


def downloads(study: Any, round_: Any, question: Any, viewer: Any) -> list[tuple[int, bytes]]:
    """The round page's items.csv and the API's diagnostics export (CSV and JSON)."""
    page = APIClient()
    page.force_login(viewer)
    api = APIClient()
    api.force_authenticate(user=viewer)
    export = f"/api/v1/studies/{study.pk}/exports/diagnostics/"
    query = {"round": round_.name, "question": question.key}
    responses = [
        page.get(reverse("pages:items-download", args=[study.pk, round_.pk, question.pk])),
        api.get(export, {**query, "format": "csv"}),
        api.get(export, query),
    ]
    return [(response.status_code, response.content) for response in responses]


@pytest.mark.parametrize(
    ("kind", "params"),
    [
        (LabelKind.NOMINAL, {"coefficients": ["alpha", "kappa"]}),
        (LabelKind.INTERVAL, {"coefficients": ["alpha"], "level": "interval",
                              "distance": "interval"}),
    ],
)  # fmt: skip
def test_a_split_computation_stores_the_item_table_of_the_one_step_path(
    study: Any,
    settings: Any,
    viewer: Any,
    django_capture_on_commit_callbacks: Any,
    kind: str,
    params: dict[str, Any],
) -> None:
    round_, question = crowd_round(study, kind)
    settings.AGREEMENT_ITEM_CHUNK_ANNOTATIONS = 10**9
    single = compute(study, question, round_, django_capture_on_commit_callbacks, **params)
    assert not single.item_chunks.exists()
    one_step = ComputationItemTable.objects.get(computation=single)
    one_step_json, one_step_items = zlib.decompress(one_step.table), one_step.n_items
    one_step_downloads = downloads(study, round_, question, viewer)
    assert [status for status, _ in one_step_downloads] == [200, 200, 200]
    single.delete()

    settings.AGREEMENT_ITEM_CHUNK_ANNOTATIONS = TINY
    split = compute(study, question, round_, django_capture_on_commit_callbacks, **params)
    chunks = list(ComputationItemChunk.objects.filter(computation=split).order_by("index"))
    assert len(chunks) >= 5
    stored = ComputationItemTable.objects.get(computation=split)
    assert stored.n_items == one_step_items == 30
    assert zlib.decompress(stored.table) == one_step_json
    assert split.results["seconds"]["item_table"] >= 0
    assert downloads(study, round_, question, viewer) == one_step_downloads


class Killed(BaseException):
    """A worker killed mid-merge: nothing after it runs in that process."""


def test_a_merge_run_again_writes_the_same_item_table_once(
    study: Any,
    settings: Any,
    django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    round_, question = crowd_round(study, LabelKind.NOMINAL)
    settings.AGREEMENT_ITEM_CHUNK_ANNOTATIONS = 10**9
    single = compute(study, question, round_, django_capture_on_commit_callbacks)
    one_step_json = zlib.decompress(single.item_table.table)
    single.delete()

    # The merge's worker dies after storing the table, before the computation is done.
    settings.AGREEMENT_ITEM_CHUNK_ANNOTATIONS = TINY

    def dies(*args: Any, **kwargs: Any) -> None:
        raise Killed

    monkeypatch.setattr(service, "_store_comparison", dies)
    with pytest.raises(Killed), django_capture_on_commit_callbacks(execute=True):
        computation_request(
            study=study, question=question, scope=ComputationScope.ROUND, rounds=[round_],
            parameters={"bootstrap": 0},
        )  # fmt: skip
    split = Computation.objects.get(question=question)
    assert (split.status, split.phase) == (ComputationStatus.RUNNING, "merging")
    assert zlib.decompress(ComputationItemTable.objects.get(computation=split).table) == (
        one_step_json
    )
    monkeypatch.undo()

    # The sweep runs it again: the ranges are kept and merged again.
    Computation.objects.filter(pk=split.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    with django_capture_on_commit_callbacks(execute=True):
        assert computations_sweep() == [split.pk]
    split.refresh_from_db()
    assert split.status == ComputationStatus.DONE, split.error
    assert ComputationItemTable.objects.count() == 1
    assert zlib.decompress(split.item_table.table) == one_step_json
    # A redelivered combine message finds the merge claimed and writes nothing.
    written: list[int] = []
    monkeypatch.setattr(
        item_table, "store_split_item_table", lambda computation, _: written.append(computation.pk)
    )
    service.computation_combine(computation_id=split.pk)
    assert written == []


def test_the_page_download_without_a_computation_is_404(
    study: Any, viewer: Any, client: Any
) -> None:
    round_, question = fleiss_round(study)
    url = reverse("pages:items-download", args=[study.pk, round_.pk, question.pk])
    client.force_login(viewer)
    assert client.get(url).status_code == 404


def test_the_ranges_rows_are_joined_under_the_scopes_coders() -> None:
    first = b'{"item":"i1","labels":[[1,7,null,null]]}'
    second = b'{"item":"i2","labels":[[0,8,null,null]]},{"item":"i3","labels":[[1,7,null,null]]}'
    table = assemble(["amy", "bob"], [zlib.compress(first), zlib.compress(second)])
    assert zlib.decompress(table) == (
        b'{"version":1,"coders":["amy","bob"],"items":[' + first + b"," + second + b"]}"
    )
    assert [entry["labels"] for entry in unpack(table).items] == [
        {"bob": (7, None, None)},
        {"amy": (8, None, None)},
        {"bob": (7, None, None)},
    ]


def test_a_range_with_a_coder_the_split_did_not_plan_fails_with_the_reason(
    study: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    round_, question = crowd_round(study, LabelKind.NOMINAL)
    settings.AGREEMENT_ITEM_CHUNK_ANNOTATIONS = TINY
    split = compute(study, question, round_, django_capture_on_commit_callbacks)
    chunk = ComputationItemChunk.objects.filter(computation=split).order_by("index").first()
    assert chunk is not None
    planned = [c for c in split.item_plan["coders"] if c != Coder.objects.get(key="zoe").pk]
    with pytest.raises(ChangedWhileSplitError, match="request the computation again"):
        chunk_item_rows(
            split,
            round_id=round_.pk,
            item_range=(chunk.first_item, chunk.last_item),
            coder_ids=planned,
        )
