"""Agreement on pairwise preferences as the JSON of ``python -m metrics report FILE --level
preference``.

- ``coefficients.alpha``: nominal alpha on the choice (``{value, observed, expected}``);
- ``coefficients.alpha_ordinal``: alpha with the tie in the middle of ``A < tie < B``;
- ``position_bias``: ``{<coder>: {share_first, n, p}}`` over each coder's non-tie choices whose
  ``shown_first`` is given, ``p`` from ``scipy.stats.binomtest(k, n, 0.5)``;
  ``position_bias_overall`` the same over all coders;
- ``consistency`` (when the items name their options): ``{<coder>: {options, pairs, triads,
  circular, zeta}}``, Kendall & Babington Smith's circular triads and coefficient of
  consistence;
- ``choices``: how often each choice was made.

With ``bootstrap`` replicates each alpha gets a ``ci`` over items (the same resamples).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from metrics.decomposition import Decomposition
from metrics.structured._common import (
    Entry,
    add_intervals,
    check_report_options,
    json_name,
    run_measure,
)
from metrics.structured.preferences.alpha import (
    Scale,
    decompose_preference_alpha,
    preference_alpha,
)
from metrics.structured.preferences.bias import BiasResult, position_bias
from metrics.structured.preferences.data import CHOICES, PreferenceData
from metrics.structured.preferences.triads import circular_triads

__all__ = ["preference_report"]


def _alpha(data: PreferenceData, scale: Scale, rows: bool) -> tuple[Entry, Decomposition | None]:
    result = preference_alpha(data, scale=scale)
    entry: Entry = {
        "value": result.value,
        "observed": result.observed,
        "expected": result.expected,
        "scale": "nominal" if scale == "nominal" else "ordinal: A < tie < B",
        "pairable_items": result.n_pairable_items,
    }
    return entry, decompose_preference_alpha(data, scale=scale) if rows else None


def _bias(result: BiasResult) -> dict[str, Any]:
    return {"share_first": result.share_first, "n": result.n, "p": result.p}


def preference_report(
    data: PreferenceData, *, bootstrap: int = 0, confidence: float = 0.95, seed: int = 0
) -> dict[str, Any]:
    """Alpha (nominal and ordinal), position bias, and circular triads when options are named.

    Returns
    -------
    dict
        ``level`` ("preference"), ``n_items``, ``n_coders``, ``n_annotations``, ``choices``,
        ``coefficients`` (``alpha``, ``alpha_ordinal``), ``position_bias``,
        ``position_bias_overall`` and, with options, ``consistency``.

    Examples
    --------
    >>> data = PreferenceData.from_long([1, 1, 2, 2], list("abab"), ["A", "A", "B", "tie"],
    ...                                 shown_first=["A", "B", "A", "A"])
    >>> report = preference_report(data)
    >>> report["position_bias"]["a"]
    {'share_first': 0.5, 'n': 2, 'p': 1.0}
    """
    check_report_options(bootstrap, confidence)
    coefficients: dict[str, Entry] = {}
    decompositions: dict[str, Decomposition | None] = {}
    rows = bool(bootstrap)  # the per-item rows are for the bootstrap only
    run_measure(coefficients, decompositions, "alpha", lambda: _alpha(data, "nominal", rows))
    run_measure(
        coefficients, decompositions, "alpha_ordinal", lambda: _alpha(data, "ordinal", rows)
    )
    if bootstrap:
        add_intervals(
            coefficients,
            decompositions,
            replicates=int(bootstrap),
            seed=seed,
            confidence=confidence,
            unit="item",
        )
    bias = position_bias(data)
    counts = np.bincount(data.choice, minlength=3)
    report: dict[str, Any] = {
        "level": "preference",
        "n_items": data.n_items,
        "n_coders": data.n_coders,
        "n_annotations": data.n_annotations,
        "choices": {name: int(counts[code]) for code, name in enumerate(CHOICES)},
        "coefficients": coefficients,
        "position_bias": {json_name(c): _bias(result) for c, result in bias.coders.items()},
        "position_bias_overall": _bias(bias.overall),
    }
    if data.options is not None:
        report["consistency"] = {
            json_name(coder): {
                "options": result.options,
                "pairs": result.pairs,
                "triads": result.triads,
                "circular": result.circular,
                "zeta": result.zeta,
            }
            for coder, result in circular_triads(data).items()
        }
    return report
