"""``python -m metrics report FILE --level relation|ranking|preference|text``: structured kinds.

Each level reads its CSV file and prints its report (:mod:`metrics.structured`):

- ``relation``: ``document,coder,head_begin,head_end,tail_begin,tail_end,label`` (a row with all
  but document and coder empty: annotated, no relation); ``--undirected a,b`` names the
  symmetric labels, ``--min-overlap`` the IoU of relation F1 by overlap and of alpha's unit
  alignment (default 0.5);
- ``ranking``: ``item,coder,option,rank`` (1 best, ties equal);
- ``preference``: ``item,coder,choice,shown_first`` (choice A, B or tie; shown_first A, B or
  empty), optionally ``option_a,option_b``;
- ``text``: ``item,coder,text`` (an empty text cell is the empty text), ``--distance
  levenshtein|token_jaccard`` (default levenshtein) or ``--distance-file`` (CSV
  ``text_a,text_b,distance``: distances computed elsewhere, for every pair of distinct texts),
  ``--max-pairs`` the distance evaluations alpha's exact expected disagreement may take
  (default 20,000,000); ``--expected sampled`` estimates it from ``--expected-pairs N``
  (default 200,000) random pairs drawn with ``--seed S``, with its standard error, and
  ``--expected auto`` is exact up to ``--max-pairs`` and sampled above (default exact).

``--bootstrap N --seed S [--confidence C]`` adds a ``ci`` to every coefficient. ``--json``
prints the JSON contract, otherwise a table. Bad input exits with code 2 and a message naming
the file, line and field, as the span level does.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from metrics.errors import InputError
from metrics.structured._pairwise import DEFAULT_EXPECTED_PAIRS, EXPECTED_METHODS
from metrics.structured.preferences import preference_report, read_preferences
from metrics.structured.rankings import ranking_report, read_rankings
from metrics.structured.relations import read_relations, relation_report
from metrics.structured.texts import (
    DEFAULT_MAX_PAIRS,
    TEXT_DISTANCES,
    read_text_distances,
    read_texts,
    text_report,
)
from metrics.structured.texts.alpha import TextDistanceLike

#: The ``--level`` values this module handles.
STRUCTURED_LEVELS: tuple[str, ...] = ("relation", "ranking", "preference", "text")
#: This module's options, and the levels each applies to.
_OWN = {
    "undirected": ("relation",),
    "min_overlap": ("relation",),
    "max_pairs": ("text",),
    "distance_file": ("text",),
    "expected": ("text",),
    "expected_pairs": ("text",),
}
#: Options of the other levels, refused here.
_OTHERS = ("continuum", "gamma", "overlapping", "domain", "tree", "benchmarks")

__all__ = [
    "STRUCTURED_LEVELS",
    "add_structured_arguments",
    "format_structured_table",
    "structured_applies",
    "structured_main",
    "structured_report",
]


def add_structured_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the structured levels' own options to the ``report`` parser."""
    parser.add_argument(
        "--undirected",
        metavar="A,B",
        help="level relation: labels whose relations have no direction (default: none)",
    )
    parser.add_argument(
        "--min-overlap",
        type=float,
        metavar="X",
        help="level relation: IoU two units need to match (default: 0.5)",
    )
    parser.add_argument(
        "--distance-file",
        type=Path,
        metavar="FILE",
        help="level text: user-supplied distances, CSV text_a,text_b,distance "
        "(default: none, the level's text distance)",
    )
    parser.add_argument(
        "--max-pairs",
        type=int,
        metavar="N",
        help=f"level text: most distance evaluations for D_e (default: {DEFAULT_MAX_PAIRS})",
    )
    parser.add_argument(
        "--expected",
        choices=EXPECTED_METHODS,
        help="level text: D_e over every pair (exact), estimated from random pairs (sampled, "
        "alpha then an estimate with its standard error), or exact up to --max-pairs and "
        "sampled above (auto) (default: exact)",
    )
    parser.add_argument(
        "--expected-pairs",
        type=int,
        metavar="N",
        help=f"level text: pairs drawn for a sampled D_e, seeded by --seed "
        f"(default: {DEFAULT_EXPECTED_PAIRS})",
    )


def structured_applies(args: argparse.Namespace) -> bool:
    """Whether this module handles the command: a structured level, or one of its options."""
    return args.level in STRUCTURED_LEVELS or any(
        getattr(args, option, None) is not None for option in _OWN
    )


def _check_options(args: argparse.Namespace) -> None:
    for option, levels in _OWN.items():
        if getattr(args, option, None) is not None and args.level not in levels:
            flag = "--" + option.replace("_", "-")
            raise InputError(f"{flag} applies to --level {' or '.join(levels)} only.")
    for option in _OTHERS:
        value = getattr(args, option, None)
        if value is not None and value is not False:
            flag = "--" + option.replace("_", "-")
            raise InputError(f"{flag} does not apply to --level {args.level}.")
    if args.distance is not None and args.level != "text":
        raise InputError(f"--distance does not apply to --level {args.level}.")
    if args.distance is not None and args.distance not in TEXT_DISTANCES:
        raise InputError(
            f"--distance {args.distance!r}: level text knows {', '.join(TEXT_DISTANCES)}."
        )
    if args.distance is not None and args.distance_file is not None:
        raise InputError("Give --distance or --distance-file, not both.")
    if args.max_pairs is not None and args.max_pairs < 1:
        raise InputError("--max-pairs must be at least 1.")
    if args.expected_pairs is not None and args.expected_pairs < 2:
        raise InputError("--expected-pairs must be at least 2.")


