"""``python -m metrics alt-test`` and ``python -m metrics ppi``: model coders on the command line.

- ``alt-test FILE --model CODER [--epsilon 0.2] [--alpha 0.05] [--json]``: the alternative
  annotator test (:func:`metrics.models.alt_test`). FILE is ``item,coder,label`` (CSV or JSON
  lines, as ``report`` reads) with the model as one coder and at least three human coders;
  every other coder is a human unless named with ``--exclude``.
- ``ppi FILE --gold CODER --model CODER [--confidence 0.95] [--json]``: prediction-powered
  prevalences (:func:`metrics.models.ppi_prevalence`): items labelled by both are the
  labelled set, items labelled by the model alone the unlabelled set.

Bad input (unreadable file, a malformed line, an unknown coder, too few humans) stops with
exit code 2 and a message naming the line and field where there is one.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from metrics.cli_help import HelpFormatter

if TYPE_CHECKING:
    from metrics.data import ReliabilityData

#: The subcommands this module adds to ``python -m metrics``.
MODEL_COMMANDS = ("alt-test", "ppi")

#: Human coders the ``alt-test`` command requires (the authors recommend at least three).
MIN_HUMANS = 3


def add_model_parsers(commands: Any) -> None:
    """Add ``alt-test`` and ``ppi`` to the subcommands of ``python -m metrics``."""
    alt = commands.add_parser(
        "alt-test",
        help="may a model replace a human coder (alternative annotator test)",
        description="The alternative annotator test (Calderon, Reichart & Dror 2025) of one\n"
        "model coder against the human coders of FILE (item,coder,label).",
        formatter_class=HelpFormatter,
    )
    alt.add_argument("file", type=Path, help="CSV item,coder,label or JSON lines")
    alt.add_argument(
        "--model", required=True, metavar="CODER", help="the model coder (default: none, required)"
    )
    alt.add_argument(
        "--epsilon",
        type=float,
        default=0.2,
        help="cost-benefit margin (default: 0.2, for expert coders; 0.15 skilled, 0.1 crowd)",
    )
    alt.add_argument("--alpha", type=float, default=0.05, help="false discovery rate level")
    alt.add_argument(
        "--scoring",
        choices=("accuracy", "neg_rmse"),
        default="accuracy",
        help="alignment with the other humans: accuracy (categories) or neg_rmse (numeric labels)",
    )
    alt.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="CODER",
        help="a coder that is neither the model nor a human (another model); repeatable "
        "(default: none)",
    )
    alt.add_argument(
        "--min-items",
        type=int,
        default=30,
        metavar="N",
        help="usable items a human needs to be tested",
    )
    alt.add_argument("--json", action="store_true", help="print the JSON contract")

    ppi = commands.add_parser(
        "ppi",
        help="prediction-powered prevalence of each category from a model's and a human's labels",
        description="Per category, the PPI++ prevalence and interval (items labelled by both\n"
        "coders: labelled set; by the model alone: unlabelled set), the classical interval\n"
        "from the human labels alone and the model-only share.",
        formatter_class=HelpFormatter,
    )
    ppi.add_argument("file", type=Path, help="CSV item,coder,label or JSON lines")
    ppi.add_argument(
        "--gold",
        required=True,
        metavar="CODER",
        help="the human (gold) coder (default: none, required)",
    )
    ppi.add_argument(
        "--model", required=True, metavar="CODER", help="the model coder (default: none, required)"
    )
    ppi.add_argument("--confidence", type=float, default=0.95, metavar="C", help="confidence level")
    ppi.add_argument("--json", action="store_true", help="print the JSON contract")


def run_model_command(
    args: argparse.Namespace, read_annotations: Callable[..., ReliabilityData]
) -> int:
    """Run ``alt-test`` or ``ppi`` on the file ``read_annotations`` (the CLI's reader)
    reads; returns the exit code (2 for bad input)."""
    from metrics.errors import InputError
    from metrics.models import alt_tests_on_data, ppi_prevalence_on_data

    try:
        if args.command == "alt-test":
            level = "interval" if args.scoring == "neg_rmse" else "nominal"
            data = read_annotations(args.file, level=level)
            _check_coder(data.coders, args.model, "--model", args.file)
            for coder in args.exclude:
                _check_coder(data.coders, coder, "--exclude", args.file)
            humans = [c for c in data.coders if c != args.model and c not in args.exclude]
            if len(humans) < MIN_HUMANS:
                raise InputError(
                    f"{args.file}: the alternative annotator test needs at least {MIN_HUMANS} "
                    f"human coders besides the model; found {len(humans)}"
                    + (f" ({', '.join(map(str, humans))})" if humans else "")
                    + "."
                )
            result = alt_tests_on_data(
                data,
                models=[args.model],
                humans=humans,
                epsilon=args.epsilon,
                alpha=args.alpha,
                scoring=args.scoring,
                min_items_per_human=args.min_items,
            )[args.model]
            payload = result.to_json()
            text = format_alt_test(payload)
        else:
            data = read_annotations(args.file)
            _check_coder(data.coders, args.gold, "--gold", args.file)
            _check_coder(data.coders, args.model, "--model", args.file)
            payload = ppi_prevalence_on_data(
                data, gold=args.gold, model=args.model, confidence=args.confidence
            ).to_json()
            text = format_ppi(payload)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(json.dumps(payload, indent=2, ensure_ascii=False) if args.json else text)
    return 0


def _check_coder(coders: tuple[Any, ...], coder: str, option: str, path: Path) -> None:
    from metrics.errors import InputError

    if coder not in coders:
        known = ", ".join(map(str, coders[:20]))
        raise InputError(f"{option} {coder!r}: no such coder in {path} (coders: {known}).")


def format_alt_test(result: dict[str, Any]) -> str:
    """The human-readable verdict and one line per human."""
    verdict = "PASSES" if result["passed"] else "FAILS"
    lines = [
        f"model {result['model']} {verdict} the alternative annotator test against "
        f"{len(result['humans'])} human coders: winning rate {result['winning_rate']:.2f} "
        f"(needs 0.5), advantage probability {result['advantage_probability']:.3f}, "
        f"epsilon {result['epsilon']}, FDR level {result['alpha']}, {result['scoring']}, "
        f"{result['n_items']} items",
        "",
        f"{'human':<20} {'items':>6} {'p-value':>10}  {'model wins':<10} {'rho_f':>6}",
    ]
    for coder, test in result["humans"].items():
        p = "undefined" if test["p_value"] is None else f"{test['p_value']:.4g}"
        lines.append(
            f"{coder:<20} {test['n_items']:>6} {p:>10}  {'yes' if test['rejected'] else 'no':<10} "
            f"{test['advantage_probability']:>6.3f}"
        )
    for coder, reason in result["excluded_humans"].items():
        lines.append(f"not tested: {coder}: {reason}")
    if result["excluded_items"]:
        lines.append(f"items not used: {len(result['excluded_items'])}")
    lines += list(result["notes"])
    return "\n".join(lines)


def format_ppi(result: dict[str, Any]) -> str:
    """One line per category: PPI++ estimate and interval, classical interval, model share."""
    confidence = result["confidence"]
    lines = [
        f"model {result['model']} against {result['gold']}: {result['n_labelled']} items "
        f"labelled by both, {result['n_unlabelled']} by the model alone "
        f"({result['n_gold_only']} by the human alone, unused); intervals {confidence:.0%}",
        "",
        f"{'category':<20} {'PPI++':>8}  {'interval':<20} {'classical':<20} {'model':>7} "
        f"{'lambda':>7}",
    ]
    for label, entry in result["categories"].items():
        ci = f"[{entry['ci'][0]:.4f}, {entry['ci'][1]:.4f}]"
        classical = f"[{entry['classical_ci'][0]:.4f}, {entry['classical_ci'][1]:.4f}]"
        lines.append(
            f"{label:<20} {entry['estimate']:>8.4f}  {ci:<20} {classical:<20} "
            f"{entry['naive']:>7.4f} {entry['lambda']:>7.3f}"
        )
    agreement = result["agreement"]
    kappa = "undefined" if agreement["kappa"] is None else f"{agreement['kappa']:.4f}"
    lines += [
        "",
        f"model vs {result['gold']}: accuracy {agreement['accuracy']:.4f} "
        f"[{agreement['accuracy_ci'][0]:.4f}, {agreement['accuracy_ci'][1]:.4f}], "
        f"Cohen's kappa {kappa}",
    ]
    lines += list(result["notes"])
    return "\n".join(lines)
