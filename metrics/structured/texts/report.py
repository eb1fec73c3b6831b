"""Agreement on free text as the JSON of ``python -m metrics report FILE --level text``.

``coefficients.alpha`` is ``{"value", "observed", "expected"}`` (alpha, D_o and D_e) with the
counts behind it (pairable items, distinct texts, the distance evaluations D_o and D_e
needed); ``null`` with a ``reason`` where alpha is undefined or would need more than
``max_pairs`` evaluations. ``expected_method`` says how D_e was found: ``{"method":
"exact"}``, or, with ``expected="sampled"`` (or ``"auto"`` above ``max_pairs``), ``{"method":
"sampled", "pairs", "seed", "evaluated_pairs", "standard_error", "alpha_standard_error",
"alpha_interval", "confidence"}``: D_e, and so alpha, are then estimates; the standard error
is D_e's over the drawn pairs, carried to alpha by the delta method
(``se(alpha) = D_o / D_e² · se(D_e)``), and the interval is alpha ± z·se(alpha) at
``confidence``. It measures the sampling of pairs only, not the sampling of items (that is
the bootstrap's ``ci``). With ``bootstrap`` replicates alpha gets a ``ci`` over items.
``disputed`` lists the items that add most to D_o.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import sparse, stats

from metrics.decomposition import Decomposition
from metrics.structured._common import (
    Entry,
    add_intervals,
    check_report_options,
    json_name,
    run_measure,
)
from metrics.structured._pairwise import DEFAULT_EXPECTED_PAIRS
from metrics.structured.texts.alpha import (
    ExpectedOptions,
    TextAlpha,
    TextDistanceLike,
    alpha_with_decomposition,
)
from metrics.structured.texts.data import TextData

#: Distance evaluations the report allows for D_e unless told otherwise (``V(V-1)/2``; about
#: 6,300 distinct texts). Levenshtein on 200-character texts runs about 60,000 pairs a second.
DEFAULT_MAX_PAIRS = 20_000_000
#: Items listed under ``disputed``.
DISPUTED = 10

__all__ = ["DEFAULT_MAX_PAIRS", "text_report"]


def disputed_items(
    decomposition: Decomposition | None, names: tuple[Any, ...], n_values: int
) -> list[dict[str, Any]]:
    """The items adding most to D_o (column 0 of the decomposition), largest first."""
    if decomposition is None:
        return []
    stats = decomposition.item_stats
    column = sparse.csr_matrix(stats)[:, [0]].toarray() if sparse.issparse(stats) else stats[:, 0]
    part = np.asarray(column, dtype=np.float64).ravel() / max(n_values, 1)
    order = np.argsort(-part, kind="stable")[:DISPUTED]
    return [
        {"item": json_name(names[i]), "observed_disagreement": float(part[i])}
        for i in order.tolist()
        if part[i] > 0
    ]


def expected_method(result: TextAlpha, confidence: float) -> dict[str, Any]:
    """How D_e was found; for a sampled D_e its precision and alpha's interval from it."""
    sample = result.sample
    if sample is None:
        return {"method": "exact"}
    alpha_error = result.observed / result.expected**2 * sample.standard_error
    z = float(stats.norm.ppf(0.5 + confidence / 2.0))
    return {
        "method": "sampled",
        "pairs": sample.pairs,
        "seed": sample.seed,
        "evaluated_pairs": sample.evaluated,
        "standard_error": sample.standard_error,
        "alpha_standard_error": alpha_error,
        "alpha_interval": [result.value - z * alpha_error, result.value + z * alpha_error],
        "confidence": confidence,
    }


def text_report(
    data: TextData,
    *,
    distance: TextDistanceLike = "levenshtein",
    bootstrap: int = 0,
    confidence: float = 0.95,
    seed: int = 0,
    max_pairs: int | None = DEFAULT_MAX_PAIRS,
    expected: str = "exact",
    expected_pairs: int = DEFAULT_EXPECTED_PAIRS,
) -> dict[str, Any]:
    """Alpha on texts, JSON-ready.

    Parameters
    ----------
    data : TextData
    distance : str, MatrixDistance, mapping or callable, default "levenshtein"
        See :func:`~metrics.structured.texts.text_alpha`.
    bootstrap : int, default 0
        Bootstrap replicates over items (0 for none).
    confidence : float, default 0.95
    seed : int, default 0
        Seeds the bootstrap and the sampled D_e.
    max_pairs : int or None, default DEFAULT_MAX_PAIRS
        Leave alpha null (with the reason) when exact D_e needs more distance evaluations;
        with ``expected="auto"``, sample D_e above it instead.
    expected : {"exact", "sampled", "auto"}, default "exact"
        Exact D_e, D_e estimated from ``expected_pairs`` random pairs, or exact up to
        ``max_pairs`` and sampled above.
    expected_pairs : int, default 200,000
        Pairs drawn for a sampled D_e.

    Returns
    -------
    dict
        ``level`` ("text"), ``distance``, ``n_items``, ``n_coders``, ``n_annotations``,
        ``n_texts`` (distinct), ``coefficients`` (``alpha``) and ``disputed``.

    Examples
    --------
    >>> data = TextData.from_long([1, 1, 2, 2], ["a", "b", "a", "b"], ["ab", "ab", "ab", "abcd"])
    >>> text_report(data)["coefficients"]["alpha"]["value"]
    0.0
    """
    check_report_options(bootstrap, confidence)
    coefficients: dict[str, Entry] = {}
    decompositions: dict[str, Decomposition | None] = {}
    name = distance if isinstance(distance, str) else None
    found: dict[str, Any] = {}

    def alpha() -> tuple[Entry, Decomposition]:
        options = ExpectedOptions(expected, expected_pairs, seed)
        result, engine = alpha_with_decomposition(data, distance, max_pairs, options)
        found["name"], found["n_values"] = result.distance, result.n_values
        entry: Entry = {
            "value": result.value,
            "observed": result.observed,
            "expected": result.expected,
            "pairable_items": result.n_items,
            "distinct_texts": result.n_distinct,
            "observed_pairs": result.observed_pairs,
            "expected_pairs": result.expected_pairs,
            "expected_method": expected_method(result, confidence),
        }
        if result.sample is not None:
            entry["ci_note"] = (
                "D_e is sampled: the interval resamples D_o and holds D_e at its estimate."
            )
        elif engine.expected_held:
            entry["ci_note"] = (
                "more distinct texts than the distance matrix limit: the interval resamples "
                "D_o and holds D_e at the full data's value."
            )
        return entry, engine.decomposition

    run_measure(coefficients, decompositions, "alpha", alpha)
    if bootstrap:
        add_intervals(
            coefficients,
            decompositions,
            replicates=int(bootstrap),
            seed=seed,
            confidence=confidence,
            unit="item",
        )
    return {
        "level": "text",
        "distance": found.get("name", name),
        "n_items": data.n_items,
        "n_coders": data.n_coders,
        "n_annotations": data.n_annotations,
        "n_texts": data.n_texts,
        "coefficients": coefficients,
        "disputed": disputed_items(
            decompositions.get("alpha"), data.items, int(found.get("n_values", 0))
        ),
    }
