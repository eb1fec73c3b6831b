"""Computations split by item ranges (``AGREEMENT_ITEM_CHUNK_ANNOTATIONS``): the chunks' per-item
sums, added up, give the stored results of the one-process path; chunks are idempotent and a
chunk whose worker died is sent again by the sweep."""

from __future__ import annotations

import dataclasses
import inspect
import zlib
from datetime import timedelta
from typing import Any

import numpy as np
import pytest
from django.utils import timezone

from computations import dispatch, engine, item_sums, tasks
from computations import services as service
from computations.models import (
    Computation,
    ComputationItemChunk,
    ComputationItemTable,
    ComputationScope,
    ComputationStatus,
)
from computations.services import computation_request, computations_sweep
from metrics import (
    ReliabilityData,
    bootstrap,
    bootstrap_chunk,
    decompose_light_kappa,
    jackknife_values,
)
from metrics.coefficients.coder_chance import LightLeaveOneOut
from studies.models import Annotation, LabelKind, Round
from tests.computations.helpers import label_round, nominal_question, random_table
from tests.factories import RoundFactory

pytestmark = pytest.mark.django_db

NOMINAL = ["observed_agreement", "s", "pi", "kappa", "alpha", "light_kappa", "ac1",
           "brennan_prediger"]  # fmt: skip
ORDINAL = ["observed_agreement", "s", "pi", "kappa", "alpha", "light_kappa"]
#: Annotations per item chunk in these tests: a few items each.
TINY = 17


def sparse_table(
    n_coders: int, n_items: int, codes: list[str], *, seed: int, missing: float = 0.3
) -> list[list[Any]]:
    """``random_table`` with about ``missing`` of the labels left out."""
    rng = np.random.default_rng(seed + 1000)
    table: list[list[Any]] = random_table(n_coders, n_items, codes, agree=0.7, seed=seed)
    for row in table:
        for u in range(n_items):
            if rng.random() < missing:
                row[u] = None
    return table


def numbers_table(n_coders: int, n_items: int, *, seed: int) -> list[list[Any]]:
    rng = np.random.default_rng(seed)
    truth = rng.normal(50.0, 10.0, n_items)
    return [
        [None if rng.random() < 0.2 else round(float(t + rng.normal(0, 4)), 3) for t in truth]
        for _ in range(n_coders)
    ]


def compute(
    study: Any,
    question: Any,
    rounds: list[Round],
    params: dict[str, Any],
    capture: Any,
) -> Computation:
    scope = ComputationScope.ROUND if len(rounds) == 1 else ComputationScope.ROUNDS
    with capture(execute=True):
        computation = computation_request(
            study=study, question=question, scope=scope, rounds=rounds, parameters=params
        ).computation
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.DONE, computation.error
    return computation


def one_process_then_split(
    study: Any,
    question: Any,
    rounds: list[Round],
    params: dict[str, Any],
    settings: Any,
    capture: Any,
) -> tuple[dict[str, Any], Computation]:
    """The one-process results (kept), then the same request split by items; the two item
    tables (decompressed; None for pooled rounds) are the same."""
    settings.AGREEMENT_ITEM_CHUNK_ANNOTATIONS = 10**9
    single = compute(study, question, rounds, params, capture)
    assert "item_chunks" not in single.results
    results, table = single.results, item_table_json(single)
    single.delete()  # the same request again is a new computation
    settings.AGREEMENT_ITEM_CHUNK_ANNOTATIONS = TINY
    split = compute(study, question, rounds, params, capture)
    assert item_table_json(split) == table
    return results, split


def item_table_json(computation: Computation) -> bytes | None:
    stored = ComputationItemTable.objects.filter(computation=computation).first()
    return None if stored is None else zlib.decompress(stored.table)


