"""Crowd-scale ingest benchmark: an ``item,coder,label`` CSV of N rows into one round.

Usage (PostgreSQL, the target; the database is migrated, a scratch study is created and
deleted afterwards)::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/agreement \\
        python benchmarks/bench_ingest.py --rows 6000000

Writes a NetEaseCrowd-shaped CSV (``--coders`` workers, about ``--per-item`` labels per
item, five categories) to a temporary file, then times ``manage.py annotations_import_csv``'s
service (``annotations.ingest.annotations_ingest_csv``: streamed in batches, one
transaction, items and coders created) from the file to the committed rows, printing the
progress lines, the statements over half a second and the commit, the total seconds and
rows per second, and the PostgreSQL settings that weigh on a bulk write (checkpoints start
when ``max_wal_size`` of WAL was written). Goal (issue 25): 6M rows in at most 40 s on
PostgreSQL.

Beside it, the COPY floor (PostgreSQL only): the same rows, read back from the round in
COPY's binary format into a file, COPYed from that file into a scratch table with only the
annotations' unique index, in one committed transaction: what PostgreSQL itself needs to
take those rows in. The load average is printed with each figure (the machine is shared).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agreement_server.settings")
os.environ.setdefault("SECRET_KEY", "benchmark-only-secret-key-never-used-in-production-0123")
os.environ.setdefault("ALLOWED_HOSTS", "testserver")
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django

django.setup()

import numpy as np  # noqa: E402
from bench_computation import delete_study  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction  # noqa: E402

from annotations.ingest import annotations_ingest_csv  # noqa: E402
from studies.access import Actor  # noqa: E402
from studies.models import (  # noqa: E402
    Annotation,
    Category,
    LabelKind,
    Question,
    Round,
    Study,
)
from studies.text_rules import text_lines  # noqa: E402

CODES = ["a", "b", "c", "d", "e"]
NAME = "ingest benchmark"


def write_csv(path: Path, n_rows: int, n_coders: int, per_item: int, seed: int = 0) -> None:
    """Rows item i = row // per_item, each labelled by ``per_item`` distinct coders."""
    rng = np.random.default_rng(seed)
    rows = np.arange(n_rows)
    items = rows // per_item
    start = rng.integers(0, n_coders, size=items[-1] + 1)
    coders = (start[items] + rows % per_item) % n_coders
    labels = rng.integers(0, len(CODES), size=n_rows)
    codes = np.array(CODES)
    with path.open("w", encoding="utf-8") as out:
        out.write("item,coder,label\n")
        block = 500_000
        for lo in range(0, n_rows, block):
            hi = min(lo + block, n_rows)
            out.write(
                "".join(
                    f"task-{i},worker-{c},{label}\n"
                    for i, c, label in zip(
                        items[lo:hi].tolist(),
                        coders[lo:hi].tolist(),
                        codes[labels[lo:hi]].tolist(),
                        strict=True,
                    )
                )
            )