def structured_report(args: argparse.Namespace) -> dict[str, Any]:
    """Read the file and compute the level's report (``ValueError`` on bad input)."""
    _check_options(args)
    common = {"bootstrap": args.bootstrap, "seed": args.seed, "confidence": args.confidence}
    if args.level == "relation":
        undirected = [] if args.undirected is None else args.undirected.split(",")
        data = read_relations(args.file, undirected=[label.strip() for label in undirected])
        overlap = 0.5 if args.min_overlap is None else args.min_overlap
        return relation_report(data, min_overlap=overlap, **common)
    if args.level == "ranking":
        return ranking_report(read_rankings(args.file), **common)
    if args.level == "preference":
        return preference_report(read_preferences(args.file), **common)
    max_pairs = DEFAULT_MAX_PAIRS if args.max_pairs is None else args.max_pairs
    distance: TextDistanceLike = args.distance or "levenshtein"
    if args.distance_file is not None:
        distance = read_text_distances(args.distance_file)
    return text_report(
        read_texts(args.file),
        distance=distance,
        max_pairs=max_pairs,
        expected=args.expected or "exact",
        expected_pairs=DEFAULT_EXPECTED_PAIRS
        if args.expected_pairs is None
        else args.expected_pairs,
        **common,
    )


def structured_main(args: argparse.Namespace) -> int:
    """Print the report of a structured level; exit code 2 with the reason on bad input."""
    try:
        if args.level not in STRUCTURED_LEVELS:
            _check_options(args)  # names the option that does not apply
        result = structured_report(args)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print(format_structured_table(result))
    return 0


# -- the table -------------------------------------------------------------------------------

TITLES = {
    "relation_f1": "Relation F1, exact tuples",
    "relation_f1_overlap": "Relation F1, units by overlap",
    "alpha": "Krippendorff's alpha",
    "kendall_w": "Kendall's W (mean over items)",
    "alpha_footrule": "Krippendorff's alpha (footrule)",
    "alpha_ordinal": "Krippendorff's alpha (A < tie < B)",
}


def _cell(value: Any) -> str:
    return "—" if value is None else f"{value:.4f}"


def _headline(result: dict[str, Any]) -> str:
    counts = [
        f"{key[2:]} {result[key]}"
        for key in ("n_documents", "n_items", "n_coders", "n_relations", "n_rankings", "n_texts")
        if key in result
    ]
    return ", ".join(counts) + f", level {result['level']}"


def format_structured_table(result: dict[str, Any]) -> str:
    """The human-readable report: counts, one line per coefficient, then the kind's extras."""
    lines = [_headline(result), "", f"{'measure':<36} {'value':>8}  interval"]
    for key, entry in result["coefficients"].items():
        interval = ""
        if entry.get("ci"):
            ci = entry["ci"]
            interval = f"[{ci['low']:.4f}, {ci['high']:.4f}] {ci['confidence']:.0%} {ci['method']}"
        lines.append(f"{TITLES.get(key, key):<36} {_cell(entry['value']):>8}  {interval}".rstrip())
        if entry["value"] is None:
            lines.append(f"    {entry.get('reason', '')}")
        elif key == "kendall_w":
            lines.append(f"    chi2 {entry['chi2']:.4f} on {entry['df']} df, p {entry['p']:.4g}")
        elif entry.get("expected_method", {}).get("method") == "sampled":
            sample = entry["expected_method"]
            low, high = sample["alpha_interval"]
            lines.append(
                f"    estimate: D_e from {sample['pairs']:,} random pairs (seed {sample['seed']}),"
                f" standard error {sample['standard_error']:.2g}; alpha [{low:.4f}, {high:.4f}]"
                f" {sample['confidence']:.0%} over the pairs drawn"
            )
    for coder, bias in result.get("position_bias", {}).items():
        lines.append(
            f"position bias {coder!s:<22} share first {_cell(bias['share_first'])} "
            f"of {bias['n']}, p {_cell(bias['p'])}"
        )
    for coder, consistency in result.get("consistency", {}).items():
        lines.append(
            f"consistency {coder!s:<24} {consistency['circular']} circular of "
            f"{consistency['triads']} triads, zeta {_cell(consistency['zeta'])}"
        )
    for coder, consensus in result.get("coders", {}).items():
        lines.append(
            f"against the others {coder!s:<17} tau {_cell(consensus['tau'])} "
            f"over {consensus['items']} items"
        )
    return "\n".join(lines)
