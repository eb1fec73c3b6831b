"""Agreement on rankings as the JSON of ``python -m metrics report FILE --level ranking``.

- ``coefficients.kendall_w``: ``{value, chi2, df, p, items}``, the mean of the items' W with
  the summed chi-square test, and every item's W (with one item: the classic W);
- ``coefficients.alpha``: ``{value, observed, expected}``, alpha with the normalised Kendall
  tau distance (null for one item, or items with different options);
- ``coefficients.alpha_footrule``: the same with Spearman's footrule;
- ``coders``: each coder's distance to the consensus of the others
  (:mod:`~metrics.structured.rankings.consensus`);
- ``disputed``: the items with the lowest W.

With ``bootstrap`` replicates each coefficient gets a ``ci`` over items (the same resamples).
"""

from __future__ import annotations

from typing import Any

from metrics.decomposition import Decomposition
from metrics.structured._common import (
    Entry,
    add_intervals,
    check_report_options,
    json_name,
    json_number,
    run_measure,
)
from metrics.structured.rankings.alpha import alpha_with_decomposition
from metrics.structured.rankings.concordance import decompose_kendall_w, kendall_w
from metrics.structured.rankings.consensus import consensus_agreement
from metrics.structured.rankings.data import RankingData
from metrics.structured.rankings.distances import RankingDistance

#: Items listed under ``disputed``.
DISPUTED = 10

__all__ = ["ranking_report"]


def _kendall_w(data: RankingData) -> tuple[Entry, Decomposition]:
    result = kendall_w(data)
    items = []
    for item in result.items:
        entry: Entry = {
            "item": json_name(item.item),
            "value": item.value,
            "chi2": item.chi2,
            "df": item.df,
            "p": item.p,
            "coders": item.coders,
            "options": item.options,
        }
        if item.reason:
            entry["reason"] = item.reason
        items.append(entry)
    return (
        {
            "value": result.value,
            "chi2": result.chi2,
            "df": result.df,
            "p": result.p,
            "items_defined": result.n_defined,
            "items": items,
        },
        decompose_kendall_w(data),
    )


def _alpha(data: RankingData, distance: RankingDistance) -> tuple[Entry, Decomposition]:
    result, decomposition = alpha_with_decomposition(data, distance)
    entry: Entry = {
        "value": result.value,
        "observed": result.observed,
        "expected": result.expected,
        "distance": distance,
        "pairable_items": result.n_items,
        "distinct_rankings": result.n_distinct,
    }
    return entry, decomposition


def ranking_report(
    data: RankingData, *, bootstrap: int = 0, confidence: float = 0.95, seed: int = 0
) -> dict[str, Any]:
    """Kendall's W, alpha (Kendall tau and footrule) and each coder against the consensus.

    Returns
    -------
    dict
        ``level`` ("ranking"), ``n_items``, ``n_coders``, ``n_options``, ``n_rankings``,
        ``completed`` (partial rankings completed with ties last), ``coefficients``
        (``kendall_w``, ``alpha``, ``alpha_footrule``), ``coders`` and ``disputed``.

    Examples
    --------
    >>> data = RankingData.from_long([1] * 6, list("aaabbb"), list("xyzxyz"), [1, 2, 3, 1, 3, 2])
    >>> report = ranking_report(data)
    >>> report["coefficients"]["kendall_w"]["value"], report["coefficients"]["alpha"]["value"]
    (0.75, None)
    """
    check_report_options(bootstrap, confidence)
    coefficients: dict[str, Entry] = {}
    decompositions: dict[str, Decomposition | None] = {}
    run_measure(coefficients, decompositions, "kendall_w", lambda: _kendall_w(data))
    run_measure(coefficients, decompositions, "alpha", lambda: _alpha(data, "kendall_tau"))
    run_measure(coefficients, decompositions, "alpha_footrule", lambda: _alpha(data, "footrule"))
    if bootstrap:
        add_intervals(
            coefficients,
            decompositions,
            replicates=int(bootstrap),
            seed=seed,
            confidence=confidence,
            unit="item",
        )
    coders = {
        json_name(coder): {
            "distance": json_number(result.distance),
            "tau": json_number(result.tau),
            "items": result.items,
        }
        for coder, result in consensus_agreement(data).items()
    }
    items = coefficients["kendall_w"].get("items") or []
    defined = [entry for entry in items if entry["value"] is not None]
    disputed = sorted(defined, key=lambda entry: entry["value"])[:DISPUTED]
    return {
        "level": "ranking",
        "n_items": data.n_items,
        "n_coders": data.n_coders,
        "n_options": len(data.options),
        "n_rankings": data.n_rankings,
        "completed": data.completed,
        "coefficients": coefficients,
        "coders": coders,
        "disputed": [{"item": entry["item"], "kendall_w": entry["value"]} for entry in disputed],
    }
