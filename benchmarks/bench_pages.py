"""Page speed benchmark: a study of 50 rounds with stored results and one large round.

Usage (SQLite by default; PostgreSQL with ``DATABASE_URL``)::

    python benchmarks/bench_pages.py --annotations 1000000
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/agreement \\
        python benchmarks/bench_pages.py --annotations 6000000 --keep

Builds (or, with ``--keep`` from an earlier run, reuses) a study of ``--rounds`` rounds of
one nominal question, each with a few annotations and a finished computation whose stored
results come from a real computation (bootstrap interval, diagnostics, comparison with the
previous round), plus one round of ``--annotations`` annotations (NetEaseCrowd-shaped:
2,413 coders, six per item; written with COPY on PostgreSQL, batched INSERTs on SQLite) and
its finished computation. Then times, with Django's test client as a signed-in member,
``--requests`` GETs of the study page (its dashboard), the history page, the history (API),
the round report of the large round, the study list and the reliability reports (the
study's, the large round's),
printing p50 and p95 in milliseconds. Goal (issue 12): p95 at most 200 ms on SQLite and
PostgreSQL.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agreement_server.settings")
os.environ.setdefault("SECRET_KEY", "benchmark-only-secret-key-never-used-in-production-0123")
os.environ.setdefault("ALLOWED_HOSTS", "testserver")
os.environ.setdefault("LOG_LEVEL", "WARNING")
if "DATABASE_URL" not in os.environ:
    os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.gettempdir()}/agreement-bench-pages.sqlite3"

import django

django.setup()

import numpy as np  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test import Client  # noqa: E402
from django.utils import timezone  # noqa: E402

from agreement_server.heap import freeze_startup_objects  # noqa: E402
from computations import services  # noqa: E402
from computations.models import Computation, ComputationScope, ComputationStatus  # noqa: E402
from computations.scope import scope_data_revision  # noqa: E402
from studies.models import (  # noqa: E402
    Annotation,
    AnnotationChange,
    Category,
    Coder,
    Item,
    LabelKind,
    Membership,
    Question,
    Role,
    Round,
    Study,
)

CODES = ["a", "b", "c", "d", "e"]
N_CODERS = 2_413
PER_ITEM = 6
SMALL_ITEMS, SMALL_CODERS = 20, 3


def study_name(rounds: int, annotations: int) -> str:
    return f"pages benchmark {rounds} rounds {annotations} annotations"


def drop_study(study: Study) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {AnnotationChange._meta.db_table} WHERE study_id = %s", [study.pk]
        )
        cursor.execute(
            f"DELETE FROM {Annotation._meta.db_table} WHERE round_id IN"
            f" (SELECT id FROM {Round._meta.db_table} WHERE study_id = %s)",
            [study.pk],
        )
        cursor.execute(f"DELETE FROM {Item._meta.db_table} WHERE study_id = %s", [study.pk])
        cursor.execute(f"DELETE FROM {Coder._meta.db_table} WHERE study_id = %s", [study.pk])
    study.delete()


def _insert_rows(table: str, columns: list[str], rows: Any) -> None:
    """COPY on PostgreSQL, batched executemany elsewhere."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            return
        marks = ", ".join(["%s"] * len(columns))
        sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"
        batch: list[Any] = []
        for row in rows:
            batch.append(row)
            if len(batch) >= 50_000:
                cursor.executemany(sql, batch)
                batch = []
        if batch:
            cursor.executemany(sql, batch)


def _ids(model: Any, study: Study, field: str) -> dict[str, int]:
    return dict(model.objects.filter(study=study).values_list(field, "id"))


