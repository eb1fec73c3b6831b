"""Bulk upload benchmark: 100,000 annotations in one request, through the real API view.

Usage (PostgreSQL, the target; the database is migrated, a scratch study is created and
deleted afterwards)::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/agreement python benchmarks/bench_bulk_upload.py

Prints, for a JSON and a CSV upload, seconds and rows per second end to end (request
built by Django's test client, parsed, validated, written, answered): first upload
(every row created, items and coders too), the same upload again (every row unchanged),
and an upload changing every label (every row updated and logged). Also prints the CPU
seconds spent by this process (client and server Python) and by the PostgreSQL backend
(read from /proc when the server is local): on a machine busy with other work, their sum
is what the upload costs, while the wall time also counts waiting for a CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agreement_server.settings")
os.environ.setdefault("SECRET_KEY", "benchmark-only-secret-key-never-used-in-production-0123")
os.environ.setdefault("ALLOWED_HOSTS", "testserver")
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402

from studies.models import (  # noqa: E402
    Annotation,
    AnnotationChange,
    ApiToken,
    Category,
    LabelKind,
    Question,
    Role,
    Round,
    Study,
)

CODES = ["a", "b", "c", "d", "e"]


def build_rows(n_rows: int, n_coders: int, shift: int) -> list[dict[str, str]]:
    return [
        {
            "item": f"item-{n // n_coders}",
            "coder": f"coder-{n % n_coders}",
            "label": CODES[(n + shift) % len(CODES)],
        }
        for n in range(n_rows)
    ]


def as_csv(rows: list[dict[str, str]]) -> bytes:
    lines = ["item,coder,label"] + [f"{r['item']},{r['coder']},{r['label']}" for r in rows]
    return ("\n".join(lines) + "\n").encode()


def backend_cpu_seconds() -> float | None:
    """CPU time used so far by this connection's PostgreSQL backend (local server only)."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed_post(
    client: Client, url: str, *, body: bytes, content_type: str
) -> tuple[float, float, float | None, Any]:
    """(wall seconds, CPU seconds of this process, CPU seconds of the database backend,
    response body)."""
    db_before = backend_cpu_seconds()
    cpu_before = time.process_time()
    start = time.perf_counter()
    response = client.post(url, data=body, content_type=content_type)
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_before
    db_after = backend_cpu_seconds()
    db_cpu = db_after - db_before if db_before is not None and db_after is not None else None
    if response.status_code != 200:
        raise SystemExit(f"upload failed: {response.status_code} {response.content[:2000]!r}")
    return elapsed, cpu, db_cpu, response.json()


def drop_study(study: Study) -> None:
    """Delete the scratch study; its annotations first, in SQL (the ORM's cascade collects
    every row in Python, which takes minutes for 100,000 annotations)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {AnnotationChange._meta.db_table} WHERE study_id = %s", [study.pk]
        )
        cursor.execute(
            f"DELETE FROM {Annotation._meta.db_table} WHERE round_id IN"
            f" (SELECT id FROM {Round._meta.db_table} WHERE study_id = %s)",
            [study.pk],
        )
    study.delete()


def run(fmt: str, n_rows: int, n_coders: int) -> None:
    study = Study.objects.create(name=f"bulk benchmark ({fmt})")
    try:
        round_ = Round.objects.create(study=study, name="R1", position=1)
        question = Question.objects.create(study=study, key="q", kind=LabelKind.NOMINAL)
        Category.objects.bulk_create(
            [Category(question=question, code=c, position=i) for i, c in enumerate(CODES)]
        )
        secret = ApiToken.generate_secret()
        ApiToken.objects.create(
            name="bench",
            prefix=secret[:8],
            key_hash=ApiToken.hash_secret(secret),
            study=study,
            role=Role.ANNOTATOR,
        )
        client = Client(HTTP_AUTHORIZATION=f"Token {secret}")
        base = f"/api/v1/studies/{study.pk}/annotations/bulk/"
        for step, shift in (("create", 0), ("unchanged", 0), ("update", 1)):
            rows = build_rows(n_rows, n_coders, shift)
            if fmt == "json":
                payload = {
                    "round": round_.pk,
                    "question": "q",
                    "create_missing": True,
                    "annotations": rows,
                }
                body, url, content_type = json.dumps(payload).encode(), base, "application/json"
            else:
                body = as_csv(rows)
                url = f"{base}?round={round_.pk}&question=q&create_missing=true"
                content_type = "text/csv"
            elapsed, cpu, db_cpu, result = timed_post(
                client, url, body=body, content_type=content_type
            )
            db_text = "   n/a" if db_cpu is None else f"{db_cpu:6.2f}"
            print(
                f"{fmt:4} {step:9} {n_rows:>7} rows {elapsed:6.2f} s "
                f"{n_rows / elapsed:>9,.0f} rows/s | CPU: Python {cpu:5.2f} s, "
                f"database {db_text} s | {result}",
                flush=True,
            )
        assert Annotation.objects.filter(round=round_).count() == n_rows
        assert AnnotationChange.objects.filter(study=study).count() == 2 * n_rows
    finally:
        drop_study(study)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--coders", type=int, default=5)
    parser.add_argument("--format", choices=["json", "csv", "both"], default="both")
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    for leftover in Study.objects.filter(name__startswith="bulk benchmark"):
        drop_study(leftover)
    print(f"database: {connection.vendor} {connection.settings_dict['NAME']}")
    for fmt in ("json", "csv") if args.format == "both" else (args.format,):
        run(fmt, args.rows, args.coders)


if __name__ == "__main__":
    main()