def assert_same_results(single: dict[str, Any], split: dict[str, Any]) -> None:
    disputed = single["diagnostics"]["most_disputed_items"]
    merged = split["diagnostics"]["most_disputed_items"]
    assert [row["item"] for row in merged] == [row["item"] for row in disputed]
    assert [row["disagreement"] for row in merged] == pytest.approx(
        [row["disagreement"] for row in disputed], abs=1e-12, rel=0
    )
    for key in ("n_items", "n_coders", "n_annotations", "n_pairable_items", "level", "distance"):
        assert split[key] == single[key], key
    assert list(split["coefficients"]) == list(single["coefficients"])
    for name, entry in single["coefficients"].items():
        other = split["coefficients"][name]
        assert other["kind"] == entry["kind"]
        for field in ("value", "observed", "expected"):
            assert other[field] == pytest.approx(entry[field], abs=1e-12, rel=0), (name, field)
        if "ci" in entry:
            for bound in ("low", "high"):
                assert other["ci"][bound] == pytest.approx(entry["ci"][bound], abs=1e-12, rel=0)
            assert other["ci"]["replicates"] == entry["ci"]["replicates"]
            assert other["bootstrap_se"] == pytest.approx(entry["bootstrap_se"], abs=1e-12, rel=0)
            assert other["ci"]["benchmarks"] == entry["ci"]["benchmarks"]


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The item ranges every ``scope_annotations`` call of the services read (None: all)."""
    calls: list[Any] = []
    real = service.scope_annotations

    def recorded(**kwargs: Any) -> Any:
        calls.append(kwargs.get("items"))
        return real(**kwargs)

    monkeypatch.setattr(service, "scope_annotations", recorded)
    return calls


@pytest.mark.parametrize(
    ("case", "n_coders", "coefficients"),
    [
        ("nominal, many coders", 5, NOMINAL),
        ("nominal, two coders", 2, NOMINAL),
        ("ordinal", 4, ORDINAL),
        ("interval", 4, ["alpha"]),
    ],
)
def test_split_by_items_stores_the_one_process_results(
    study: Any,
    settings: Any,
    django_capture_on_commit_callbacks: Any,
    reads: list[Any],
    case: str,
    n_coders: int,
    coefficients: list[str],
) -> None:
    round_ = RoundFactory(study=study)
    if case == "interval":
        question = nominal_question(study, codes=(), kind=LabelKind.INTERVAL)
        label_round(round_, question, numbers_table(n_coders, 40, seed=3))
        level = "interval"
    else:
        kind = LabelKind.ORDINAL if case == "ordinal" else LabelKind.NOMINAL
        question = nominal_question(study, codes=("a", "b", "c", "d"), kind=kind)
        label_round(round_, question, sparse_table(n_coders, 40, ["a", "b", "c", "d"], seed=4))
        level = "ordinal" if case == "ordinal" else "nominal"
    params = {"coefficients": coefficients, "level": level, "distance": level,
              "bootstrap": 200, "seed": 11}  # fmt: skip
    single, split = one_process_then_split(
        study, question, [round_], params, settings, django_capture_on_commit_callbacks
    )
    assert_same_results(single, split.results)
    assert ComputationItemTable.objects.get(computation=split).n_items == single["n_items"]
    chunks = list(ComputationItemChunk.objects.filter(computation=split).order_by("index"))
    assert split.results["item_chunks"] == {
        "split": True, "chunks": len(chunks), "annotations_per_chunk": TINY,
    }  # fmt: skip
    assert len(chunks) >= 3
    assert sum(chunk.n_annotations for chunk in chunks) == Annotation.objects.count()
    # The split computation read item ranges only, each one chunk's, never the whole scope.
    split_reads = reads[len(reads) - len(chunks) :]
    assert split_reads == [(chunk.first_item, chunk.last_item) for chunk in chunks]
    assert all(chunk.n_annotations < TINY + n_coders for chunk in chunks)
    assert len(split.results["diagnostics"]["most_disputed_items"]) == 20
    assert split.results["diagnostics"]["skipped"]["per_category"].startswith(
        "Not computed for a computation split by items"
    )


def test_pooled_rounds_and_a_bootstrap_fanned_out_after_the_merge(
    study: Any, settings: Any, django_capture_on_commit_callbacks: Any, reads: list[Any]
) -> None:
    question = nominal_question(study, codes=("a", "b", "c"))
    first, second = RoundFactory(study=study), RoundFactory(study=study)
    coders, items = label_round(first, question, sparse_table(4, 25, ["a", "b", "c"], seed=8))
    label_round(
        second, question, sparse_table(4, 25, ["a", "b", "c"], seed=9), coders=coders, items=items
    )
    params = {"coefficients": ["alpha", "kappa", "pi", "light_kappa"], "bootstrap": 300,
              "chunk_size": 100, "seed": 2}  # fmt: skip
    single, split = one_process_then_split(
        study, question, [first, second], params, settings, django_capture_on_commit_callbacks
    )
    assert_same_results(single, split.results)
    assert split.chunks_total == 3  # the bootstrap, fanned out from the merged rows
    rounds = set(
        ComputationItemChunk.objects.filter(computation=split).values_list("round_id", flat=True)
    )
    assert rounds == {first.pk, second.pk}
    assert None not in reads[-6:]  # the bootstrap chunks read no annotations either
    # Pooled rounds have no item table, split or not (the downloads are per round).
    assert not ComputationItemChunk.objects.filter(item_rows__isnull=False).exists()
    assert not ComputationItemTable.objects.exists()


def test_a_small_scope_keeps_the_one_step_path(
    study: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study)
    round_ = RoundFactory(study=study)
    label_round(round_, question, random_table(3, 5, ["a", "b", "c"], agree=0.8, seed=1))
    settings.AGREEMENT_ITEM_CHUNK_ANNOTATIONS = 15  # exactly the 15 annotations
    computation = compute(
        study, question, [round_], {"bootstrap": 0}, django_capture_on_commit_callbacks
    )
    assert "item_chunks" not in computation.results
    assert computation.item_plan is None
    assert not ComputationItemChunk.objects.exists()


def test_coefficients_computed_in_one_step_only_keep_a_large_scope_on_one_step(
    study: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study, codes=("1", "2", "3"), kind=LabelKind.ORDINAL)
    round_ = RoundFactory(study=study)
    label_round(round_, question, random_table(2, 30, ["1", "2", "3"], agree=0.7, seed=2))
    settings.AGREEMENT_ITEM_CHUNK_ANNOTATIONS = TINY
    params = {"coefficients": ["alpha", "kappa_w"], "bootstrap": 0}
    computation = compute(study, question, [round_], params, django_capture_on_commit_callbacks)
    assert computation.results["item_chunks"] == {
        "split": False,
        "reason": "60 annotations, but kappa_w at the ordinal distance is computed in one "
        "step only.",
    }
    assert "kappa_w" in computation.results["coefficients"]
    assert not ComputationItemChunk.objects.exists()


def test_item_ranges_hold_about_the_limit_and_never_cut_an_item_or_cross_a_round() -> None:
    rounds = np.array([1, 1, 1, 1, 1, 2, 2])
    items = np.array([10, 11, 12, 13, 14, 10, 11])
    counts = np.array([3, 3, 3, 3, 1, 2, 2])
    assert item_sums.item_ranges(rounds, items, counts, 5) == [
        (1, 10, 11, 6),  # 0 and 3 annotations before: both in the first 5
        (1, 12, 13, 6),  # 6 and 9 before
        (1, 14, 14, 1),  # 12 before
        (2, 10, 11, 4),  # a new round starts a new chunk
    ]


def test_the_item_chunk_task_takes_one_integer_id_and_is_quiet_on_a_missing_row() -> None:
    parameters = list(inspect.signature(tasks.computation_item_chunk_task.run).parameters.values())
    assert [p.annotation for p in parameters] in ([int], ["int"])
    assert tasks.computation_item_chunk_task.name == "computations.item_chunk"
    tasks.computation_item_chunk_task(424242)


class Killed(BaseException):
    """A worker killed mid-chunk: nothing after it runs in that process (not an Exception,
    so no handler on the way marks the computation failed)."""


def test_a_chunk_run_twice_is_written_once_and_a_killed_chunk_is_sent_again_by_the_sweep(
    study: Any,
    settings: Any,
    django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    question = nominal_question(study)
    round_ = RoundFactory(study=study)
    label_round(round_, question, sparse_table(3, 30, ["a", "b", "c"], seed=5))
    params = {"coefficients": ["alpha", "kappa", "light_kappa"], "bootstrap": 100, "seed": 4}
    settings.AGREEMENT_ITEM_CHUNK_ANNOTATIONS = 10**9
    single = compute(study, question, [round_], params, django_capture_on_commit_callbacks)
    expected = single.results
    expected_table = zlib.decompress(single.item_table.table)
    single.delete()

    settings.AGREEMENT_ITEM_CHUNK_ANNOTATIONS = TINY
    sent: list[int] = []
    monkeypatch.setattr(
        dispatch, "computation_item_chunks_send", lambda _pk, ids: sent.extend(ids) or True
    )
    with django_capture_on_commit_callbacks(execute=True):
        computation = computation_request(
            study=study, question=question, scope=ComputationScope.ROUND, rounds=[round_],
            parameters=params,
        ).computation  # fmt: skip
    computation.refresh_from_db()
    assert computation.phase == "items"
    chunks = list(ComputationItemChunk.objects.filter(computation=computation).order_by("index"))
    assert sent == [chunk.pk for chunk in chunks]

    # Run twice (a redelivered message): written once, the same bytes.
    first, *others = chunks
    tasks.computation_item_chunk_task(first.pk)
    first.refresh_from_db()
    written, rows, finished = bytes(first.sums), bytes(first.item_rows), first.finished_at
    tasks.computation_item_chunk_task(first.pk)
    first.refresh_from_db()
    assert bytes(first.sums) == written
    assert bytes(first.item_rows) == rows
    assert first.finished_at == finished

    # The worker of the second chunk dies in the middle: nothing of it is written.
    killed, rest = others[0], others[1:]
    real = item_sums.chunk_sums

    def dies(**kwargs: Any) -> Any:
        raise Killed

    monkeypatch.setattr(item_sums, "chunk_sums", dies)
    with pytest.raises(Killed):
        tasks.computation_item_chunk_task(killed.pk)
    monkeypatch.setattr(item_sums, "chunk_sums", real)
    with django_capture_on_commit_callbacks(execute=True):
        for chunk in rest:
            tasks.computation_item_chunk_task(chunk.pk)
    computation.refresh_from_db()
    killed.refresh_from_db()
    assert not killed.done
    assert (computation.status, computation.phase) == (ComputationStatus.RUNNING, "items")

    # Its heartbeat stops; the sweep sends the pending chunk again (only it), which finishes
    # the computation.
    Computation.objects.filter(pk=computation.pk).update(
        heartbeat_at=timezone.now() - timedelta(hours=1)
    )
    sent.clear()
    monkeypatch.undo()
    settings.AGREEMENT_ITEM_CHUNK_ANNOTATIONS = TINY
    with django_capture_on_commit_callbacks(execute=True):
        assert computations_sweep() == [computation.pk]
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.DONE, computation.error
    assert computation.attempts == 1  # not started over
    assert_same_results(expected, computation.results)
    assert zlib.decompress(computation.item_table.table) == expected_table


def test_annotations_changed_while_split_fail_the_merge_with_the_reason(
    study: Any,
    settings: Any,
    django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    question = nominal_question(study)
    round_ = RoundFactory(study=study)
    label_round(round_, question, random_table(3, 20, ["a", "b", "c"], agree=0.7, seed=6))
    settings.AGREEMENT_ITEM_CHUNK_ANNOTATIONS = TINY
    real = service.computation_item_chunk_run
    changed: list[bool] = []

    def change_then_run(*, chunk_id: int) -> None:
        if not changed:
            changed.append(True)
            Annotation.objects.order_by("-id").first().delete()
        real(chunk_id=chunk_id)

    monkeypatch.setattr(service, "computation_item_chunk_run", change_then_run)
    with django_capture_on_commit_callbacks(execute=True):
        computation = computation_request(
            study=study, question=question, scope=ComputationScope.ROUND, rounds=[round_],
            parameters={"coefficients": ["alpha"], "bootstrap": 0},
        ).computation  # fmt: skip
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.FAILED
    assert computation.error == (
        "The annotations changed while the computation ran split by items; request the "
        "computation again."
    )


# -- real workers ------------------------------------------------------------------------------


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_two_workers_split_and_combine_to_the_one_process_result(
    celery_worker_process: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL (binary COPY of each item range), Redis and two worker processes: a
    scaled-down crowd study (2,000 annotations per chunk) computed split by items, with its
    bootstrap fanned out after the merge, stores what one process computes."""
    from tests.factories import StudyFactory
    from tests.test_worker_e2e import chaining_worker, finished, wait_until

    celery_worker_process.stop()
    celery_worker_process.env["AGREEMENT_ITEM_CHUNK_ANNOTATIONS"] = "2000"
    first, second = (chaining_worker(celery_worker_process, n) for n in ("first", "second"))
    first.start()
    second.start()
    try:
        study = StudyFactory()
        question = nominal_question(study, codes=("a", "b", "c", "d"))
        round_ = RoundFactory(study=study)
        label_round(round_, question, sparse_table(6, 2500, ["a", "b", "c", "d"], seed=12))
        params = {"coefficients": NOMINAL, "bootstrap": 1000, "chunk_size": 400, "seed": 3}
        split = computation_request(
            study=study, question=question, scope=ComputationScope.ROUND, rounds=[round_],
            parameters=params,
        ).computation  # fmt: skip
        wait_until(finished(split.pk), first, timeout=300)
        split.refresh_from_db()
        assert split.status == ComputationStatus.DONE, split.error
        chunks = ComputationItemChunk.objects.filter(computation=split)
        assert split.results["item_chunks"]["chunks"] == chunks.count() >= 5
        assert split.chunks_total == 3
        logs = (first.log(), second.log())
        assert all("computations.item_chunk" in log for log in logs), "one worker took no chunk"
    finally:
        first.stop()
        second.stop()

    # One process, here: the same request, read whole and bootstrapped inline.
    Computation.objects.filter(pk=split.pk).update(status=ComputationStatus.FAILED)
    monkeypatch.setattr(dispatch, "computation_run_send", lambda _pk: True)
    settings.AGREEMENT_ITEM_CHUNK_ANNOTATIONS = 10**9
    single = computation_request(
        study=study, question=question, scope=ComputationScope.ROUND, rounds=[round_],
        parameters={**params, "chunk_size": 1000},
    ).computation  # fmt: skip
    assert service.computation_claim(computation_id=single.pk)
    service.computation_run(computation_id=single.pk)
    single.refresh_from_db()
    assert single.status == ComputationStatus.DONE, single.error
    assert "item_chunks" not in single.results
    assert_same_results(single.results, split.results)
    # The item table, assembled from the two workers' ranges, is the one-process one.
    split_table = ComputationItemTable.objects.get(computation=split)
    single_table = ComputationItemTable.objects.get(computation=single)
    assert split_table.n_items == single_table.n_items == 2500
    assert zlib.decompress(split_table.table) == zlib.decompress(single_table.table)


