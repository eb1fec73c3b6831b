"""``python -m metrics report FILE``: every coefficient of an annotation file.

The file is CSV with the header ``item,coder,label`` (a set label written ``a|b``) or JSON
lines ``{"item": ..., "coder": ..., "label": ...}`` (a set label may be a list). One line per
annotation; a missing annotation is simply absent. ``--level`` is the level of measurement,
``--confidence`` the confidence level of the intervals, ``--domain a,b,c`` the value domain
in order (string labels of an ordinal scale need it). Bad input stops with exit code 2 and a
message naming the line and the field.

``--level span`` reads span annotations instead: CSV ``document,coder,begin,end,label`` (end
exclusive; empty begin, end and label: the coder found nothing in the document), with
``--continuum FILE`` giving document extents (CSV ``document,begin,end``) and ``--gamma``
adding Mathet et al.'s gamma (see :mod:`metrics.spans.report` and ``docs/spans.md``).

``--level box`` reads boxes instead: CSV ``image,coder,x,y,width,height,label`` (x, y the
top-left corner in pixels; an optional ``rotation`` column; empty x, y, width, height and
label: the coder annotated the image and drew nothing), ``--level polygon`` CSV
``image,coder,points,label`` with points ``x1 y1;x2 y2;...``; ``--iou-threshold`` sets the
matching threshold (see :mod:`metrics.regions.report` and ``docs/metrics.md``, "Regions").
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

from metrics.cli_help import DESCRIPTION, REPORT_DESCRIPTION, HelpFormatter
from metrics.cli_models import MODEL_COMMANDS, add_model_parsers, run_model_command
from metrics.cli_structured import (
    STRUCTURED_LEVELS,
    add_structured_arguments,
    structured_applies,
    structured_main,
)
from metrics.data import ReliabilityData
from metrics.errors import InputError
from metrics.regions.reader import read_boxes, read_polygons
from metrics.regions.report import format_region_table, region_report
from metrics.report import COEFFICIENT_KEYS, LEVELS, report
from metrics.spans.reader import read_spans
from metrics.spans.refusal import OVERLAPPING_UNITS, refusal_text
from metrics.spans.report import OVERLAPPING, format_span_table, span_report
from metrics.uncertainty.benchmarks import BENCHMARK_SCALES
from metrics.uncertainty.interpretation import read_coefficient

NUMERIC_LEVELS = ("ordinal", "interval", "ratio")
#: ``--level`` for span annotations (not a level of measurement: it selects the span report).
SPAN_LEVEL = "span"
#: ``--level`` for region annotations: each selects the region report and its CSV shape.
REGION_LEVELS = ("box", "polygon")

#: How each coefficient is named in the human-readable table.
TITLES = {
    "observed_agreement": "Observed agreement A_o",
    "s": "Bennett et al.'s S",
    "pi": "Scott's pi / multi-pi (Fleiss)",
    "kappa": "Cohen's kappa / multi-kappa",
    "alpha": "Krippendorff's alpha",
    "kappa_w": "Weighted kappa",
    "light_kappa": "Light's kappa",
    "ac1": "Gwet's AC1 (AC2 with a distance)",
    "brennan_prediger": "Brennan-Prediger",
}


def _parse_label(raw: Any, level: str, where: str, *, numbers: bool) -> Hashable:
    if level == "set":
        if isinstance(raw, list):
            if not all(isinstance(part, str | int | float) for part in raw):
                raise InputError(f"{where}, field 'label': a set holds strings or numbers.")
            return frozenset(raw)
        if isinstance(raw, str):
            return frozenset(part for part in raw.split("|") if part != "")
        raise InputError(f"{where}, field 'label': a set is written 'a|b' or as a list.")
    if isinstance(raw, bool) or not isinstance(raw, str | int | float) or raw == "":
        raise InputError(f"{where}, field 'label': expected a non-empty label, got {raw!r}.")
    if numbers:
        return _number(raw, level, where)
    return raw


def _number(raw: str | int | float, level: str, where: str) -> int | float:
    if isinstance(raw, int | float):
        return raw
    try:
        return int(raw)
    except ValueError:
        pass
    try:
        value = float(raw)
    except ValueError:
        raise InputError(
            f"{where}, field 'label': {level} labels must be numbers, got {raw!r}."
        ) from None
    if value != value or value in (float("inf"), float("-inf")):
        raise InputError(f"{where}, field 'label': {level} labels must be finite numbers.")
    return value


def _identifier(raw: Any, field: str, where: str) -> Hashable:
    if isinstance(raw, bool) or not isinstance(raw, str | int) or raw == "":
        raise InputError(f"{where}, field '{field}': expected a non-empty string or integer.")
    return str(raw)


def _csv_rows(path: Path, text: str) -> list[tuple[int, dict[str, Any]]]:
    reader = csv.DictReader(text.splitlines())
    fields = reader.fieldnames or []
    missing = [name for name in ("item", "coder", "label") if name not in fields]
    if missing:
        raise InputError(
            f"{path}, line 1: the CSV header must name item, coder and label; "
            f"missing {', '.join(missing)}."
        )
    rows = []
    for row in reader:
        if not any((value or "").strip() for value in row.values() if isinstance(value, str)):
            continue
        rows.append((reader.line_num, {key: row.get(key) for key in ("item", "coder", "label")}))
    return rows


def _json_rows(path: Path, text: str) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise InputError(f"{path}, line {number}: not valid JSON ({error.msg}).") from None
        if not isinstance(record, dict):
            raise InputError(f"{path}, line {number}: expected an object with item, coder, label.")
        for field in ("item", "coder", "label"):
            if field not in record:
                raise InputError(f"{path}, line {number}, field '{field}': missing.")
        rows.append((number, record))
    return rows


def read_annotations(
    path: Path | str, *, level: str = "nominal", domain: Sequence[str] | None = None
) -> ReliabilityData:
    """Read a CSV (``item,coder,label``) or JSON-lines annotation file.

    Parameters
    ----------
    path : path
        JSON lines when the first non-blank character is ``{``, CSV otherwise.
    level : str, default "nominal"
        Level of measurement. ``set`` reads labels as sets (``a|b`` or a JSON list);
        ``ordinal``, ``interval`` and ``ratio`` read them as numbers, except ``ordinal`` with a
        ``domain``, whose labels are kept as text.
    domain : sequence of str, optional
        The value domain in order (labels as written in the file); a label outside it is an
        error.

    Returns
    -------
    ReliabilityData

    Raises
    ------
    InputError
        With the file, line and field of the first problem.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: cannot read the file ({error}).") from None
    rows = _json_rows(path, text) if text.lstrip().startswith("{") else _csv_rows(path, text)
    if not rows:
        raise InputError(f"{path}: no annotations.")
    numbers = level in NUMERIC_LEVELS and not (level == "ordinal" and domain is not None)
    items, coders, labels = [], [], []
    seen: dict[tuple[Hashable, Hashable], int] = {}
    for number, record in rows:
        where = f"{path}, line {number}"
        item = _identifier(record["item"], "item", where)
        coder = _identifier(record["coder"], "coder", where)
        if (item, coder) in seen:
            raise InputError(
                f"{where}, field 'coder': coder {coder!r} already labelled item {item!r} "
                f"on line {seen[item, coder]}."
            )
        seen[item, coder] = number
        items.append(item)
        coders.append(coder)
        labels.append(_parse_label(record["label"], level, where, numbers=numbers))
    if numbers and any(isinstance(label, float) for label in labels):
        labels = [float(label) for label in labels]  # type: ignore[arg-type]
    if domain is not None and not numbers:
        labels = [str(label) if not isinstance(label, frozenset) else label for label in labels]
    declared = None if domain is None else [_domain_value(v, numbers) for v in domain]
    try:
        return ReliabilityData.from_long(items, coders, labels, domain=declared)
    except ValueError as error:
        raise InputError(f"{path}: {error}") from None


def _domain_value(text: str, numbers: bool) -> Hashable:
    if not numbers:
        return text
    value = _number(text, "domain", "--domain")
    return float(value) if isinstance(value, float) else value


def read_tree(path: Path | str) -> dict[str, str | None]:
    """Read a hierarchy as CSV ``node,parent`` (empty parent for a root).

    Returns
    -------
    dict
        ``{node: parent}``, ``None`` for roots.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: cannot read the tree ({error}).") from None
    reader = csv.DictReader(text.splitlines())
    if not reader.fieldnames or not {"node", "parent"} <= set(reader.fieldnames):
        raise InputError(f"{path}, line 1: the tree's CSV header must be node,parent.")
    tree: dict[str, str | None] = {}
    for row in reader:
        node = (row.get("node") or "").strip()
        if not node:
            raise InputError(f"{path}, line {reader.line_num}, field 'node': empty.")
        if node in tree:
            raise InputError(f"{path}, line {reader.line_num}, field 'node': {node!r} repeated.")
        tree[node] = (row.get("parent") or "").strip() or None
    return tree


def _number_text(value: float) -> str:
    """Ten characters: four decimals for moderate numbers, significant digits beyond."""
    return f"{value:>10.4f}" if abs(value) < 1e5 else f"{value:>10.4g}"


def _format(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def format_table(result: dict[str, Any], *, benchmark_scale: str | None = None) -> str:
    """The human-readable report: counts, then one line per coefficient and its reading on
    the one benchmark scale that applies (``benchmark_scale``: the user's choice)."""
    lines = [
        f"items {result['n_items']} ({result['n_pairable_items']} pairable), "
        f"coders {result['n_coders']}, annotations {result['n_annotations']}, "
        f"level {result['level']}, distance {result['distance']}",
        "",
        f"{'coefficient':<34} {'value':>8}   {'observed':>10}   {'expected':>10}  interval",
    ]
    for key in COEFFICIENT_KEYS:
        entry = result["coefficients"].get(key)
        if entry is None:
            continue
        marks = "A" if entry["kind"] == "agreement" else "D"
        interval = ""
        if "ci" in entry:
            ci = entry["ci"]
            interval = f"[{ci['low']:.4f}, {ci['high']:.4f}] {ci['confidence']:.0%} {ci['method']}"
        if "se" in entry:
            interval += f"  se {entry['se']:.4f}"
        lines.append(
            f"{TITLES[key]:<34} {entry['value']:>8.4f} {marks} {_number_text(entry['observed'])} "
            f"{marks} {_number_text(entry['expected'])}  {interval}".rstrip()
        )
        lines += _reading_line(key, entry, result.get("distance"), benchmark_scale)
    lines.append("(A: agreements, D: disagreements)")
    if "true_agreement" in result:
        true = result["true_agreement"]
        lines.append(
            f"true agreement ({true['model']}, {true['confidence']:.0%}): "
            f"[{_format(true['low'])}, {_format(true['high'])}]"
        )
    lines += _icc_lines(result.get("icc"))
    for key, reason in result.get("skipped", {}).items():
        lines.append(f"skipped {key}: {reason}")
    return "\n".join(lines)


def _reading_line(
    key: str, entry: dict[str, Any], distance: str | None, chosen: str | None
) -> list[str]:
    """The coefficient read on its one benchmark scale (:func:`metrics.read_coefficient`): the
    band of the value, and with ``--bootstrap`` the band attained at 95% and the most probable
    one; or why no scale applies."""
    benchmarks = (entry.get("ci") or {}).get("benchmarks")
    reading = read_coefficient(
        key, entry.get("value"), benchmarks, distance=distance, chosen=chosen
    )
    return [f"    reading: {reading.text}"]


def _icc_lines(table: dict[str, Any] | None) -> list[str]:
    """The ICC forms: value, F-test interval, F, its degrees of freedom and p."""
    if not table:
        return []
    lines = [
        "",
        f"ICC (McGraw & Wong 1996; {table['n_items']} items, {table['n_coders']} coders)",
        f"{'form':<32} {'value':>8}  {'interval':<22} {'F':>9} {'df':>10} {'p':>10}",
    ]
    for form in table["forms"]:
        title = f"{form['form']} {form['model']}"
        if form["shrout_fleiss"]:
            title += f" [{form['shrout_fleiss']}]"
        f = "inf" if form["f"] is None else f"{form['f']:.4f}"
        interval = f"[{form['low']:.4f}, {form['high']:.4f}]"
        df = f"{form['df1']:g}, {form['df2']:g}"
        lines.append(
            f"{title:<32} {form['value']:>8.4f}  {interval:<22} {f:>9} {df:>10} "
            f"{form['p_value']:>10.3g}"
        )
    lines.append(f"(intervals {table['confidence']:.0%}, F test of ICC = 0)")
    return lines


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m metrics", description=DESCRIPTION, formatter_class=HelpFormatter
    )
    commands = parser.add_subparsers(
        title="commands", dest="command", required=True, metavar="COMMAND"
    )
    run = commands.add_parser(
        "report",
        help="every coefficient of an annotation file",
        description=REPORT_DESCRIPTION,
        formatter_class=HelpFormatter,
    )
    run.add_argument(
        "file",
        type=Path,
        help="CSV item,coder,label or JSON lines; with --level span CSV "
        "document,coder,begin,end,label; with --level box CSV image,coder,x,y,width,height,label; "
        "with --level polygon CSV image,coder,points,label",
    )
    run.add_argument(
        "--level",
        choices=(*LEVELS, SPAN_LEVEL, *REGION_LEVELS, *STRUCTURED_LEVELS),
        default="nominal",
        metavar="LEVEL",
        help="a level of measurement (nominal, ordinal, interval, ratio, set, hierarchy), "
        "span for span annotations, box or polygon for image regions, or text, ranking, "
        "preference or relation for structured values",
    )
    run.add_argument(
        "--iou-threshold",
        type=float,
        metavar="T",
        help="levels box and polygon: the IoU at which regions match (default: 0.5)",
    )
    run.add_argument(
        "--continuum",
        type=Path,
        metavar="FILE",
        help="level span: document extents, CSV document,begin,end (default: each document "
        "from 0 to its largest end)",
    )
    run.add_argument("--gamma", action="store_true", help="level span: also compute gamma")
    run.add_argument(
        "--overlapping",
        choices=OVERLAPPING,
        help="level span: alpha_U with one coder's overlapping or nested units of a category: "
        "error (alpha_U undefined, with the reason) or merge (their union) (default: error)",
    )
    run.add_argument(
        "--distance",
        help="distance name, see metrics.distances.get_distance (default: the level's own: "
        "nominal, ordinal, interval, ratio, MASI for sets, the tree distance for hierarchies)",
    )
    run.add_argument(
        "--domain",
        metavar="A,B,C",
        help="the value domain in order, comma-separated, needed for ordinal text labels "
        "(default: the labels found, in sorted order)",
    )
    run.add_argument(
        "--tree",
        type=Path,
        help="level hierarchy: CSV node,parent (default: none; required for level hierarchy)",
    )
    run.add_argument("--json", action="store_true", help="print the JSON contract")
    run.add_argument(
        "--bootstrap", type=int, default=0, metavar="N", help="bootstrap replicates (0: none)"
    )
    run.add_argument("--seed", type=int, default=0, help="seed of the bootstrap")
    run.add_argument(
        "--confidence",
        type=float,
        default=0.95,
        metavar="C",
        help="confidence level of the intervals",
    )
    run.add_argument(
        "--benchmark-scale",
        choices=tuple(BENCHMARK_SCALES),
        help="read every chance-corrected coefficient on this scale (default: one rule, "
        "docs/benchmarks.md: Krippendorff's for nominal alpha, Landis & Koch's for the "
        "unweighted kappa family, none for weighted coefficients or observed agreement)",
    )
    run.add_argument(
        "--benchmarks",
        choices=("replicates", "normal"),
        help="how each interval is read on the benchmark scales: the share of bootstrap "
        "replicates per band, or Gwet's normal approximation from the standard error "
        "(default: replicates)",
    )
    add_structured_arguments(run)
    _add_plan_parser(commands)
    add_model_parsers(commands)
    return parser


#: The command line's way out of a span refusal, by its ``reason_code``; a refusal not listed
#: keeps the library's remedy.
SPAN_REMEDIES = {OVERLAPPING_UNITS: "(pass --overlapping merge to merge them into their union)"}


def _span_main(args: argparse.Namespace) -> int:
    """``--level span``: read span annotations and print the span report."""
    try:
        for option in (
            "distance",
            "domain",
            "tree",
            "benchmarks",
            "benchmark_scale",
            "iou_threshold",
        ):
            if getattr(args, option) is not None:
                name = option.replace("_", "-")
                raise InputError(f"--{name} does not apply to --level span.")
        data = read_spans(args.file, continuum=args.continuum)
        result = span_report(
            data,
            gamma=args.gamma,
            bootstrap=args.bootstrap,
            seed=args.seed,
            confidence=args.confidence,
            overlapping=args.overlapping or "error",
        )
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for entry in result["coefficients"].values():
        remedy = SPAN_REMEDIES.get(entry.get("reason_code"))
        if remedy is not None:
            entry["reason"] = refusal_text(entry["reason_problem"], remedy)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print(format_span_table(result))
    return 0


def _region_main(args: argparse.Namespace) -> int:
    """``--level box`` or ``polygon``: read regions and print the region report."""
    try:
        for option in (
            "distance",
            "domain",
            "tree",
            "benchmarks",
            "benchmark_scale",
            "continuum",
            "overlapping",
        ):
            if getattr(args, option) is not None:
                raise InputError(
                    f"--{option.replace('_', '-')} does not apply to --level {args.level}."
                )
        if args.gamma:
            raise InputError(f"--gamma does not apply to --level {args.level}.")
        data = read_boxes(args.file) if args.level == "box" else read_polygons(args.file)
        result = region_report(
            data,
            iou_threshold=0.5 if args.iou_threshold is None else args.iou_threshold,
            bootstrap=args.bootstrap,
            seed=args.seed,
            confidence=args.confidence,
        )
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print(format_region_table(result))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (2 for bad input)."""
    args = _parser().parse_args(argv)
    if args.command == "plan":
        return _plan_main(args)
    if args.command in MODEL_COMMANDS:
        return run_model_command(args, read_annotations)
    if structured_applies(args):
        return structured_main(args)
    if args.level == SPAN_LEVEL:
        return _span_main(args)
    if args.level in REGION_LEVELS:
        return _region_main(args)
    try:
        if args.iou_threshold is not None:
            raise InputError("--iou-threshold applies to --level box and polygon only.")
        for option in ("continuum", "gamma", "overlapping"):
            if getattr(args, option):
                raise InputError(f"--{option} applies to --level span only.")
        domain = None if args.domain is None else [v.strip() for v in args.domain.split(",")]
        data = read_annotations(args.file, level=args.level, domain=domain)
        tree = read_tree(args.tree) if args.tree is not None else None
        result = report(
            data,
            level=args.level,
            distance=args.distance,
            tree=tree,
            bootstrap=args.bootstrap,
            seed=args.seed,
            confidence=args.confidence,
            benchmark_method=args.benchmarks or "replicates",
        )
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print(format_table(result, benchmark_scale=args.benchmark_scale))
    return 0


# -- python -m metrics plan ------------------------------------------------------------------


def _add_plan_parser(commands: Any) -> None:
    """``plan``: how many items the next round needs (see :mod:`metrics.planning`)."""
    plan = commands.add_parser(
        "plan",
        help="how many items the next round needs for a lower bound to reach a target",
        description="From a pilot FILE (the CSV or JSON lines of report), or without one\n"
        "from --categories and --alpha or --agreement: the smallest number of items\n"
        "whose interval's lower end reaches --target with probability --power.",
        formatter_class=HelpFormatter,
    )
    plan.add_argument(
        "file", type=Path, nargs="?", help="the pilot round, as for report (default: none)"
    )
    plan.add_argument("--level", choices=LEVELS, default="nominal", help="level of measurement")
    plan.add_argument(
        "--distance",
        help="distance name, see metrics.distances.get_distance (default: the level's own)",
    )
    plan.add_argument(
        "--domain",
        metavar="A,B,C",
        help="the value domain in order (default: the labels found, in sorted order)",
    )
    plan.add_argument("--coefficient", default="alpha", help="report key of the coefficient")
    plan.add_argument(
        "--target",
        type=float,
        required=True,
        help="the lower bound to reach (default: none, required)",
    )
    plan.add_argument("--power", type=float, default=0.8, help="probability required")
    plan.add_argument(
        "--confidence", type=float, default=0.95, metavar="C", help="confidence level"
    )
    plan.add_argument("--seed", type=int, default=0, help="seed of the simulation")
    plan.add_argument("--replicates", type=int, default=1000, help="simulated rounds per size")
    plan.add_argument("--max-items", type=int, default=100_000, help="largest size tried")
    plan.add_argument(
        "--categories",
        metavar="A:P,B:Q",
        help="no pilot: the category distribution (default: none)",
    )
    plan.add_argument(
        "--alpha", type=float, help="no pilot: the assumed population alpha (default: none)"
    )
    plan.add_argument(
        "--agreement", type=float, help="no pilot: the assumed agreement rate (default: none)"
    )
    plan.add_argument("--coders", type=int, default=2, help="no pilot: coders per item")
    plan.add_argument(
        "--pilot-uncertainty",
        choices=("lower-bound", "bootstrap", "none"),
        default="lower-bound",
        help="from a pilot: plan on its one-sided 80%% lower bound (lower-bound), average over "
        "its bootstrap distribution (bootstrap), or take it as the truth (none); default "
        "lower-bound",
    )
    plan.add_argument("--json", action="store_true", help="print the JSON contract")


def _parse_categories(text: str) -> dict[Hashable, float]:
    categories: dict[Hashable, float] = {}
    for part in text.split(","):
        label, colon, share = part.strip().rpartition(":")
        if not colon or not label:
            raise InputError(f"--categories: expected label:probability, got {part.strip()!r}.")
        if label in categories:
            raise InputError(f"--categories: {label!r} appears twice.")
        try:
            categories[label] = float(share)
        except ValueError:
            raise InputError(f"--categories: {share!r} is not a number (for {label!r}).") from None
    return categories


def _plan_decompose(key: str, n_coders: int, distance: Any) -> Any:
    from metrics.report import coefficient_specs

    for spec in coefficient_specs(n_coders, distance is not None):
        if spec.key == key:
            options = {"distance": distance} if spec.weighted and distance is not None else {}
            return lambda data: spec.decompose(data, **options)
    keys = ", ".join(s.key for s in coefficient_specs(n_coders, distance is not None))
    raise InputError(f"--coefficient {key!r} is not one of {keys}.")


def _plan_run(args: argparse.Namespace) -> Any:
    from metrics.planning import plan_items, plan_without_pilot
    from metrics.report import report_distance

    common = {
        "target": args.target,
        "power": args.power,
        "confidence": args.confidence,
        "replicates": args.replicates,
        "seed": args.seed,
        "max_items": args.max_items,
    }
    model = (args.categories, args.alpha, args.agreement)
    if args.file is None:
        if args.categories is None:
            raise InputError("plan needs a pilot FILE or --categories with --alpha or --agreement.")
        if args.level != "nominal" or args.distance or args.domain:
            raise InputError(
                "Without a pilot the model is nominal: drop --level/--distance/--domain."
            )
        decompose = _plan_decompose(args.coefficient, args.coders, None)
        return plan_without_pilot(
            _parse_categories(args.categories),
            decompose=decompose,
            alpha=args.alpha,
            agreement=args.agreement,
            coders=args.coders,
            **common,
        )
    if any(value is not None for value in model):
        raise InputError("--categories, --alpha and --agreement are for planning without a pilot.")
    domain = None if args.domain is None else [v.strip() for v in args.domain.split(",")]
    data = read_annotations(args.file, level=args.level, domain=domain)
    distance = report_distance(args.level, args.distance)
    decompose = _plan_decompose(args.coefficient, data.n_coders, distance)
    return plan_items(decompose(data), pilot_uncertainty=args.pilot_uncertainty, **common)


_UNCERTAINTY_TEXT = {
    "lower-bound": "planned on its one-sided 80% lower bound",
    "bootstrap": "averaged over its bootstrap distribution",
    "none": "not carried (taken as the truth)",
}


def _plan_main(args: argparse.Namespace) -> int:
    """``plan``: print the plan, or exit 2 with the reason."""
    try:
        result = _plan_run(args)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
        return 0
    print(
        f"{result.n_items} items: the {result.confidence:.0%} lower bound of {args.coefficient} "
        f"reaches {result.target} with probability {result.probability:.3f} "
        f"(required {result.power}; {args.coefficient} of the {result.source} "
        f"{result.estimate:.4f}; {result.replicates} simulated rounds per size, seed {result.seed})"
    )
    carried = (
        f"the pilot's uncertainty: {_UNCERTAINTY_TEXT[result.pilot_uncertainty]}"
        if result.source == "pilot"
        else "the model's assumed values are taken as the truth"
    )
    print(
        "Each simulated round's lower bound: the report's BCa interval (its analytic ABC "
        f"form); {carried}."
    )
    print(f"{'items':>8}  probability")
    for n, probability in result.curve:
        print(f"{n:>8}  {probability:.3f}")
    return 0
