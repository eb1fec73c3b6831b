"""Every span measure at once: the JSON of ``python -m metrics report FILE --level span``.

:func:`span_report` computes Krippendorff's unitizing alpha (α_U), span F1 (exact and by
overlap), token-level alpha and kappa, P_k and WindowDiff, and on request Mathet et al.'s γ,
each as ``{"value": ..., ...}``; a measure undefined on the data has ``"value": null`` and a
``"reason"`` instead of stopping the report (plus ``"reason_code"`` and ``"reason_problem"``
where an option would lift it, see :mod:`metrics.spans.refusal`). With ``bootstrap``
replicates every measure with a per-document decomposition gets a ``"ci"``: all of them
resample the *same* documents (replicate ``r`` draws from ``np.random.default_rng([seed,
r])`` over the documents, see :mod:`metrics.uncertainty.bootstrap`), so their intervals
describe one set of resamples.

``documents`` lists every document, most disputed first: its units, the coders who
annotated it, its part of α_U's observed disagreement (the parts sum to D_o) and its overlap F1.
:func:`format_span_table` prints the same as a table. ``docs/spans.md`` documents each field.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from metrics.decomposition import Decomposition
from metrics.spans.data import SpanData
from metrics.spans.f1 import decompose_span_f1, span_f1
from metrics.spans.gamma import decompose_gamma, gamma_agreement
from metrics.spans.refusal import RefusalError
from metrics.spans.segmentation import (
    decompose_segmentation,
    segmentation_agreement,
)
from metrics.spans.tokens import decompose_token_agreement, token_agreement
from metrics.spans.unitizing import (
    decompose_unitizing_alpha,
    unitizing_alpha,
    unitizing_document_disagreement,
)
from metrics.uncertainty.bootstrap import bootstrap as bootstrap_interval

#: Every key of a span report's ``coefficients``, in the order they are reported.
SPAN_COEFFICIENT_KEYS: tuple[str, ...] = (
    "alpha_u",
    "span_f1",
    "span_f1_overlap",
    "token_alpha",
    "token_kappa",
    "pk",
    "window_diff",
    "gamma",
)

#: How each measure is named in the table.
SPAN_TITLES = {
    "alpha_u": "Unitizing alpha (alpha_U)",
    "span_f1": "Span F1, exact match",
    "span_f1_overlap": "Span F1, overlap",
    "token_alpha": "Token alpha (nominal)",
    "token_kappa": "Token kappa",
    "pk": "P_k (error rate)",
    "window_diff": "WindowDiff (error rate)",
    "gamma": "Gamma (Mathet et al.)",
}

#: What α_U does with one coder's overlapping units of a category (``span_report``'s option).
OVERLAPPING: tuple[str, ...] = ("error", "merge")

__all__ = [
    "OVERLAPPING",
    "SPAN_COEFFICIENT_KEYS",
    "SPAN_TITLES",
    "format_span_table",
    "span_report",
]

Entry = dict[str, Any]


def _name(value: Hashable) -> Any:
    """A JSON-ready identifier: strings and numbers as they are, anything else as text."""
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return value
    return str(value)


def _number(value: Any) -> float | None:
    if value is None:
        return None
    number = float(value)
    return number if np.isfinite(number) else None


# -- one entry per measure -------------------------------------------------------------------


def _alpha_u(data: SpanData, overlapping: Any) -> tuple[Entry, Decomposition]:
    result = unitizing_alpha(data, overlapping=overlapping)
    entry: Entry = {
        "value": _number(result.value),
        "observed": _number(result.observed),
        "expected": _number(result.expected),
        "categories": {
            _name(label): {
                "value": _number(part.value),
                "observed": _number(part.observed),
                "expected": _number(part.expected),
            }
            | ({"reason": part.reason} if part.reason else {})
            for label, part in result.categories.items()
        },
    }
    if overlapping == "merge":
        entry["overlapping"] = "merge"
    return entry, decompose_unitizing_alpha(data, overlapping=overlapping)


def _f1(data: SpanData, match: str, min_overlap: float) -> tuple[Entry, Decomposition]:
    options: dict[str, Any] = {"match": match}
    if match == "overlap":
        options["min_overlap"] = min_overlap
    result = span_f1(data, **options)
    entry: Entry = {
        "value": result.value,
        "categories": {_name(label): value for label, value in result.categories.items()},
    }
    if match == "overlap":
        entry["min_overlap"] = float(min_overlap)
    return entry, decompose_span_f1(data, **options)


def _token(data: SpanData, coefficient: str) -> tuple[Entry, Decomposition]:
    kind: Any = coefficient
    result = token_agreement(data, kind)
    entry: Entry = {
        "value": result.value,
        "observed": result.observed,
        "expected": result.expected,
        "positions": result.n_items,
    }
    return entry, decompose_token_agreement(data, kind)


def _segmentation(data: SpanData) -> tuple[Entry, Entry, Decomposition, Decomposition]:
    result = segmentation_agreement(data)
    entries = []
    for measure in ("pk", "window_diff"):
        pairs = [
            {
                "coders": [_name(pair.coders[0]), _name(pair.coders[1])],
                "value": getattr(pair, measure),
                "documents": pair.documents,
            }
            for pair in result.pairs
        ]
        entries.append({"value": getattr(result, measure), "pairs": pairs})
    return (
        entries[0],
        entries[1],
        decompose_segmentation(data, "pk"),
        decompose_segmentation(data, "window_diff"),
    )


def _gamma(data: SpanData, seed: int) -> tuple[Entry, Decomposition]:
    result = gamma_agreement(data, seed=seed)
    entry: Entry = {
        "value": _number(result.value),
        "observed": _number(result.observed),
        "expected": _number(result.expected),
        "samples": int(result.samples),
        "seed": int(result.seed),
    }
    # Its interval holds the expected disorder at the full data's (see decompose_gamma).
    return entry, decompose_gamma(data, expected=result.expected)


def _interval(
    decomposition: Decomposition, replicates: int, seed: int, confidence: float
) -> dict[str, Any]:
    result = bootstrap_interval(
        decomposition, replicates=replicates, seed=seed, confidence=confidence
    )
    return {
        "low": float(result.low),
        "high": float(result.high),
        "confidence": float(result.confidence),
        "method": str(result.method),
        "replicates": int(result.replicates),
    }


def _undefined(error: ValueError) -> Entry:
    """A measure's entry where the data leave it undefined; a :class:`RefusalError` adds its
    code and its problem, for callers that state the remedy in their own words."""
    entry: Entry = {"value": None, "reason": str(error)}
    if isinstance(error, RefusalError):
        entry["reason_code"] = error.code
        entry["reason_problem"] = error.problem
    return entry


# -- documents -------------------------------------------------------------------------------


def _observed_shares(data: SpanData, overlapping: Any) -> list[float | None]:
    """Each document's part of α_U's D_o (they sum to D_o); None where α_U is undefined."""
    try:
        shares = unitizing_document_disagreement(data, overlapping=overlapping)
    except ValueError:
        return [None] * data.n_documents
    return [_number(share) for share in shares]


def _documents(
    data: SpanData, alpha_u_defined: bool, f1_overlap: Decomposition | None, overlapping: Any
) -> list[dict[str, Any]]:
    n_units = np.bincount(data.document, minlength=data.n_documents)
    shares = _observed_shares(data, overlapping) if alpha_u_defined else [None] * data.n_documents
    f1_rows = None if f1_overlap is None else np.asarray(f1_overlap.item_stats)
    documents = []
    for d in range(data.n_documents):
        f1 = None
        if f1_rows is not None:
            tp, fp, fn = f1_rows[d]
            f1 = None if 2 * tp + fp + fn == 0 else float(2 * tp / (2 * tp + fp + fn))
        documents.append(
            {
                "document": _name(data.documents[d]),
                "n_units": int(n_units[d]),
                "coders": [_name(data.coders[c]) for c in data.coders_of(d)],
                "observed_disagreement": shares[d],
                "f1_overlap": f1,
            }
        )

    def disputed(entry: dict[str, Any]) -> tuple[float, float]:
        share = entry["observed_disagreement"]
        f1 = entry["f1_overlap"]
        return (-share if share is not None else 1.0, f1 if f1 is not None else 2.0)

    return sorted(documents, key=disputed)  # sorted() is stable: ties keep document order


# -- the report ------------------------------------------------------------------------------


def _check_options(bootstrap: int, confidence: float, min_overlap: float, overlapping: str) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be strictly between 0 and 1; got {confidence}.")
    if isinstance(bootstrap, bool) or int(bootstrap) != bootstrap or bootstrap < 0:
        raise ValueError(f"bootstrap must be a whole number of replicates ≥ 0; got {bootstrap}.")
    if not 0 <= min_overlap <= 1:
        raise ValueError(f"min_overlap must be between 0 and 1; got {min_overlap}.")
    if overlapping not in OVERLAPPING:
        raise ValueError(f"overlapping must be 'error' or 'merge'; got {overlapping!r}.")


def _add_intervals(
    coefficients: dict[str, Entry],
    decompositions: dict[str, Decomposition | None],
    replicates: int,
    seed: int,
    confidence: float,
) -> None:
    """A ``ci`` for every defined measure; the same seed draws the same documents for all."""
    for key, entry in coefficients.items():
        decomposition = decompositions.get(key)
        if entry["value"] is None:
            continue
        if decomposition is None:
            entry["ci"] = None
            entry["ci_reason"] = "this measure does not decompose over documents."
            continue
        if decomposition.n_items < 2:
            entry["ci"] = None
            entry["ci_reason"] = (
                "an interval resamples documents and needs at least two; "
                f"got {decomposition.n_items}."
            )
            continue
        try:
            entry["ci"] = _interval(decomposition, replicates, seed, confidence)
        except ValueError as error:
            entry["ci"] = None
            entry["ci_reason"] = str(error)


def span_report(
    data: SpanData,
    *,
    gamma: bool = False,
    bootstrap: int = 0,
    confidence: float = 0.95,
    seed: int = 0,
    min_overlap: float = 0.5,
    overlapping: str = "error",
) -> dict[str, Any]:
    """Every span measure of ``data`` as a JSON-ready dictionary.

    Parameters
    ----------
    data : SpanData
    gamma : bool, default False
        Also compute γ (slow: it samples random annotations).
    bootstrap : int, default 0
        Bootstrap replicates over documents (0 for none); each decomposable measure gets
        ``ci``, all from the same resamples.
    confidence : float, default 0.95
        Confidence level of the intervals.
    seed : int, default 0
        Seed of the bootstrap (and of γ's sampling).
    min_overlap : float, default 0.5
        Intersection over union two units need to match for ``span_f1_overlap``.
    overlapping : {"error", "merge"}, default "error"
        α_U with overlapping (or nested) units of one coder and category: ``"error"`` leaves
        ``alpha_u`` null with the reason, ``"merge"`` replaces each run of them by their
        union first (``alpha_u`` then says ``"overlapping": "merge"``). The other measures
        read the units as given.

    Returns
    -------
    dict
        ``level`` ("span"), ``n_documents``, ``n_coders``, ``n_units``, ``coefficients``
        (key → entry, :data:`SPAN_COEFFICIENT_KEYS` order; ``value`` null with ``reason``
        where undefined, plus ``reason_code`` and ``reason_problem`` for a
        :class:`~metrics.spans.refusal.RefusalError`; ``ci``
        ``{"low", "high", "confidence", "method", "replicates"}``
        with ``bootstrap``) and ``documents`` (most disputed first).

    Raises
    ------
    ValueError
        For a bad ``confidence``, ``bootstrap``, ``min_overlap`` or ``overlapping``.

    Examples
    --------
    >>> data = SpanData.from_units([("d", "ann", 0, 5, "PER"), ("d", "bob", 1, 5, "PER")],
    ...                            extents={"d": (0, 10)})
    >>> result = span_report(data)
    >>> result["coefficients"]["span_f1"]["value"], result["coefficients"]["span_f1_overlap"]
    (0.0, {'value': 1.0, 'categories': {'PER': 1.0}, 'min_overlap': 0.5})
    """
    _check_options(bootstrap, confidence, min_overlap, overlapping)
    coefficients: dict[str, Entry] = {}
    decompositions: dict[str, Decomposition | None] = {}

    def run(key: str, compute: Callable[[], tuple[Entry, Decomposition | None]]) -> None:
        try:
            coefficients[key], decompositions[key] = compute()
        except ValueError as error:
            coefficients[key], decompositions[key] = _undefined(error), None

    run("alpha_u", lambda: _alpha_u(data, overlapping))
    run("span_f1", lambda: _f1(data, "exact", 0.0))
    run("span_f1_overlap", lambda: _f1(data, "overlap", min_overlap))
    run("token_alpha", lambda: _token(data, "alpha"))
    run("token_kappa", lambda: _token(data, "kappa"))
    try:
        pk_entry, wd_entry, pk_rows, wd_rows = _segmentation(data)
        coefficients["pk"], decompositions["pk"] = pk_entry, pk_rows
        coefficients["window_diff"], decompositions["window_diff"] = wd_entry, wd_rows
    except ValueError as error:
        for key in ("pk", "window_diff"):
            coefficients[key], decompositions[key] = _undefined(error), None
    if gamma:
        run("gamma", lambda: _gamma(data, seed))

    if bootstrap:
        _add_intervals(coefficients, decompositions, int(bootstrap), seed, confidence)

    return {
        "level": "span",
        "n_documents": data.n_documents,
        "n_coders": data.n_coders,
        "n_units": data.n_units,
        "coefficients": coefficients,
        "documents": _documents(
            data,
            coefficients["alpha_u"]["value"] is not None,
            decompositions.get("span_f1_overlap"),
            overlapping,
        ),
    }


# -- the table -------------------------------------------------------------------------------


def _cell(value: float | None, width: int = 8) -> str:
    return f"{'—':>{width}}" if value is None else f"{value:>{width}.4f}"


def _interval_text(entry: Entry) -> str:
    ci = entry.get("ci")
    if ci:
        return f"[{ci['low']:.4f}, {ci['high']:.4f}] {ci['confidence']:.0%} {ci['method']}"
    return ""


def _category_lines(coefficients: dict[str, Entry]) -> list[str]:
    columns = [("alpha_u", "alpha_U"), ("span_f1", "F1 exact"), ("span_f1_overlap", "F1 overlap")]
    labels: list[str] = []
    for key, _ in columns:
        for label in coefficients.get(key, {}).get("categories", {}):
            if label not in labels:
                labels.append(label)
    if not labels:
        return []
    lines = ["", f"{'category':<24}" + "".join(f"{title:>12}" for _, title in columns)]
    for label in labels:
        cells = []
        for key, _ in columns:
            part = coefficients.get(key, {}).get("categories", {}).get(label)
            value = part.get("value") if isinstance(part, dict) else part
            cells.append(_cell(value, 12))
        lines.append(f"{str(label)[:24]:<24}" + "".join(cells))
    return lines


def _pair_lines(coefficients: dict[str, Entry]) -> list[str]:
    pk_pairs = coefficients.get("pk", {}).get("pairs") or []
    wd_pairs = coefficients.get("window_diff", {}).get("pairs") or []
    if not pk_pairs:
        return []
    lines = ["", f"{'coder pair':<30}{'P_k':>10}{'WindowDiff':>12}{'documents':>11}"]
    for pk_pair, wd_pair in zip(pk_pairs, wd_pairs, strict=True):
        name = " / ".join(str(c) for c in pk_pair["coders"])
        lines.append(
            f"{name[:30]:<30}{_cell(pk_pair['value'], 10)}{_cell(wd_pair['value'], 12)}"
            f"{pk_pair['documents']:>11}"
        )
    return lines


def _document_lines(documents: list[dict[str, Any]], shown: int) -> list[str]:
    if not documents:
        return []
    lines = [
        "",
        f"most disputed documents (first {min(shown, len(documents))} of {len(documents)})",
        f"{'document':<30}{'units':>7}{'coders':>8}{'D_o part':>11}{'F1 overlap':>12}",
    ]
    for entry in documents[:shown]:
        lines.append(
            f"{str(entry['document'])[:30]:<30}{entry['n_units']:>7}{len(entry['coders']):>8}"
            f"{_cell(entry['observed_disagreement'], 11)}{_cell(entry['f1_overlap'], 12)}"
        )
    return lines


def format_span_table(result: dict[str, Any], *, documents: int = 10) -> str:
    """The human-readable span report: counts, one line per measure, categories, coder
    pairs and the most disputed documents."""
    coefficients = result["coefficients"]
    lines = [
        f"documents {result['n_documents']}, coders {result['n_coders']}, "
        f"units {result['n_units']}, level span",
        "",
        f"{'measure':<34}{'value':>8}  interval",
    ]
    reasons = []
    for key in SPAN_COEFFICIENT_KEYS:
        entry = coefficients.get(key)
        if entry is None:
            continue
        title = SPAN_TITLES[key]
        if key == "span_f1_overlap" and "min_overlap" in entry:
            title += f" (IoU ≥ {entry['min_overlap']:g})"
        lines.append(f"{title:<34}{_cell(entry['value'])}  {_interval_text(entry)}".rstrip())
        if entry["value"] is None:
            reasons.append(f"{key}: {entry['reason']}")
        elif entry.get("ci_reason"):
            reasons.append(f"{key} interval: {entry['ci_reason']}")
    lines.append("(P_k and WindowDiff are error rates: lower is better; F1, P_k and WindowDiff")
    lines.append(" are not chance-corrected)")
    lines += _category_lines(coefficients)
    lines += _pair_lines(coefficients)
    lines += _document_lines(result.get("documents", []), documents)
    if reasons:
        lines += ["", *(f"undefined {reason}" for reason in reasons)]
    return "\n".join(lines)
