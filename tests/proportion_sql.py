"""Measures of the work a call does, for the tests of proportion (issue 25): statements and
rows, never seconds.

- ``statements(call)``: the SQL statements the call sent, as Django records them (with
  their parameters written in, so a statement's length grows with what it carries).
- ``plan_rows()``: on PostgreSQL, the rows each statement's plan nodes produced or
  filtered out (auto_explain's analysed plans, sent to this session as notices). A
  self-join that pairs every copy of a key with every other shows up as the square of the
  copies; a hash join or a grouping as their number.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext


def statements(call: Callable[[], Any]) -> list[str]:
    """The SQL of every statement ``call()`` sent, in order."""
    with CaptureQueriesContext(connection) as captured:
        call()
    return [query["sql"] for query in captured.captured_queries]


def _node_rows(node: dict[str, Any]) -> int:
    """Rows a plan node and its children produced (every loop) or filtered out."""
    rows = int(node.get("Actual Rows", 0)) * int(node.get("Actual Loops", 1) or 1)
    for removed in ("Rows Removed by Filter", "Rows Removed by Join Filter"):
        rows += int(node.get(removed, 0))
    return rows + sum(_node_rows(child) for child in node.get("Plans", []))


@contextmanager
def plan_rows() -> Iterator[list[int]]:
    """PostgreSQL only: yields a list that receives, per statement run in the block (nested
    ones included), the rows its plan's nodes handled. Skips the test where auto_explain
    cannot be loaded (it needs a superuser, as the local test server's ``postgres``)."""
    if connection.vendor != "postgresql":
        pytest.skip("plan rows are read from PostgreSQL's auto_explain")
    connection.ensure_connection()
    raw = connection.connection
    totals: list[int] = []

    def on_notice(diagnostic: Any) -> None:
        message = diagnostic.message_primary or ""
        if "plan:" in message:
            plan = json.loads(message.split("plan:", 1)[1])
            totals.append(_node_rows(plan["Plan"]))

    with connection.cursor() as cursor:
        try:
            cursor.execute("LOAD 'auto_explain'")
        except Exception as error:  # not installed, or not a superuser
            pytest.skip(f"auto_explain cannot be loaded: {error}")
        for name, value in (
            ("log_min_duration", "0"),
            ("log_analyze", "on"),
            ("log_timing", "off"),
            ("log_format", "json"),
            ("log_level", "notice"),
            ("log_nested_statements", "on"),
        ):
            cursor.execute(f"SET auto_explain.{name} = {value}")
    raw.add_notice_handler(on_notice)
    try:
        yield totals
    finally:
        raw.remove_notice_handler(on_notice)
        with connection.cursor() as cursor:
            cursor.execute("SET auto_explain.log_min_duration = -1")
