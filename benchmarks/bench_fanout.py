"""Bootstrap fan-out benchmark: wall time of one large bootstrap on one worker, then on two.

The run step computes the point estimates and splits the bootstrap into chunks; every
chunk is a task any worker takes; the last one triggers the combine step. Each worker is
a real ``celery worker`` process with one pool process.

Usage (PostgreSQL and Redis; a scratch study is created and deleted afterwards)::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/agreement \\
    CELERY_BROKER_URL=redis://127.0.0.1:6379/0 python benchmarks/bench_fanout.py

Prints both wall times (request → done) and their ratio (two workers / one worker).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bench_computation import (  # the Django setup happens on this import
    build_round,
    compute_and_wait,
    delete_study,
    purge_queue,
    require_postgres,
    start_workers,
    stop_workers,
)
from django.conf import settings
from django.core.management import call_command

from computations.models import ComputationStatus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--coders", type=int, default=3)
    parser.add_argument("--items", type=int, default=50_000)
    parser.add_argument("--bootstrap", type=int, default=8000)
    parser.add_argument("--chunk-size", type=int, default=500)
    parser.add_argument("--coefficients", default="alpha,kappa,pi,ac1")
    args = parser.parse_args()
    require_postgres()
    call_command("migrate", verbosity=0)
    study, question, round_ = build_round(
        n_coders=args.coders, n_items=args.items, agree=0.8, seed=2
    )
    log_dir = Path(settings.VAR_DIR) / "bench"
    log_dir.mkdir(parents=True, exist_ok=True)
    print(
        f"{args.coders * args.items:,} annotations; bootstrap {args.bootstrap:,} replicates of "
        f"{args.coefficients} in chunks of {args.chunk_size}"
    )
    walls: dict[int, float] = {}
    try:
        for n_workers in (1, 2):
            purge_queue()
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
                        "seed": n_workers,  # a new computation each time
                    },
                )
            finally:
                stop_workers(workers)
            if computation.status != ComputationStatus.DONE:
                raise SystemExit(f"computation failed: {computation.error}")
            walls[n_workers] = seconds
            print(
                f"{n_workers} worker(s): {seconds:.1f} s "
                f"({computation.chunks_total} chunks; run step {computation.results['seconds']})"
            )
    finally:
        delete_study(study)
    print(f"ratio two workers / one worker: {walls[2] / walls[1]:.2f} (ideal 0.50)")


if __name__ == "__main__":
    main()
