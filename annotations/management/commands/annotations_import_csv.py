"""``manage.py annotations_import_csv STUDY ROUND QUESTION FILE``: ingest a large CSV.

Streams ``item,coder,label`` rows (millions; an optional ``confidence`` column for a model
coder's rows) into one round and question in batches,
printing progress, through ``annotations.ingest.annotations_ingest_csv``: all or nothing by
default, or ``--partial`` (the good rows written, the bad ones reported by line and field).

Examples::

    manage.py annotations_import_csv 1 R1 sentiment crowd.csv --create-missing
    manage.py annotations_import_csv 1 3 sentiment crowd.csv --partial --batch-size 200000
    manage.py annotations_import_csv 1 R1 sentiment - < crowd.csv
"""

from __future__ import annotations

import sys
import time
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotations.ingest import DEFAULT_BATCH, IngestReport, annotations_ingest_csv
from studies.access import Actor
from studies.exceptions import ApplicationError
from studies.models import Study
from studies.text_rules import text_lines


class Command(BaseCommand):
    help = "Import a large item,coder,label CSV into one round and question, in batches."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", type=int, help="Study id.")
        parser.add_argument("round", help="Round id or name.")
        parser.add_argument("question", help="Question key.")
        parser.add_argument(
            "file",
            help="CSV file (UTF-8, header item,coder,label[,confidence]); - for stdin.",
        )
        parser.add_argument(
            "--create-missing", action="store_true", help="Create unknown items and coders."
        )
        parser.add_argument(
            "--create-categories",
            action="store_true",
            help="Declare the codes the labels name that the question does not "
            "(nominal and set questions).",
        )
        parser.add_argument(
            "--partial",
            action="store_true",
            help="Write the good rows and report the bad ones (default: all or nothing).",
        )
        parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH)
        parser.add_argument("--user", help="Username recorded in the change log.")

    def handle(self, *args: Any, **options: Any) -> None:
        study = Study.objects.filter(pk=options["study"]).first()
        if study is None:
            raise CommandError(f"No study {options['study']}.")
        if options["batch_size"] < 1:
            raise CommandError("--batch-size must be at least 1.")
        user = None
        if options["user"]:
            user = get_user_model().objects.filter(username=options["user"]).first()
            if user is None:
                raise CommandError(f"No user {options['user']!r}.")
        started = time.perf_counter()

        def progress(rows: int) -> None:
            elapsed = time.perf_counter() - started
            self.stdout.write(f"{rows:,} rows read ({elapsed:.1f} s)")

        path = options["file"]
        try:
            stream = sys.stdin.buffer if path == "-" else open(path, "rb")
        except OSError as error:
            raise CommandError(f"Cannot read {path}: {error.strerror}.") from None
        try:
            report = annotations_ingest_csv(
                study=study,
                round_ref=options["round"],
                question_key=options["question"],
                lines=text_lines(stream),
                actor=Actor(user=user, token=None),
                create_missing=options["create_missing"],
                create_categories=options["create_categories"],
                partial=options["partial"],
                batch_size=options["batch_size"],
                progress=progress,
            )
        except ValidationError as error:
            raise CommandError(_errors_text(error)) from None
        except ApplicationError as error:
            raise CommandError(error.message) from None
        finally:
            if stream is not sys.stdin.buffer:
                stream.close()
        self.stdout.write(_summary(report, time.perf_counter() - started))


def _errors_text(error: ValidationError) -> str:
    lines = ["Nothing was imported:"]
    for attr, messages in error.message_dict.items():
        lines.extend(f"  {attr}: {message}" for message in messages)
    return "\n".join(lines)


def _summary(report: IngestReport, seconds: float) -> str:
    lines = [
        f"{report.rows:,} rows in {seconds:.1f} s: {report.created:,} created, "
        f"{report.updated:,} updated, {report.unchanged:,} unchanged; "
        f"{report.items_created:,} items and {report.coders_created:,} coders created."
    ]
    if report.categories_created:
        lines.append(f"Categories declared: {', '.join(report.categories_created)}.")
    if report.partial:
        lines.append(f"{report.rejected:,} rows left out.")
        lines.extend(
            f"  line {e.line}{'.' + e.field if e.field else ''}: {e.message}"
            for e in sorted(report.errors, key=lambda e: e.line)
        )
        if report.rejected > len(report.errors):
            lines.append(f"  ... and {report.rejected - len(report.errors):,} more.")
    return "\n".join(lines)
