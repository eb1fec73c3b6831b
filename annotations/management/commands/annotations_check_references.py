"""``manage.py annotations_check_references``: find annotations whose round, question, item,
coder or category no longer exists, and items whose study no longer exists
(``annotations.references``). Prints what it finds and exits with status 1 if anything is
broken, 0 otherwise; changes nothing."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotations.references import UNCHECKED, reference_problems


class Command(BaseCommand):
    help = (
        "Find annotations whose round, question, item, coder or category no longer exists, "
        "and items whose study no longer exists."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        problems = reference_problems()
        for problem in problems:
            self.stderr.write(problem.describe())
        if problems:
            raise CommandError(
                "Broken references found. They can only come from rows deleted outside the "
                "application; delete the rows listed (or restore what they point to).",
                returncode=1,
            )
        for model, fields in UNCHECKED:
            self.stdout.write(f"Every {model._meta.model_name}'s {', '.join(fields)} exists.")
