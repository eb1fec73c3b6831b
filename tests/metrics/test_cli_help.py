"""``python -m metrics --help`` and each command's ``--help``: plain text (no
reStructuredText markup) and every option that takes a value shows its default."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

import pytest

from metrics.cli import _parser
from metrics.cli_help import HelpFormatter

COMMANDS = ("report", "plan", "alt-test", "ppi")


def help_text(*args: str) -> str:
    env = {**os.environ, "COLUMNS": "100"}
    result = subprocess.run(
        [sys.executable, "-m", "metrics", *args, "--help"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert result.stderr == ""
    return result.stdout


def flat(text: str) -> str:
    """The help with every run of spaces and line breaks as one space (wrapping aside)."""
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("args", [(), *((command,) for command in COMMANDS)])
def test_help_is_plain_text_within_the_terminal(args: tuple[str, ...]) -> None:
    text = help_text(*args)
    for markup in ("``", ":mod:", ":func:", ":class:", ":data:", ".. "):
        assert markup not in text
    assert max(len(line) for line in text.splitlines()) <= 100


def test_the_top_level_help_lists_the_commands_and_says_how_to_get_more() -> None:
    text = help_text()
    assert text.startswith("usage: python -m metrics [-h] COMMAND ...\n")
    assert "\ncommands:\n  COMMAND\n    report    every coefficient of an annotation file\n" in text
    assert (
        "\n    plan      how many items the next round needs for a lower bound to reach a target\n"
        in (text)
    )
    assert 'Run "python -m metrics COMMAND --help" for a command\'s options.' in text


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("report", "--confidence C confidence level of the intervals (default: 0.95)"),
        ("report", "--bootstrap N bootstrap replicates (0: none) (default: 0)"),
        ("report", "--seed SEED seed of the bootstrap (default: 0)"),
        (
            "report",
            "--iou-threshold T levels box and polygon: the IoU at which regions match "
            "(default: 0.5)",
        ),
        ("report", "--max-pairs N level text: most distance evaluations for D_e (default: "),
        ("plan", "--power POWER probability required (default: 0.8)"),
        ("plan", "--replicates REPLICATES simulated rounds per size (default: 1000)"),
        ("plan", "--max-items MAX_ITEMS largest size tried (default: 100000)"),
        ("alt-test", "--alpha ALPHA false discovery rate level (default: 0.05)"),
        ("alt-test", "--min-items N usable items a human needs to be tested (default: 30)"),
        ("ppi", "--confidence C confidence level (default: 0.95)"),
    ],
)
def test_an_option_shows_its_default(command: str, expected: str) -> None:
    assert expected in flat(help_text(command))


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("no commands")


def test_every_command_uses_the_plain_formatter() -> None:
    parser = _parser()
    assert parser.formatter_class is HelpFormatter
    commands = _subparsers(parser)
    assert sorted(commands) == sorted(COMMANDS)
    for command in commands.values():
        assert command.formatter_class is HelpFormatter


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_taking_a_value_states_its_default(command: str) -> None:
    parser = _subparsers(_parser())[command]
    formatter = parser._get_formatter()
    for action in parser._actions:
        if not action.option_strings or action.nargs == 0:
            continue  # positionals, and flags (off unless given)
        text = formatter._expand_help(action)
        assert "(default: " in text, f"{command} {action.option_strings[0]}: {text!r}"
        assert "(default: None)" not in text, f"{command} {action.option_strings[0]}"