@contextlib.contextmanager
def timed_statements(threshold: float = 0.5):
    """Print each SQL statement slower than ``threshold`` seconds, and the commit."""

    def timer(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            elapsed = time.perf_counter() - start
            if elapsed >= threshold:
                print(f"    {elapsed:6.1f} s  {' '.join(sql.split())[:90]}", flush=True)

    wrapper_class = type(connections[DEFAULT_DB_ALIAS])
    commit = wrapper_class._commit

    def timed_commit(self):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        try:
            return commit(self)
        finally:
            print(f"    {time.perf_counter() - start:6.1f} s  COMMIT", flush=True)

    wrapper_class._commit = timed_commit  # the commit runs the deferred checks
    try:
        with connection.execute_wrapper(timer):
            yield
    finally:
        wrapper_class._commit = commit


def server_settings() -> str:
    if connection.vendor != "postgresql":
        return ""
    names = ("max_wal_size", "shared_buffers", "synchronous_commit")
    with connection.cursor() as cursor:
        values = []
        for name in names:
            cursor.execute(f"SHOW {name}")
            values.append(f"{name}={cursor.fetchone()[0]}")
    return "; ".join(values)


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (5 min {five:.2f})"


def copy_floor(round_id: int) -> float:
    """Seconds PostgreSQL takes to COPY the round's annotations (binary, from a file) into a
    table with only the unique index, committed."""
    columns = "round_id, question_id, item_id, coder_id, category_id, number, category_set"
    columns += ", updated_at"
    with tempfile.TemporaryFile() as data:
        with connection.cursor() as cursor:
            with cursor.cursor.copy(
                f"COPY (SELECT {columns} FROM studies_annotation WHERE round_id = %s)"
                " TO STDOUT (FORMAT BINARY)",
                [round_id],
            ) as copy:
                for block in copy:
                    data.write(block)
            cursor.execute("DROP TABLE IF EXISTS bench_copy_floor")
            cursor.execute(
                "CREATE TABLE bench_copy_floor (id bigint GENERATED BY DEFAULT AS IDENTITY,"
                " round_id bigint NOT NULL, question_id bigint NOT NULL, item_id bigint NOT NULL,"
                " coder_id bigint NOT NULL, category_id bigint, number double precision,"
                " category_set jsonb, updated_at timestamptz NOT NULL,"
                " UNIQUE (round_id, question_id, item_id, coder_id))"
            )
        data.seek(0)
        try:
            start = time.perf_counter()
            with transaction.atomic(), connection.cursor() as cursor:
                with cursor.cursor.copy(
                    f"COPY bench_copy_floor ({columns}) FROM STDIN (FORMAT BINARY)"
                ) as copy:
                    while block := data.read(1 << 20):
                        copy.write(block)
            return time.perf_counter() - start
        finally:
            with connection.cursor() as cursor:
                cursor.execute("DROP TABLE bench_copy_floor")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--coders", type=int, default=2_413)
    parser.add_argument("--per-item", type=int, default=6)
    parser.add_argument("--batch-size", type=int, default=100_000)
    parser.add_argument("--keep", action="store_true", help="Keep the scratch study.")
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    for leftover in Study.objects.filter(name=NAME):
        delete_study(leftover)
    print(
        f"database: {connection.vendor} {connection.settings_dict['NAME']} {server_settings()}",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "crowd.csv"
        start = time.perf_counter()
        write_csv(path, args.rows, args.coders, args.per_item)
        size = path.stat().st_size / 1e6
        print(
            f"CSV: {args.rows:,} rows, {size:.0f} MB, "
            f"written in {time.perf_counter() - start:.1f} s"
        )
        study = Study.objects.create(name=NAME)
        round_ = Round.objects.create(study=study, name="R1", position=1)
        question = Question.objects.create(study=study, key="q", kind=LabelKind.NOMINAL)
        Category.objects.bulk_create(
            [Category(question=question, code=c, position=i) for i, c in enumerate(CODES)]
        )
        try:
            print(f"start: {load()}", flush=True)
            start = time.perf_counter()

            def progress(rows: int) -> None:
                print(f"  {rows:>10,} rows read {time.perf_counter() - start:6.1f} s", flush=True)

            with path.open("rb") as stream, timed_statements():
                report = annotations_ingest_csv(
                    study=study,
                    round_ref=round_.pk,
                    question_key="q",
                    lines=text_lines(stream, chunk_size=1 << 20),
                    actor=Actor(user=None, token=None),
                    create_missing=True,
                    batch_size=args.batch_size,
                    progress=progress,
                )
            elapsed = time.perf_counter() - start
            stored = Annotation.objects.filter(round=round_).count()
            assert stored == args.rows == report.created, (stored, report.created)
            print(
                f"ingest {args.rows:,} rows into {connection.vendor}: {elapsed:.1f} s "
                f"({args.rows / elapsed:,.0f} rows/s); {report.items_created:,} items, "
                f"{report.coders_created:,} coders created (goal for 6M: <= 40 s); {load()}",
                flush=True,
            )
            if connection.vendor == "postgresql":
                floor = copy_floor(round_.pk)
                print(
                    f"COPY floor: {floor:.1f} s for the same {stored:,} rows (binary, into a "
                    f"table with only the unique index); ingest / floor = {elapsed / floor:.2f}; "
                    f"{load()}"
                )
        finally:
            if not args.keep:
                delete_study(study)


if __name__ == "__main__":
    main()