def test_the_round_report_of_a_split_computation_says_what_it_left_out(
    study: Any,
    viewer: Any,
    client: Any,
    settings: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from django.urls import reverse

    question = nominal_question(study, codes=("a", "b", "c"), key="topic")
    round_ = RoundFactory(study=study, name="Pilot", position=1)
    label_round(round_, question, random_table(3, 20, ["a", "b", "c"], agree=0.7, seed=3))
    settings.AGREEMENT_ITEM_CHUNK_ANNOTATIONS = TINY
    compute(study, question, [round_], {"bootstrap": 50}, django_capture_on_commit_callbacks)
    client.force_login(viewer)
    response = client.get(
        reverse("pages:round-report", args=[study.pk, round_.pk]), {"question": question.pk}
    )
    assert response.status_code == 200
    assert (
        '<p class="quality-skipped">No coder quality: Not computed for a computation split by '
        "items (more annotations than AGREEMENT_ITEM_CHUNK_ANNOTATIONS): it needs every "
        "annotation on one worker.</p>"
    ) in response.content.decode()


@pytest.mark.parametrize(
    ("kind", "params", "reason"),
    [
        (LabelKind.HIERARCHY, {"coefficients": ["alpha"], "level": "hierarchy",
                               "distance": "tree"},
         "hierarchy questions are computed in one step only"),
        (LabelKind.RATIO, {"coefficients": ["alpha"], "level": "ratio", "distance": "ratio"},
         "ratio questions are computed in one step only"),
        (LabelKind.INTERVAL, {"coefficients": ["alpha", "s"], "level": "interval",
                              "distance": "interval"},
         "s at the interval distance is computed in one step only"),
        (LabelKind.NOMINAL, {"coefficients": ["alpha"], "level": "interval",
                             "distance": "interval"},
         "a nominal question at the interval distance is computed in one step only"),
        (LabelKind.ORDINAL, {"coefficients": ["kappa_w", "ac1", "alpha"], "level": "ordinal",
                             "distance": "ordinal"},
         "kappa_w, ac1 at the ordinal distance are computed in one step only"),
        (LabelKind.NOMINAL, {"coefficients": NOMINAL, "level": "nominal", "distance": "nominal"},
         None),
    ],
)  # fmt: skip
def test_what_is_split_and_what_stays_on_one_step(
    kind: str, params: dict[str, Any], reason: str | None
) -> None:
    assert item_sums.split_refusal(kind, params) == reason


def range_chunk(
    items: np.ndarray,
    coders: np.ndarray,
    labels: np.ndarray,
    first: int,
    last: int,
    all_coders: list[Any],
    options: dict[str, Any],
) -> tuple[bytes, dict[str, Any]]:
    """The stored rows of the items ``first`` to ``last``, as a worker writes them."""
    kept = (items >= first) & (items <= last)
    sums = item_sums.chunk_sums(
        items=items[kept], coders=coders[kept], labels=labels[kept],
        all_coders=all_coders, fingerprint="", **options,
    )  # fmt: skip
    return sums.blob, sums.summary


def test_the_merged_rows_jackknife_kappa_and_light_by_the_update_as_the_one_process_rows() -> None:
    # 60 items, 12 coders, 3 per item, in three item ranges: the merged rows' BCa jackknife
    # (the update of multi-kappa's and Light's kappa's totals) equals the one-process rows'
    # row-by-row jackknife, finalize(total - row).
    rng = np.random.default_rng(21)
    codes = ["a", "b", "c"]
    items = np.repeat(np.arange(1, 61), 3)
    coders = np.concatenate([rng.choice(np.arange(100, 112), 3, replace=False) for _ in range(60)])
    truth = rng.integers(0, 3, 60)
    labels = np.array(codes)[
        np.where(rng.random(180) < 0.7, np.repeat(truth, 3), rng.integers(0, 3, 180))
    ]
    params = {"coefficients": ["kappa", "light_kappa"], "level": "nominal", "distance": "nominal"}
    options = {"kind": LabelKind.NOMINAL, "domain": codes, "params": params}
    all_coders = sorted(set(coders.tolist()))
    chunks = [
        range_chunk(items, coders, labels, first, last, all_coders, options)
        for first, last in [(1, 20), (21, 45), (46, 60)]
    ]
    merged = item_sums.merged_decompositions(chunks, all_coders=all_coders, **options)
    data = ReliabilityData.from_long(items, coders, labels, domain=codes)
    one_process = engine.decompositions(data, params, parents={})
    for name in ("kappa", "light_kappa"):
        assert merged[name].leave_one_out is not None
        row_by_row = dataclasses.replace(one_process[name], leave_one_out=None)
        expected = jackknife_values(row_by_row)
        assert np.isfinite(expected).all()
        np.testing.assert_allclose(jackknife_values(merged[name]), expected, rtol=0, atol=1e-12)


def crowd_triples(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """400 items, 3 of 60 coders each (coders 200..259), 3 categories, 70 % on the truth."""
    rng = np.random.default_rng(seed)
    items = np.repeat(np.arange(1, 401), 3)
    coders = np.concatenate([rng.choice(np.arange(200, 260), 3, replace=False) for _ in range(400)])
    truth = rng.integers(0, 3, 400)
    labels = np.array(["a", "b", "c"])[
        np.where(rng.random(1200) < 0.7, np.repeat(truth, 3), rng.integers(0, 3, 1200))
    ]
    return items, coders, labels


LIGHT_ONLY = {"coefficients": ["light_kappa"], "level": "nominal", "distance": "nominal"}
CUTS = [(1, 100), (101, 180), (181, 330), (331, 400)]


def test_the_merged_light_rows_list_only_the_pairs_that_share_an_item() -> None:
    # A crowd: 60 coders, 3 per item, 400 items in 4 ranges. The merged Light's kappa has a
    # column pair for each pair of coders that share an item (counted here from the
    # triples), not for all 1,770 pairs; its value, jackknife, replicates and BCa interval
    # equal those of the rows listing every pair (the layout the merge had before) and those
    # of the one-process rows.
    items, coders, labels = crowd_triples(5)
    codes = ["a", "b", "c"]
    all_coders = sorted(set(coders.tolist()))
    options = {"kind": LabelKind.NOMINAL, "domain": codes, "params": LIGHT_ONLY}
    chunks = [
        range_chunk(items, coders, labels, first, last, all_coders, options) for first, last in CUTS
    ]
    merged = item_sums.merged_decompositions(chunks, all_coders=all_coders, **options)
    light = merged["light_kappa"]

    position = {coder: p for p, coder in enumerate(all_coders)}
    sharing = sorted(
        {
            (position[g], position[h])
            for u in range(1, 401)
            for g in coders[items == u].tolist()
            for h in coders[items == u].tolist()
            if g < h
        }
    )
    assert 0 < len(sharing) < 60 * 59 // 2
    assert light.item_stats.shape == (400, 2 * len(sharing) + 60 * 3)
    pairs = light.leave_one_out
    assert isinstance(pairs, LightLeaveOneOut)
    listed = list(zip(pairs.first.tolist(), pairs.second.tolist(), strict=True))
    assert listed == sharing

    data = ReliabilityData.from_long(items, coders, labels, domain=codes)
    every_pair = decompose_light_kappa(data, pairs=np.triu_indices(60, 1))
    one_process = engine.decompositions(data, LIGHT_ONLY, parents={})["light_kappa"]
    assert every_pair.item_stats.shape == (400, 2 * 1770 + 60 * 3)
    for expected in (every_pair, one_process):
        assert_same_light(light, expected)


def assert_same_light(light: Any, expected: Any) -> None:
    """Value, leave-one-item-out values (by the update and row by row), replicates and BCa
    interval of two Light's kappa decompositions of the same items, to 1e-12."""
    exact = {"rtol": 0, "atol": 1e-12}
    np.testing.assert_allclose(light.evaluate(), expected.evaluate(), **exact)
    np.testing.assert_allclose(jackknife_values(light), jackknife_values(expected), **exact)
    row_by_row = jackknife_values(dataclasses.replace(expected, leave_one_out=None))
    assert np.isfinite(row_by_row).all()
    np.testing.assert_allclose(jackknife_values(light), row_by_row, **exact)
    replicates = bootstrap_chunk(light, seed=11, start=0, stop=300)
    assert np.isfinite(replicates).all()
    np.testing.assert_allclose(
        replicates, bootstrap_chunk(expected, seed=11, start=0, stop=300), **exact
    )
    ours = bootstrap(light, replicates=300, seed=11, method="bca")
    theirs = bootstrap(expected, replicates=300, seed=11, method="bca")
    np.testing.assert_allclose([ours.low, ours.high], [theirs.low, theirs.high], **exact)


def test_light_rows_stored_with_every_pair_still_merge() -> None:
    # Chunks stored before the rows listed their pairs hold a column pair for every pair of
    # the scope's coders (rows of the phantom-item data, its row dropped); merged with
    # chunks of the new layout they give the one-process Light's kappa.
    items, coders, labels = crowd_triples(6)
    codes = ["a", "b", "c"]
    all_coders = sorted(set(coders.tolist()))
    options = {"kind": LabelKind.NOMINAL, "domain": codes, "params": LIGHT_ONLY}
    chunks = []
    for index, (first, last) in enumerate(CUTS):
        if index % 2:
            chunks.append(range_chunk(items, coders, labels, first, last, all_coders, options))
            continue
        kept = (items >= first) & (items <= last)
        with_phantom = ReliabilityData.from_long(
            np.r_[np.full(60, -1), items[kept]],
            np.r_[all_coders, coders[kept]],
            np.r_[np.full(60, "a"), labels[kept]],
            domain=codes,
        )
        rows = decompose_light_kappa(with_phantom, pairs=np.triu_indices(60, 1)).item_stats[1:]
        old = {"light_kappa.data": rows.data, "light_kappa.indices": rows.indices,
               "light_kappa.indptr": rows.indptr,
               "light_kappa.shape": np.asarray(rows.shape, dtype=np.int64)}  # fmt: skip
        chunks.append((item_sums.pack(old), {}))
    light = item_sums.merged_decompositions(chunks, all_coders=all_coders, **options)["light_kappa"]
    assert light.item_stats.shape == (400, 2 * 1770 + 60 * 3)
    data = ReliabilityData.from_long(items, coders, labels, domain=codes)
    assert_same_light(light, engine.decompositions(data, LIGHT_ONLY, parents={})["light_kappa"])
