"""Screenshots of the round report of every label kind, at 1400 px and at 390 px: no text
overlaps another or is clipped (``screens.assert_no_overlap_or_clip``) and the report's
heading and headline coefficient read as written here.

Each kind's question, items and values are the contract suite's (``tests/kinds/cases.py``):
alice and bob give every item the same value; a third coder, cyd, gives d1 the value the
others give d2, so the tables have a disagreement to show.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from studies.kinds import KINDS
from studies.models import Question, Study
from tests.browser.screens import check_page, sign_in
from tests.factories import CoderFactory
from tests.kinds.cases import CASES, CODERS, ITEMS, agreed_rows, upload
from tests.kinds.conftest import declare

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ALPHA = "Krippendorff's alpha"
MATCHED = "Matched alpha, mean over images (Tschirschwitz et al.)"
#: The headline coefficient's row of each kind's report, as the page shows it.
HEADLINE_ROW = {
    "nominal": ALPHA,
    "ordinal": ALPHA,
    "interval": ALPHA,
    "ratio": ALPHA,
    "set": ALPHA,
    "hierarchy": ALPHA,
    "span": "Unitizing alpha (αᵤ)",
    "box": MATCHED,
    "polygon": MATCHED,
    "keypoint": MATCHED,
    "text": "Krippendorff's alpha, text distance",
    "ranking": "Krippendorff's alpha, Kendall tau distance",
    "preference": "Krippendorff's alpha on the choice (nominal)",
    "relation": "Relation F1, exact (head, tail, label)",
}


def _with_a_third_coder(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """alice's rows again as cyd's, except that cyd's d1 is alice's d2."""
    item_field = next(f for f in ("item", "image", "document") if f in rows[0])
    mine = [row for row in rows if row["coder"] == CODERS[0]]
    cyd = [{**row, "coder": "cyd"} for row in mine if row[item_field] != ITEMS[0]] + [
        {**row, "coder": "cyd", item_field: ITEMS[0]} for row in mine if row[item_field] == ITEMS[1]
    ]
    return rows + cyd


#: Every row of the span report's coefficients table, as the page shows it.
SPAN_ROWS = (
    "Unitizing alpha (αᵤ)",
    "Span F1, exact match",
    "Span F1, overlapping match",
    "Token-level alpha",
    "Pₖ",
    "WindowDiff",
)


#: Category codes the cases declare: the user's own words, shown as the user wrote them.
DECLARED_CODES = {"works_for"}


@pytest.mark.parametrize("key", sorted(KINDS))
def test_the_round_report_of_every_kind_reads_cleanly_wide_and_narrow(
    key: str,
    study: Study,
    manager: Any,
    manager_client: APIClient,
    live_server: Any,
    chromium_driver: Any,
    tmp_path: Path,
    django_capture_on_commit_callbacks: Any,
) -> None:
    case = CASES[key]
    declare(study, manager_client, case)
    CoderFactory(study=study, key="cyd")
    response = upload(manager_client, study, case, _with_a_third_coder(agreed_rows(case)))
    assert response.status_code == 200, response.json()
    question = Question.objects.get(study=study, key="q")
    round_ = study.rounds.get(name="Round 1")
    with django_capture_on_commit_callbacks(execute=True):
        posted = manager_client.post(
            f"/api/v1/studies/{study.pk}/computations/",
            {"question": question.pk, "round": round_.pk, "bootstrap": 50},
            format="json",
        )
    assert posted.status_code == 202, posted.json()
    assert manager_client.get(posted.json()["url"]).json()["status"] == "done"

    sign_in(chromium_driver, live_server.url, manager)
    texts = check_page(
        chromium_driver,
        live_server.url,
        f"/studies/{study.pk}/rounds/{round_.pk}/?question=q",
        tmp_path,
        f"round-report-{key}",
    )
    for text in texts.values():
        assert "Round report: Round 1, question q" in text
        # Once, "P_k" named a row and raw keys ("alpha_u") headed the skipped coefficients.
        words = re.findall(r"\b[A-Za-z]+_[A-Za-z_]+\b", text)
        assert [word for word in words if word not in DECLARED_CODES] == []
        if key == "span":
            for row in SPAN_ROWS:
                assert any(line.startswith(row + " ") for line in text.splitlines()), row
        assert HEADLINE_ROW[key] in text.splitlines() or any(
            line.startswith(HEADLINE_ROW[key] + " ") for line in text.splitlines()
        )
