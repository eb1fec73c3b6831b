"""Builders shared by the computation and history tests: rounds full of annotations, and a
deterministic stand-in for the metrics engine so the plumbing is tested on its own.

The stand-in (``EngineDouble``) is for tests of queueing, claiming, chunking and combining
only; tests of numbers use the real ``metrics`` library.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from computations import engine
from studies.models import Annotation, Category, Coder, Item, LabelKind, Question, Round, Study
from tests.factories import CategoryFactory, CoderFactory, ItemFactory, QuestionFactory


def nominal_question(
    study: Study, codes: Sequence[str] = ("a", "b", "c"), **kwargs: Any
) -> Question:
    question = QuestionFactory(study=study, kind=kwargs.pop("kind", LabelKind.NOMINAL), **kwargs)
    for position, code in enumerate(codes):
        CategoryFactory(question=question, code=code, position=position)
    return question


def label_round(
    round_: Round,
    question: Question,
    table: Sequence[Sequence[str | float | None]],
    *,
    coders: Sequence[Coder] | None = None,
    items: Sequence[Item] | None = None,
) -> tuple[list[Coder], list[Item]]:
    """``table[c][u]`` is coder c's label of item u (None: not labelled), bulk-created."""
    study = round_.study
    n_coders, n_items = len(table), len(table[0])
    coders = list(coders) if coders is not None else [
        CoderFactory(study=study) for _ in range(n_coders)
    ]  # fmt: skip
    items = list(items) if items is not None else [ItemFactory(study=study) for _ in range(n_items)]
    categories = {c.code: c for c in Category.objects.filter(question=question)}
    rows = []
    for c, labels in enumerate(table):
        for u, label in enumerate(labels):
            if label is None:
                continue
            if question.kind in (LabelKind.INTERVAL, LabelKind.RATIO):
                values: dict[str, Any] = {"number": float(label)}
            elif question.kind == LabelKind.SET:
                ids = sorted(categories[code].pk for code in str(label).split("|"))
                values = {"category_set": ids}
            else:
                values = {"category": categories[str(label)]}
            rows.append(
                Annotation(
                    round=round_, question=question, item=items[u], coder=coders[c], **values
                )
            )
    Annotation.objects.bulk_create(rows)
    return coders, items


def random_table(
    n_coders: int, n_items: int, codes: Sequence[str], *, agree: float, seed: int
) -> list[list[str]]:
    """Coders who give the item's 'true' code with probability ``agree``, else a random one."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, len(codes), n_items)
    table = []
    for _ in range(n_coders):
        keep = rng.random(n_items) < agree
        noise = rng.integers(0, len(codes), n_items)
        table.append([codes[t if k else n] for t, k, n in zip(truth, keep, noise, strict=True)])
    return table


class EngineDouble:
    """Replaces the engine's numeric calls with simple deterministic arithmetic.

    ``alpha`` here is just the share of agreeing pairs on each item, and replicates are
    that share on items drawn with ``np.random.default_rng([seed, r])``; enough to check
    that the plumbing carries numbers from chunks to the combined result unchanged.
    """

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: dict[str, int] = {}
        for name in (
            "point_report",
            "diagnostics",
            "decompositions",
            "bootstrap_chunks",
            "bootstrap_combine",
            "jackknife_slices",
            "add_analytic_se",
            "metrics_version",
        ):
            monkeypatch.setattr(engine, name, self._counted(name, getattr(self, name)))

    def _counted(self, name: str, function: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] = self.calls.get(name, 0) + 1
            return function(*args, **kwargs)

        return wrapper

    @staticmethod
    def _per_item(data: Any) -> np.ndarray:
        codes = data.codes
        shares = []
        for u in range(codes.shape[1]):
            column = codes[:, u][codes[:, u] >= 0]
            pairs = len(column) * (len(column) - 1)
            same = sum(
                int((column == v).sum()) * (int((column == v).sum()) - 1)
                for v in set(column.tolist())
            )
            shares.append(same / pairs if pairs else np.nan)
        return np.array(shares)

    def point_report(self, data: Any, params: Any, *, parents: Any, bootstrap: int) -> dict:
        value = float(np.nanmean(self._per_item(data)))
        entry: dict[str, Any] = {
            "value": value,
            "observed": value,
            "expected": 0.0,
            "kind": "agreement",
        }
        if bootstrap:
            values = self.bootstrap_chunk(data, seed=params["seed"], start=0, stop=bootstrap)
            entry["ci"] = self._ci(values, bootstrap)
        return {
            "n_items": data.n_items,
            "n_coders": data.n_coders,
            "n_annotations": data.n_annotations,
            "coefficients": {"alpha": entry},
            "skipped": {},
        }

    def diagnostics(
        self, data: Any, *, coder_names: Any, item_names: Any, categorical: bool = True
    ) -> dict:
        return {"per_coder": {name: 0.5 for name in coder_names.values()}, "skipped": {}}

    def decompositions(self, data: Any, params: Any, *, parents: Any) -> dict:
        return {"alpha": data}

    def bootstrap_chunks(self, decompositions: Any, *, seed: int, start: int, stop: int) -> dict:
        return {
            name: self.bootstrap_chunk(data, seed=seed, start=start, stop=stop)
            for name, data in decompositions.items()
        }

    def bootstrap_chunk(self, data: Any, *, seed: int, start: int, stop: int) -> list:
        shares = self._per_item(data)
        out = []
        for r in range(start, stop):
            drawn = np.random.default_rng([seed, r]).integers(0, len(shares), len(shares))
            out.append(float(np.nanmean(shares[drawn])))
        return out

    def bootstrap_combine(
        self, data: Any, chunks: Any, *, seed: int, replicates: int, confidence: float
    ) -> dict:
        values = [v for chunk in chunks for v in chunk]
        return {"ci": self._ci(values, replicates), "se": float(np.std(values, ddof=1))}

    def jackknife_slices(self, decompositions: Any, *, index: int, total: int) -> dict:
        return {}  # the double's intervals are percentiles: no jackknife

    @staticmethod
    def _ci(values: Sequence[float], replicates: int) -> dict:
        low, high = np.quantile(values, [0.025, 0.975])
        return {"low": float(low), "high": float(high), "confidence": 0.95, "method": "percentile",
                "replicates": replicates}  # fmt: skip

    def add_analytic_se(self, data: Any, params: Any, report: Any, *, parents: Any) -> None:
        return None

    def metrics_version(self) -> str:
        return "double"


def stored_round_computation(
    study: Any, question: Any, round_: Any, *, results: dict[str, Any] | None = None
) -> Any:
    """A finished one-round computation with the given ``results``, and the item table its
    worker stores (``computations.item_table.store_item_table``, the worker's own step)."""
    from django.utils import timezone

    from computations.item_table import store_item_table
    from computations.models import Computation, ComputationScope, ComputationStatus

    computation = Computation.objects.create(
        study=study,
        question=question,
        scope=ComputationScope.ROUND,
        parameters={},
        params_hash=f"stored-{question.pk}-{round_.pk}",
        data_revision="r",
        status=ComputationStatus.DONE,
        finished_at=timezone.now(),
        n_annotations=1,
        metrics_version="test",
        results=results or {"coefficients": {}},
    )
    computation.rounds.set([round_])
    store_item_table(computation)
    return computation
