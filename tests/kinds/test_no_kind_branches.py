"""The apps ask a question's kind; they do not branch on it. Any ``LabelKind.<X>`` used
other than as a keyword argument (``kind=LabelKind.SPAN`` creates a question), and any
``<...>.kind == "<key>"`` comparison, outside the kind modules is listed and fails."""

from __future__ import annotations

import ast
from pathlib import Path

from studies.kinds import KINDS
from studies.models import LabelKind

ROOT = Path(__file__).resolve().parents[2]
#: Not the server's apps: the tests, the benchmarks, the numeric library, migrations.
SKIPPED = ("tests", "benchmarks", "metrics", ".venv", "build", "docs")
KIND_MODULES = ROOT / "studies" / "kinds"


def _app_sources() -> list[Path]:
    return [
        path
        for path in ROOT.rglob("*.py")
        if path.relative_to(ROOT).parts[0] not in SKIPPED
        and "migrations" not in path.parts
        and not path.is_relative_to(KIND_MODULES)
        and not path.relative_to(ROOT).parts[0].startswith(".")
    ]


def _branches(tree: ast.AST) -> list[int]:
    members = set(LabelKind.names)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    lines = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "LabelKind"
            and node.attr in members
            and not isinstance(parents.get(node), ast.keyword)
        ):
            lines.append(node.lineno)
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            kind_side = any(isinstance(s, ast.Attribute) and s.attr == "kind" for s in sides)
            key_side = any(isinstance(s, ast.Constant) and s.value in KINDS for s in sides)
            if kind_side and key_side:
                lines.append(node.lineno)
    return lines


def test_the_checker_finds_a_branch() -> None:
    source = (
        "if question.kind == LabelKind.SPAN: pass\n"
        "x = {LabelKind.SET: 1}\n"
        "if q.kind != 'nominal': pass\n"
        "Question(kind=LabelKind.NOMINAL)\n"
    )
    assert sorted(_branches(ast.parse(source))) == [1, 2, 3]


def test_no_app_module_branches_on_a_label_kind() -> None:
    found = {
        f"{path.relative_to(ROOT)}:{line}"
        for path in _app_sources()
        for line in _branches(ast.parse(path.read_text(), filename=str(path)))
    }
    assert sorted(found) == []
