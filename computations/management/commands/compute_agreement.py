"""``manage.py compute_agreement``: request a computation (or sweep stuck ones).

Examples::

    manage.py compute_agreement --study 1 --question sentiment --round 3 --wait
    manage.py compute_agreement --study 1 --question sentiment --bootstrap 5000 --seed 7
    manage.py compute_agreement --sweep          # requeue computations whose worker died
"""

from __future__ import annotations

import json
import time
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from computations.models import (
    Computation,
    ComputationScope,
    ComputationStatus,
    ComputationTrigger,
)
from computations.services import LEVELS, computation_request, computations_sweep
from studies.models import Question, Round, Study


class Command(BaseCommand):
    help = "Request an agreement computation from the workers, or sweep stuck computations."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--study", type=int, help="Study id.")
        parser.add_argument("--question", help="Question key or id.")
        parser.add_argument(
            "--round", action="append", type=int, default=[], help="Round id (repeat to pool)."
        )
        parser.add_argument("--scope", choices=ComputationScope.values)
        parser.add_argument("--coefficients", help="Comma-separated, e.g. alpha,kappa.")
        parser.add_argument("--distance")
        parser.add_argument("--level", choices=LEVELS)
        parser.add_argument("--bootstrap", type=int)
        parser.add_argument("--seed", type=int)
        parser.add_argument("--confidence", type=float)
        parser.add_argument("--chunk-size", type=int)
        parser.add_argument("--wait", action="store_true", help="Poll until it finishes.")
        parser.add_argument("--timeout", type=float, default=600.0, help="With --wait, seconds.")
        parser.add_argument("--sweep", action="store_true", help="Requeue stuck computations.")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["sweep"]:
            requeued = computations_sweep()
            self.stdout.write(f"Requeued {len(requeued)} computation(s): {requeued}")
            return
        if options["study"] is None or options["question"] is None:
            raise CommandError("--study and --question are required (or --sweep).")
        study = Study.objects.filter(pk=options["study"]).first()
        if study is None:
            raise CommandError(f"No study {options['study']}.")
        question = self._question(study, options["question"])
        rounds = list(Round.objects.filter(study=study, pk__in=options["round"]))
        if len(rounds) != len(set(options["round"])):
            raise CommandError("Some rounds are not rounds of this study.")
        scope = options["scope"] or (
            ComputationScope.STUDY
            if not rounds
            else ComputationScope.ROUND
            if len(rounds) == 1
            else ComputationScope.ROUNDS
        )
        parameters: dict[str, Any] = {
            key: options[key]
            for key in ("distance", "level", "bootstrap", "seed", "confidence", "chunk_size")
            if options[key] is not None
        }
        if options["coefficients"]:
            parameters["coefficients"] = [c.strip() for c in options["coefficients"].split(",")]
        try:
            result = computation_request(
                study=study,
                question=question,
                scope=scope,
                rounds=rounds,
                parameters=parameters,
                trigger=ComputationTrigger.COMMAND,
            )
        except ValidationError as error:
            raise CommandError(f"Invalid request: {error.messages}") from None
        computation = result.computation
        verb = "Queued" if result.created else "Found existing"
        self.stdout.write(f"{verb} computation {computation.pk} ({computation.status}).")
        if options["wait"]:
            self._wait(computation.pk, options["timeout"])

    def _question(self, study: Study, key: str) -> Question:
        queryset = Question.objects.filter(study=study)
        question = queryset.filter(key=key).first()
        if question is None and key.isdigit():
            question = queryset.filter(pk=int(key)).first()
        if question is None:
            raise CommandError(f"No question {key!r} in study {study.pk}.")
        return question

    def _wait(self, computation_id: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            computation = Computation.objects.get(pk=computation_id)
            if computation.status == ComputationStatus.DONE:
                summary = {
                    name: {k: entry.get(k) for k in ("value", "ci")}
                    for name, entry in (computation.results or {}).get("coefficients", {}).items()
                }
                self.stdout.write(json.dumps(summary, indent=2))
                return
            if computation.status == ComputationStatus.FAILED:
                raise CommandError(f"Computation {computation_id} failed: {computation.error}")
            time.sleep(0.5)
        raise CommandError(f"Computation {computation_id} did not finish in {timeout:.0f} s.")
