"""Item-chunk benchmark: a crowd-sized computation split by item ranges, on one worker and on two.

A crowd study (many coders, a few per item) with ``--annotations`` annotations is computed
request → stored result (bootstrap included) with ``AGREEMENT_ITEM_CHUNK_ANNOTATIONS`` set
to ``--chunk-annotations`` on the workers: each item chunk is a task any worker takes (it
reads its range with a binary COPY and stores its per-item sums), the combine step adds
them up and fans the bootstrap out (``--chunk-size`` replicates per task). Each worker is a
real ``celery worker`` process with one pool process. With ``--one-step`` the one-step path
(the whole scope read by one worker) is timed too, on one worker.

Usage (PostgreSQL and Redis; a scratch study is created and deleted afterwards)::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/agreement \\
    CELERY_BROKER_URL=redis://127.0.0.1:6379/0 \\
    python benchmarks/bench_item_chunks.py --annotations 1000000 --one-step

    # the NetEaseCrowd-sized study of issue 12 (6M annotations, 2,413 coders, 1M items);
    # figures in docs/operations.md#scaling
    python benchmarks/bench_item_chunks.py --annotations 6000000 --coders 2413 --per-item 6 \
        --chunk-annotations 500000 --coefficients observed_agreement,pi,alpha --repeat 1

Prints per run the wall time, the seconds each worker spent in tasks ("busy"; the work
splits evenly when the machine has a free core per worker) and the 1-minute load average
before the run (other jobs on the machine take cores from the workers), then the medians
and the ratio two workers / one worker.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import time
from pathlib import Path

import numpy as np
from bench_computation import (  # the Django setup happens on this import
    delete_study,
    purge_queue,
    require_postgres,
    start_workers,
    stop_workers,
)
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from computations.models import (
    Computation,
    ComputationItemChunk,
    ComputationScope,
    ComputationStatus,
)
from computations.services import computation_request
from studies.models import Category, Coder, LabelKind, Question, Round, Study

CODES = ["a", "b", "c", "d", "e"]


def build_crowd_round(
    *, n_annotations: int, n_coders: int, per_item: int, seed: int
) -> tuple[Study, Question, Round]:
    """One nominal question, one round: ``per_item`` distinct coders per item out of
    ``n_coders``, each giving the item's true label with probability 0.7; filled with COPY."""
    n_items = n_annotations // per_item
    study = Study.objects.create(name=f"benchmark {timezone.now().isoformat()}")
    question = Question.objects.create(study=study, key="label", kind=LabelKind.NOMINAL)
    categories = Category.objects.bulk_create(
        Category(question=question, code=code, position=i) for i, code in enumerate(CODES)
    )
    round_ = Round.objects.create(study=study, name="Round 1", position=1)
    coders = Coder.objects.bulk_create(
        Coder(study=study, key=f"worker-{c}") for c in range(n_coders)
    )
    now = timezone.now().isoformat()
    rng = np.random.default_rng(seed)
    with connection.cursor() as cursor:
        with cursor.cursor.copy(
            "COPY studies_item (study_id, external_id, text, metadata, created_at) FROM STDIN"
        ) as copy:
            copy.write("".join(f"{study.pk}\titem-{u}\t\t{{}}\t{now}\n" for u in range(n_items)))
        cursor.execute("SELECT id FROM studies_item WHERE study_id = %s ORDER BY id", [study.pk])
        item_ids = np.array([row[0] for row in cursor.fetchall()], dtype=np.int64)
        coder_ids = np.array([c.pk for c in coders], dtype=np.int64)
        category_ids = np.array([c.pk for c in categories], dtype=np.int64)
        # Distinct coders per item: a random start and a random stride below C / per_item.
        start = rng.integers(0, n_coders, n_items)
        stride = rng.integers(1, max(2, n_coders // per_item), n_items)
        slots = (start[:, None] + stride[:, None] * np.arange(per_item)) % n_coders
        truth = rng.integers(0, len(CODES), n_items)
        keep = rng.random((n_items, per_item)) < 0.7
        labels = np.where(keep, truth[:, None], rng.integers(0, len(CODES), (n_items, per_item)))
        table = np.column_stack(
            [
                np.repeat(item_ids, per_item),
                coder_ids[slots.ravel()],
                category_ids[labels.ravel()],
            ]
        )
        with cursor.cursor.copy(
            "COPY studies_annotation (round_id, question_id, item_id, coder_id, category_id, "
            "updated_at) FROM STDIN"
        ) as copy:
            prefix = f"{round_.pk}\t{question.pk}\t"
            for block in range(0, len(table), 500_000):
                buffer = io.StringIO()
                np.savetxt(
                    buffer, table[block : block + 500_000], fmt=prefix + "%d\t%d\t%d\t" + now
                )
                copy.write(buffer.getvalue())
        cursor.execute("ANALYZE studies_annotation")
    return study, question, round_


def compute_and_wait(
    study: Study, question: Question, round_: Round, parameters: dict[str, object], timeout: float
) -> tuple[float, Computation]:
    started = time.perf_counter()
    computation = computation_request(
        study=study, question=question, scope=ComputationScope.ROUND, rounds=[round_],
        parameters=parameters,
    ).computation  # fmt: skip
    while time.perf_counter() - started < timeout:
        computation.refresh_from_db()
        if computation.status in (ComputationStatus.DONE, ComputationStatus.FAILED):
            return time.perf_counter() - started, computation
        time.sleep(0.1)
    raise SystemExit(f"not done after {timeout:.0f} s (a worker killed for memory?)")


def busy_seconds(log_dir: Path, n_workers: int) -> list[float]:
    """Seconds each worker spent in tasks (from its log's "succeeded in" lines)."""
    found = []
    for index in range(n_workers):
        text = (log_dir / f"worker-{index}.log").read_text(errors="replace")
        found.append(sum(float(s) for s in re.findall(r"succeeded in ([0-9.]+)s", text)))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--annotations", type=int, default=1_000_000)
    parser.add_argument("--coders", type=int, default=100)
    parser.add_argument("--per-item", type=int, default=5)
    parser.add_argument("--chunk-annotations", type=int, default=250_000)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--chunk-size", type=int, default=250)
    parser.add_argument("--coefficients", default="observed_agreement,pi,kappa,alpha")
    parser.add_argument("--one-step", action="store_true", help="Time the one-step path too.")
    parser.add_argument("--timeout", type=float, default=1800.0, help="Seconds per run.")
    parser.add_argument(
        "--repeat", type=int, default=3, help="Runs of each split case (medians printed)."
    )
    args = parser.parse_args()
    require_postgres()
    call_command("migrate", verbosity=0)
    clock = time.perf_counter()
    study, question, round_ = build_crowd_round(
        n_annotations=args.annotations, n_coders=args.coders, per_item=args.per_item, seed=4
    )
    n = args.annotations // args.per_item * args.per_item
    print(
        f"{n:,} annotations ({args.coders:,} coders, {args.per_item} per item, "
        f"{n // args.per_item:,} items) built in {time.perf_counter() - clock:.1f} s; "
        f"{args.coefficients}; bootstrap {args.bootstrap:,} in chunks of {args.chunk_size}"
    )
    log_dir = Path(settings.VAR_DIR) / "bench"
    log_dir.mkdir(parents=True, exist_ok=True)
    runs = [("split", 1), ("split", 2)] * args.repeat
    if args.one_step:
        runs.insert(0, ("one step", 1))
    walls: dict[tuple[str, int], list[float]] = {}
    try:
        for seed, (path, n_workers) in enumerate(runs):
            limit = args.chunk_annotations if path == "split" else 10**12
            os.environ["AGREEMENT_ITEM_CHUNK_ANNOTATIONS"] = str(limit)
            purge_queue()
            load = os.getloadavg()[0]
            workers = start_workers(n_workers, log_dir)
            try:
                seconds, computation = compute_and_wait(
                    study,
                    question,
                    round_,
                    {
                        "coefficients": args.coefficients.split(","),
                        "bootstrap": args.bootstrap,
                        "chunk_size": args.chunk_size,
                        "seed": seed,  # a new computation each time
                    },
                    args.timeout,
                )
            finally:
                stop_workers(workers)
            if computation.status != ComputationStatus.DONE:
                raise SystemExit(f"computation failed: {computation.error}")
            walls.setdefault((path, n_workers), []).append(seconds)
            busy = busy_seconds(log_dir, n_workers)
            chunks = ComputationItemChunk.objects.filter(computation=computation).count()
            alpha = computation.results["coefficients"].get("alpha", {})
            print(
                f"{path:>8}, {n_workers} worker(s): {seconds:6.1f} s  "
                f"(busy {' + '.join(f'{b:.1f}' for b in busy)} s; load {load:.1f}) "
                f"({chunks} item chunks, {computation.chunks_total} bootstrap chunks; "
                f"alpha {alpha.get('value', float('nan')):.6f} "
                f"[{alpha.get('ci', {}).get('low')}, {alpha.get('ci', {}).get('high')}]; "
                f"worker seconds {computation.results['seconds']})"
            )
    finally:
        delete_study(study)
    medians = {key: float(np.median(values)) for key, values in walls.items()}
    for (path, n_workers), median in medians.items():
        print(f"median {path}, {n_workers} worker(s): {median:.1f} s")
    ratio = medians[("split", 2)] / medians[("split", 1)]
    print(f"ratio two workers / one worker (split, medians): {ratio:.2f} (ideal 0.50)")


if __name__ == "__main__":
    main()
