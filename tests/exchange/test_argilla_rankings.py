"""Argilla ranking responses (``exchange.formats.argilla``) into a ranking question, and
what is refused or skipped.

The records are in the shape Argilla's SDK writes (``records.to_json``: ``responses`` maps a
question to ``[{"value", "user_id", "status"}]``; a ranking response's value is a list of
``{"value", "rank"}``, the shape of Argilla's own ranking suggestion example). The data are
the rankings of the Label Studio case (docs/references.md#label-studio-structured-export):
three records, three users; Kendall's W 7/9, 7/9, 1/9 by hand, mean 5/9.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from exchange.formats.argilla import parse
from exchange.formats.base import ParseOptions
from studies.models import Study
from tests.factories import RoundFactory

ORDERS = {
    "r1": {"alice": "abc", "bob": "abc", "carol": "acb"},
    "r2": {"alice": "bac", "bob": "bca", "carol": "bac"},
    "r3": {"alice": "cba", "bob": "abc", "carol": "cab"},
}


def _response(user: str, order: str, status: str = "submitted") -> dict[str, Any]:
    return {
        "value": [{"value": option, "rank": rank} for rank, option in enumerate(order, 1)],
        "user_id": user,
        "status": status,
    }


def _records() -> list[dict[str, Any]]:
    return [
        {
            "id": record,
            "_server_id": f"0000-{record}",
            "fields": {"prompt": "Which answer helps most?"},
            "metadata": {},
            "suggestions": {},
            "vectors": {},
            "status": "completed",
            "responses": {
                "preference": [_response(user, order) for user, order in users.items()]
                + [_response("dora", "cab", status="draft")]
            },
        }
        for record, users in ORDERS.items()
    ]


def test_ranking_responses_are_rows_of_option_and_rank() -> None:
    parsed = parse(json.dumps(_records()[:1]).encode(), ParseOptions())
    assert parsed.rejected == []
    assert parsed.skipped == {"draft response": 1}
    assert [(r.image, r.coder, r.kind, r.field, r.cells) for r in parsed.regions[:3]] == [
        ("r1", "alice", "ranking", "preference", {"option": "a", "rank": 1}),
        ("r1", "alice", "ranking", "preference", {"option": "b", "rank": 2}),
        ("r1", "alice", "ranking", "preference", {"option": "c", "rank": 3}),
    ]


def test_json_lines_and_the_older_feedback_layout_are_read() -> None:
    record = {
        "id": 9,
        "responses": [
            {
                "user_id": "u-1",
                "status": "submitted",
                "values": {
                    "order": {"value": [{"value": "x", "rank": 2}, {"value": "y", "rank": 1}]}
                },
            }
        ],
    }
    data = (json.dumps(record) + "\n" + json.dumps({**record, "id": 10}) + "\n").encode()
    parsed = parse(data, ParseOptions())
    assert [(r.image, r.coder, r.cells) for r in parsed.regions] == [
        ("9", "u-1", {"option": "x", "rank": 2}),
        ("9", "u-1", {"option": "y", "rank": 1}),
        ("10", "u-1", {"option": "x", "rank": 2}),
        ("10", "u-1", {"option": "y", "rank": 1}),
    ]


def test_a_response_that_is_no_ranking_is_rejected_naming_its_question() -> None:
    record = {"id": "r9", "responses": {"label": [{"value": "good", "user_id": "u"}]}}
    parsed = parse(json.dumps([record]).encode(), ParseOptions())
    assert [(r.source, r.field, r.code, r.tool_field) for r in parsed.rejected] == [
        ("record r9, label", "value", "unsupported_type", "label")
    ]
    assert parsed.rejected[0].detail.endswith('map it to null: "question_map": {"label": null}.')


@pytest.mark.django_db
def test_an_argilla_export_computes_kendalls_w(
    study: Study, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    RoundFactory(study=study, name="Round 1", position=1)
    created = manager_client.post(
        f"/api/v1/studies/{study.pk}/questions/",
        {"key": "preference", "kind": "ranking"},
        format="json",
    )
    assert created.status_code == 201, created.json()
    imported = manager_client.post(
        f"/api/v1/studies/{study.pk}/imports/",
        {
            "file": SimpleUploadedFile("records.json", json.dumps(_records()).encode()),
            "format": "argilla",
            "round": "Round 1",
            "create_missing": "true",
        },
        format="multipart",
    )
    assert imported.status_code == 200, imported.json()
    assert imported.json()["skipped"] == {"draft response": 3}
    with django_capture_on_commit_callbacks(execute=True):
        posted = manager_client.post(
            f"/api/v1/studies/{study.pk}/computations/",
            {"question": "preference", "round": "Round 1", "bootstrap": 0},
            format="json",
        )
    assert posted.status_code == 202, posted.json()
    done = manager_client.get(posted["Location"]).json()
    assert done["status"] == "done", done.get("error")
    w = done["results"]["coefficients"]["kendall_w"]
    assert w["value"] == pytest.approx(5 / 9, abs=1e-12)
    assert [e["value"] for e in w["items"]] == pytest.approx([7 / 9, 7 / 9, 1 / 9])
