"""``manage.py demo_load``: load the demo study unless it is already there."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from demo.loader import demo_study_ensure


class Command(BaseCommand):
    help = "Load the demo study (two rounds, three coders, 40 items) unless it exists."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--manager", help="Username to make a manager of the demo study.", default=None
        )

    def handle(self, *args: Any, **options: Any) -> None:
        manager = None
        if options["manager"]:
            manager = get_user_model().objects.filter(username=options["manager"]).first()
            if manager is None:
                raise CommandError(f"No user named {options['manager']!r}.")
        result = demo_study_ensure(manager=manager)
        state = "loaded" if result.created else "already present"
        self.stdout.write(f"Demo study {result.study.name!r} (id {result.study.pk}): {state}.")
