"""Computation benchmark: one round of 1,000,000 annotations, request to finished result, on
one real Celery worker with PostgreSQL (reading the annotations included).

Usage (PostgreSQL and, preferably, Redis; the database is migrated, a scratch study is
created and deleted afterwards)::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/agreement \\
    CELERY_BROKER_URL=redis://127.0.0.1:6379/0 python benchmarks/bench_computation.py

Prints the seconds from the request to ``done`` (target: under 60 s), the worker's own
split (read, report, diagnostics, bootstrap) and the coefficients with their intervals.
Options: ``--coders``, ``--items`` (annotations = coders × items), ``--bootstrap``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agreement_server.settings")
os.environ.setdefault("SECRET_KEY", "benchmark-only-secret-key-never-used-in-production-0123")
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

import numpy as np  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.utils import timezone  # noqa: E402

from agreement_server.celery import app  # noqa: E402
from computations.models import Computation, ComputationScope, ComputationStatus  # noqa: E402
from computations.services import computation_request  # noqa: E402
from studies.models import Category, Coder, LabelKind, Question, Round, Study  # noqa: E402

CODES = ["a", "b", "c", "d", "e"]


def require_postgres() -> None:
    if connection.vendor != "postgresql":
        sys.exit("Set DATABASE_URL=postgres://... : this benchmark measures PostgreSQL.")


def build_round(
    *, n_coders: int, n_items: int, agree: float, seed: int
) -> tuple[Study, Question, Round]:
    """A study with one nominal question and one round, filled with COPY (fast setup)."""
    study = Study.objects.create(name=f"benchmark {timezone.now().isoformat()}")
    question = Question.objects.create(study=study, key="label", kind=LabelKind.NOMINAL)
    categories = [
        Category.objects.create(question=question, code=code, position=i)
        for i, code in enumerate(CODES)
    ]
    round_ = Round.objects.create(study=study, name="Round 1", position=1)
    coders = [Coder.objects.create(study=study, key=f"coder-{c}") for c in range(n_coders)]
    now = timezone.now()
    with connection.cursor() as cursor:
        with cursor.cursor.copy(
            "COPY studies_item (study_id, external_id, text, metadata, created_at) FROM STDIN"
        ) as copy:
            for u in range(n_items):
                copy.write_row((study.pk, f"item-{u}", "", "{}", now))
        cursor.execute("SELECT id FROM studies_item WHERE study_id = %s ORDER BY id", [study.pk])
        item_ids = [row[0] for row in cursor.fetchall()]
        rng = np.random.default_rng(seed)
        truth = rng.integers(0, len(CODES), n_items)
        category_ids = np.array([c.pk for c in categories])
        with cursor.cursor.copy(
            "COPY studies_annotation (round_id, question_id, item_id, coder_id, category_id, "
            "updated_at) FROM STDIN"
        ) as copy:
            for coder in coders:
                keep = rng.random(n_items) < agree
                labels = np.where(keep, truth, rng.integers(0, len(CODES), n_items))
                for item_id, label in zip(item_ids, category_ids[labels].tolist(), strict=True):
                    copy.write_row((round_.pk, question.pk, item_id, coder.pk, label, now))
        cursor.execute("ANALYZE studies_annotation")
    return study, question, round_


def start_workers(count: int, log_dir: Path) -> list[subprocess.Popen[bytes]]:
    """Real ``celery worker`` processes (one pool process each) on the default queue."""
    env = dict(os.environ, PYTHONUNBUFFERED="1", CELERY_TASK_ALWAYS_EAGER="0")
    workers = []
    for index in range(count):
        log_path = log_dir / f"worker-{index}.log"
        log = log_path.open("wb")
        workers.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "agreement_server",
                    "worker",
                    "--concurrency=1",
                    "--loglevel=INFO",
                    f"--hostname=bench{index}@%h",
                    "--without-gossip",
                    "--without-mingle",
                    "--without-heartbeat",
                ],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        )
        deadline = time.monotonic() + 60
        while b" ready." not in log_path.read_bytes():
            if time.monotonic() > deadline or workers[-1].poll() is not None:
                sys.exit(f"worker {index} did not start:\n{log_path.read_text()[-2000:]}")
            time.sleep(0.2)
    return workers


def stop_workers(workers: list[subprocess.Popen[bytes]]) -> None:
    for worker in workers:
        worker.terminate()
    for worker in workers:
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()


def compute_and_wait(
    study: Study, question: Question, round_: Round, parameters: dict[str, Any]
) -> tuple[float, Computation]:
    started = time.perf_counter()
    computation = computation_request(
        study=study, question=question, scope=ComputationScope.ROUND, rounds=[round_],
        parameters=parameters,
    ).computation  # fmt: skip
    while True:
        computation.refresh_from_db()
        if computation.status in (ComputationStatus.DONE, ComputationStatus.FAILED):
            return time.perf_counter() - started, computation
        time.sleep(0.1)


def delete_study(study: Study) -> None:
    """Delete the scratch study; its million rows go with plain SQL (the ORM's cascade
    would load every annotation)."""
    with connection.cursor() as cursor:
        for table in (
            "computations_computationchunk",
            "computations_computationitemchunk",
            "computations_computationitemtable",
            "computations_computation_rounds",
        ):
            cursor.execute(
                f"DELETE FROM {table} WHERE computation_id "
                "IN (SELECT id FROM computations_computation WHERE study_id = %s)",
                [study.pk],
            )
        cursor.execute("DELETE FROM computations_computation WHERE study_id = %s", [study.pk])
        cursor.execute(
            "DELETE FROM studies_annotation WHERE round_id IN "
            "(SELECT id FROM studies_round WHERE study_id = %s)",
            [study.pk],
        )
        cursor.execute("DELETE FROM studies_annotationchange WHERE study_id = %s", [study.pk])
        cursor.execute("DELETE FROM studies_item WHERE study_id = %s", [study.pk])
    study.delete()


def purge_queue() -> None:
    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge(app.conf.task_default_queue)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--coders", type=int, default=5)
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--keep", action="store_true", help="Keep the scratch study.")
    parser.add_argument(
        "--reuse", action="store_true", help="Reuse the latest kept scratch study (and keep it)."
    )
    parser.add_argument("--coefficients", help="Comma-separated; default: the kind's defaults.")
    args = parser.parse_args()
    require_postgres()
    call_command("migrate", verbosity=0)
    n = args.coders * args.items
    print(f"broker: {settings.CELERY_BROKER_URL.split('@')[-1]}; database: PostgreSQL")
    t = time.perf_counter()
    kept = Study.objects.filter(name__startswith="benchmark ").order_by("-id").first()
    if args.reuse and kept is not None:
        study, question, round_ = kept, kept.questions.get(), kept.rounds.get()
        args.keep = True
    else:
        study, question, round_ = build_round(
            n_coders=args.coders, n_items=args.items, agree=0.8, seed=1
        )
    print(f"setup: {n:,} annotations ({args.coders} coders × {args.items:,} items) "
          f"written in {time.perf_counter() - t:.1f} s (not measured)")  # fmt: skip
    log_dir = Path(settings.VAR_DIR) / "bench"
    log_dir.mkdir(parents=True, exist_ok=True)
    purge_queue()
    workers = start_workers(1, log_dir)
    try:
        parameters: dict[str, Any] = {
            "bootstrap": args.bootstrap,
            "chunk_size": max(args.bootstrap, 1000),
            # A fresh seed: an identical earlier request would be answered without computing.
            "seed": int(time.time()),
        }
        if args.coefficients:
            parameters["coefficients"] = args.coefficients.split(",")
        seconds, computation = compute_and_wait(study, question, round_, parameters)
    finally:
        stop_workers(workers)
    if computation.status != ComputationStatus.DONE:
        sys.exit(f"computation failed: {computation.error}")
    results = computation.results
    print(f"request → done: {seconds:.1f} s for {computation.n_annotations:,} annotations "
          f"(target < 60 s) — {'PASS' if seconds < 60 else 'FAIL'}")  # fmt: skip
    print("worker split (s):", results.get("seconds"))
    for name, entry in results["coefficients"].items():
        ci = entry.get("ci") or {}
        print(f"  {name:20s} {entry['value']:.4f}  [{ci.get('low', float('nan')):.4f}, "
              f"{ci.get('high', float('nan')):.4f}]  se={entry.get('se')}")  # fmt: skip
    if not args.keep:
        t = time.perf_counter()
        delete_study(study)
        print(f"cleanup: {time.perf_counter() - t:.1f} s")


if __name__ == "__main__":
    main()
