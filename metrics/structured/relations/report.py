"""Agreement on relations as the JSON of ``python -m metrics report FILE --level relation``.

- ``coefficients.relation_f1``: ``{value, categories, pairs}``, relation F1 on exact
  ``(head, tail, label)`` tuples, micro over documents, averaged over coder pairs, per label;
- ``coefficients.relation_f1_overlap``: the same with units matched by overlap (IoU at least
  ``min_overlap``, a maximum one-to-one matching of relations);
- ``coefficients.alpha``: ``{value, observed, expected}``, nominal alpha on the candidate unit
  pairs (the label or "no relation"), units aligned as the span kind aligns them.

With ``bootstrap`` replicates each gets a ``ci`` over documents (the same resamples).
"""

from __future__ import annotations

from typing import Any

from metrics.decomposition import Decomposition
from metrics.structured._common import (
    Entry,
    add_intervals,
    check_report_options,
    json_name,
    run_measure,
)
from metrics.structured.relations._alignment import Match
from metrics.structured.relations.alpha import decompose_relation_alpha, relation_alpha
from metrics.structured.relations.data import RelationData
from metrics.structured.relations.f1 import decompose_relation_f1, relation_f1

__all__ = ["relation_report"]


def _f1(data: RelationData, match: Match, min_overlap: float) -> tuple[Entry, Decomposition]:
    result = relation_f1(data, match=match, min_overlap=min_overlap)
    entry: Entry = {
        "value": result.value,
        "categories": {json_name(label): value for label, value in result.categories.items()},
        "pairs": [
            {
                "coders": [json_name(pair.coders[0]), json_name(pair.coders[1])],
                "value": pair.value,
                "true_positives": pair.true_positives,
                "false_positives": pair.false_positives,
                "false_negatives": pair.false_negatives,
                "documents": pair.documents,
            }
            for pair in result.pairs
        ],
    }
    if match == "overlap":
        entry["min_overlap"] = float(min_overlap)
    return entry, decompose_relation_f1(data, match=match, min_overlap=min_overlap)


def _alpha(data: RelationData, match: Match, min_overlap: float) -> tuple[Entry, Decomposition]:
    result = relation_alpha(data, match=match, min_overlap=min_overlap)
    entry: Entry = {
        "value": result.value,
        "observed": result.observed,
        "expected": result.expected,
        "candidate_pairs": result.candidate_pairs,
        "match": match,
    }
    if match == "overlap":
        entry["min_overlap"] = float(min_overlap)
    return entry, decompose_relation_alpha(data, match=match, min_overlap=min_overlap)


def relation_report(
    data: RelationData,
    *,
    min_overlap: float = 0.5,
    alpha_match: Match = "overlap",
    bootstrap: int = 0,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, Any]:
    """Relation F1 (exact and by overlap) and alpha on relations, JSON-ready.

    Parameters
    ----------
    data : RelationData
    min_overlap : float, default 0.5
        IoU two units need to match (``relation_f1_overlap``, and alpha by overlap).
    alpha_match : {"overlap", "exact"}, default "overlap"
        How alpha aligns units across coders.
    bootstrap, confidence, seed
        Bootstrap replicates over documents (0 for none), their confidence level and seed.

    Returns
    -------
    dict
        ``level`` ("relation"), ``n_documents``, ``n_coders``, ``n_relations``, ``n_units``,
        ``labels``, ``undirected`` and ``coefficients``.

    Examples
    --------
    >>> data = RelationData.from_long(["d"] * 4, ["ann", "ann", "bob", "bob"],
    ...     [0, 0, 0, 0], [4, 4, 4, 3], [10, 20, 10, 20], [15, 25, 15, 25],
    ...     ["works_for", "knows", "works_for", "knows"])
    >>> report = relation_report(data)
    >>> report["coefficients"]["relation_f1"]["value"]
    0.5
    >>> report["coefficients"]["relation_f1_overlap"]["value"]
    1.0
    """
    check_report_options(bootstrap, confidence)
    if not 0 <= min_overlap <= 1:
        raise ValueError(f"min_overlap must be between 0 and 1; got {min_overlap}.")
    coefficients: dict[str, Entry] = {}
    decompositions: dict[str, Decomposition | None] = {}
    run_measure(coefficients, decompositions, "relation_f1", lambda: _f1(data, "exact", 0.0))
    run_measure(
        coefficients,
        decompositions,
        "relation_f1_overlap",
        lambda: _f1(data, "overlap", min_overlap),
    )
    run_measure(
        coefficients, decompositions, "alpha", lambda: _alpha(data, alpha_match, min_overlap)
    )
    if bootstrap:
        add_intervals(
            coefficients,
            decompositions,
            replicates=int(bootstrap),
            seed=seed,
            confidence=confidence,
            unit="document",
        )
    return {
        "level": "relation",
        "n_documents": data.n_documents,
        "n_coders": data.n_coders,
        "n_relations": data.n_relations,
        "n_units": data.n_units,
        "labels": [json_name(label) for label in data.labels],
        "undirected": [
            json_name(label)
            for label, flag in zip(data.labels, data.undirected, strict=True)
            if flag
        ],
        "coefficients": coefficients,
    }