def _large_round(study: Study, round_: Round, question: Question, n: int) -> None:
    now = timezone.now()
    n_items = -(-n // PER_ITEM)
    _insert_rows(
        Item._meta.db_table,
        ["study_id", "external_id", "text", "metadata", "created_at"],
        ((study.pk, f"task-{i}", "", "{}", now) for i in range(n_items)),
    )
    _insert_rows(
        Coder._meta.db_table,
        ["study_id", "key", "name", "is_active", "created_at"],
        ((study.pk, f"worker-{c}", "", True, now) for c in range(N_CODERS)),
    )
    items = _ids(Item, study, "external_id")
    coders = _ids(Coder, study, "key")
    item_ids = np.array([items[f"task-{i}"] for i in range(n_items)], dtype=np.int64)
    coder_ids = np.array([coders[f"worker-{c}"] for c in range(N_CODERS)], dtype=np.int64)
    categories = list(
        Category.objects.filter(question=question).order_by("position").values_list("id", flat=True)
    )
    rng = np.random.default_rng(0)
    rows = np.arange(n)
    item_of = rows // PER_ITEM
    start = rng.integers(0, N_CODERS, size=n_items)
    coder_of = (start[item_of] + rows % PER_ITEM) % N_CODERS
    label_of = np.asarray(categories, dtype=np.int64)[rng.integers(0, len(categories), size=n)]

    def generate() -> Any:
        block = 200_000
        for lo in range(0, n, block):
            hi = min(lo + block, n)
            yield from zip(
                [round_.pk] * (hi - lo),
                [question.pk] * (hi - lo),
                item_ids[item_of[lo:hi]].tolist(),
                coder_ids[coder_of[lo:hi]].tolist(),
                label_of[lo:hi].tolist(),
                [now] * (hi - lo),
                strict=True,
            )

    _insert_rows(
        Annotation._meta.db_table,
        ["round_id", "question_id", "item_id", "coder_id", "category_id", "updated_at"],
        generate(),
    )


def build(rounds: int, annotations: int) -> Study:
    started = time.perf_counter()
    study = Study.objects.create(name=study_name(rounds, annotations))
    question = Question.objects.create(study=study, key="q", kind=LabelKind.NOMINAL)
    Category.objects.bulk_create(
        [Category(question=question, code=c, position=i) for i, c in enumerate(CODES)]
    )
    small_coders = Coder.objects.bulk_create(
        [Coder(study=study, key=f"coder-{c}") for c in range(SMALL_CODERS)]
    )
    small_items = Item.objects.bulk_create(
        [Item(study=study, external_id=f"item-{i}") for i in range(SMALL_ITEMS)]
    )
    categories = list(Category.objects.filter(question=question).order_by("position"))
    round_list = Round.objects.bulk_create(
        [Round(study=study, name=f"R{n:02d}", position=n) for n in range(1, rounds + 1)]
    )
    rng = np.random.default_rng(1)
    Annotation.objects.bulk_create(
        [
            Annotation(
                round=round_,
                question=question,
                item=item,
                coder=coder,
                category=categories[int(rng.integers(0, 2)) if rng.random() < 0.7 else 2],
            )
            for round_ in round_list
            for item in small_items
            for coder in small_coders
        ],
        batch_size=5_000,
    )
    # One real computation of round 2 (so its results carry a comparison with round 1);
    # the other rounds get a copy of its stored results.
    template = _compute(study, question, round_list[1])
    big = Round.objects.create(study=study, name="crowd", position=rounds + 1)
    with transaction.atomic():
        _large_round(study, big, question, annotations)
    for round_ in [*round_list, big]:
        if round_.pk == round_list[1].pk:
            continue
        computation = Computation.objects.create(
            study=study,
            question=question,
            scope=ComputationScope.ROUND,
            parameters=template.parameters,
            params_hash=f"bench-{round_.pk}",
            data_revision=scope_data_revision(question=question, round_ids=[round_.pk]),
            status=ComputationStatus.DONE,
            finished_at=timezone.now(),
            n_annotations=annotations if round_.pk == big.pk else template.n_annotations,
            results=template.results,
        )
        computation.rounds.set([round_])
    with connection.cursor() as cursor:  # what autovacuum does after a large insert
        cursor.execute("ANALYZE")
    print(f"built in {time.perf_counter() - started:.1f} s", flush=True)
    return study


def _compute(study: Study, question: Question, round_: Round) -> Computation:
    result = services.computation_request(
        study=study,
        question=question,
        scope=ComputationScope.ROUND,
        rounds=[round_],
        parameters={"bootstrap": 200},
    )
    computation_id = result.computation.pk
    if services.computation_claim(computation_id=computation_id):
        services.computation_run(computation_id=computation_id)
    computation = Computation.objects.get(pk=computation_id)
    assert computation.status == ComputationStatus.DONE, computation.error
    return computation


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def time_get(client: Client, url: str, n: int) -> tuple[float, float, float, int]:
    """(p50, p95 of the wall time, p95 of this process's CPU time) in ms, and the status.
    The CPU time leaves out waiting for a core on a busy machine (and the database
    server's own time on PostgreSQL)."""
    client.get(url)  # warm caches
    times, cpu = [], []
    status = 0
    for _ in range(n):
        start, start_cpu = time.perf_counter(), time.process_time()
        response = client.get(url)
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
        status = response.status_code
    return statistics.median(times), _p95(times), _p95(cpu), status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--annotations", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--keep", action="store_true", help="Keep (and reuse) the study.")
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    name = study_name(args.rounds, args.annotations)
    study = Study.objects.filter(name=name).first() if args.keep else None
    for leftover in Study.objects.filter(name__startswith="pages benchmark"):
        if study is None or leftover.pk != study.pk:
            drop_study(leftover)
    print(
        f"database: {connection.vendor} {connection.settings_dict['NAME']}; "
        f"{args.rounds} rounds + one round of {args.annotations:,} annotations",
        flush=True,
    )
    if study is None:
        study = build(args.rounds, args.annotations)
    else:
        print("reusing the study of an earlier run (--keep)")
    user, _ = get_user_model().objects.get_or_create(username="pages-benchmark")
    Membership.objects.get_or_create(study=study, user=user, defaults={"role": Role.VIEWER})
    client = Client()
    client.force_login(user)
    freeze_startup_objects()  # as the WSGI application does once it is loaded
    big = Round.objects.get(study=study, name="crowd")
    question = Question.objects.get(study=study, key="q")
    pages = [
        ("study page", f"/studies/{study.pk}/"),
        ("history page", f"/studies/{study.pk}/history/"),
        ("history (API)", f"/api/v1/studies/{study.pk}/history/"),
        ("round report", f"/studies/{study.pk}/rounds/{big.pk}/?question={question.pk}"),
        ("study list", "/"),
        ("reliability report (study)", f"/studies/{study.pk}/report/"),
        ("reliability report (round)", f"/studies/{study.pk}/rounds/{big.pk}/report/"),
    ]
    try:
        for label, url in pages:
            p50, p95, cpu95, status = time_get(client, url, args.requests)
            verdict = "ok" if p95 <= 200 else "SLOW"
            print(
                f"{label:14} p50 {p50:7.1f} ms  p95 {p95:7.1f} ms  (CPU p95 {cpu95:6.1f} ms; "
                f"HTTP {status}, {args.requests} requests; goal p95 <= 200 ms: {verdict})",
                flush=True,
            )
    finally:
        if not args.keep:
            drop_study(study)


if __name__ == "__main__":
    main()
