"""From three tools' span exports to the round report, as a team would go: import a Label
Studio, a doccano and a Prodigy export of the same documents into three rounds of one span
question, compute each round on the (eager) worker, and read the round report, the document
view and the history. Two more rounds, uploaded as CSV: in round 4 bob marks exactly what alice
marks (every measure is 1), in round 5 he skips two of her entities, and every measure drops
(with exact-offset items, as imports worked before, the skipped entities were unpairable and
dropped, so the agreement stayed 1).

The documents and units are those of ``test_v1_span_imports.EXPECTED`` (bob nests an ORG
inside another on d3). Exact span F1 by hand, pooled over the one coder pair: alice marks 7
units, bob 6; the identical units are d1 PER 0-13, d3 ORG 0-5, ORG 10-16 and LOC 35-41, so
F1 = 2·4 / (7 + 6) = 8/13 = 0.615. In round 5 bob marks alice's units but d1 LOC 33-39 and
d3 LOC 46-51: F1 = 2·5 / (7 + 5) = 10/12 = 0.833.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from studies.models import Item, Question, Round
from tests.exchange.conftest import ImportStudy
from tests.exchange.test_v1_span_imports import (
    LABEL_STUDIO_CODERS,
    PRODIGY_CODERS,
    doccano_zip,
    post,
)
from tests.factories import RoundFactory

pytestmark = pytest.mark.django_db

F1_EXACT = 8 / 13
F1_EXACT_BOB_SKIPS = 10 / 12

ALICE = [
    ("d1", 0, 13, "PER"), ("d1", 22, 29, "ORG"), ("d1", 33, 39, "LOC"), ("d2", None, None, None),
    ("d3", 0, 5, "ORG"), ("d3", 10, 16, "ORG"), ("d3", 35, 41, "LOC"), ("d3", 46, 51, "LOC"),
]  # fmt: skip
SKIPPED_BY_BOB = {("d1", 33, 39, "LOC"), ("d3", 46, 51, "LOC")}


def units_csv(bob_skips: set[tuple[Any, ...]]) -> str:
    lines = ["document,coder,begin,end,label"]
    for coder in ("alice", "bob"):
        for unit in ALICE:
            if coder == "bob" and unit in bob_skips:
                continue
            lines.append(
                ",".join([unit[0], coder, *("" if v is None else str(v) for v in unit[1:])])
            )
    return "\n".join(lines) + "\n"


def compute(client: APIClient, study_pk: int, round_name: str, on_commit: Any) -> dict[str, Any]:
    with on_commit(execute=True):  # the eager worker runs when the request commits
        response = client.post(
            f"/api/v1/studies/{study_pk}/computations/",
            {"question": "mentions", "round": round_name, "bootstrap": 200, "seed": 4,
             "overlapping": "merge"},
            format="json",
        )  # fmt: skip
    assert response.status_code == 202, response.json()
    result = client.get(response["Location"]).json()
    assert result["status"] == "done", result.get("error")
    return result


def test_three_tools_exports_compute_report_and_track_span_agreement(
    annotator_client: APIClient,
    manager_client: APIClient,
    manager: Any,
    target: ImportStudy,
    mentions: Question,
    django_capture_on_commit_callbacks: Any,
) -> None:
    study_pk = target.study.pk
    for position, name in ((2, "Round 2"), (3, "Round 3"), (4, "Round 4"), (5, "Round 5")):
        RoundFactory(study=target.study, name=name, position=position)
    imports = [
        ("Round 1", "label_studio_ner.json", None, "label_studio", LABEL_STUDIO_CODERS),
        ("Round 2", "doccano_ner.zip", doccano_zip(), "doccano", None),
        ("Round 3", "prodigy_ner.jsonl", None, "prodigy", PRODIGY_CODERS),
    ]
    for round_name, name, data, file_format, coders in imports:
        # The people's units only: the Label Studio file's model prediction would be a
        # third (model) coder the other tools' files do not have.
        extra = {"coder_map": coders, "predictions": "false"} if coders else {}
        response = post(
            annotator_client, target, name, data, format=file_format, question="mentions",
            document_key="doc", round=round_name, **extra,
        )  # fmt: skip
        assert response.status_code == 200, response.json()
    for round_number, skips in ((4, set()), (5, SKIPPED_BY_BOB)):
        upload = annotator_client.post(
            f"/api/v1/studies/{study_pk}/annotations/spans/"
            f"?round=Round%20{round_number}&question=mentions",
            units_csv(skips),
            content_type="text/csv",
        )
        assert upload.status_code in (200, 201), upload.json()

    results = [
        compute(manager_client, study_pk, name, django_capture_on_commit_callbacks)
        for name in ("Round 1", "Round 2", "Round 3", "Round 4", "Round 5")
    ]
    coefficients = [result["results"]["coefficients"] for result in results]
    # The same documents from three tools: the same numbers.
    for got in coefficients[:3]:
        assert got["span_f1"]["value"] == pytest.approx(F1_EXACT)
        assert got["alpha_u"]["value"] == pytest.approx(coefficients[0]["alpha_u"]["value"])
        for key in ("alpha_u", "span_f1", "span_f1_overlap", "token_alpha"):
            ci = got[key]["ci"]
            assert ci["low"] <= got[key]["value"] <= ci["high"], key
            assert (ci["confidence"], ci["replicates"]) == (0.95, 200)
    # Bob marking what alice marks agrees perfectly; bob skipping two entities lowers it.
    same, skipped = coefficients[3], coefficients[4]
    for key in ("alpha_u", "span_f1", "span_f1_overlap", "token_alpha"):
        assert same[key]["value"] == pytest.approx(1.0), key
        assert skipped[key]["value"] < 1.0, key
    assert skipped["span_f1"]["value"] == pytest.approx(F1_EXACT_BOB_SKIPS)
    assert skipped["span_f1_overlap"]["value"] == pytest.approx(F1_EXACT_BOB_SKIPS)

    # The history lists the five computed rounds in order with their alpha_U.
    history = manager_client.get(f"/api/v1/studies/{study_pk}/history/").json()
    (entry,) = [q for q in history["questions"] if q["question_key"] == "mentions"]
    computed = [r for r in entry["rounds"] if r["computation"] is not None]
    assert [r["round_name"] for r in computed] == [
        "Round 1", "Round 2", "Round 3", "Round 4", "Round 5",
    ]  # fmt: skip
    assert [r["coefficients"]["alpha_u"]["value"] for r in computed] == [
        c["alpha_u"]["value"] for c in coefficients
    ]

    # The round report and the document view, as a member reads them.
    manager_client.force_login(manager)
    round_5 = Round.objects.get(study=target.study, name="Round 5")
    page = manager_client.get(
        reverse("pages:round-report", args=[study_pk, round_5.pk]) + f"?question={mentions.pk}"
    ).content.decode()
    assert "0.833" in page  # span F1 of round 5
    assert "Unitizing alpha" in page or "α_U" in page or "alpha_U" in page
    d3 = Item.objects.get(study=target.study, external_id="d3")
    document = manager_client.get(
        reverse("pages:span-document", args=[study_pk, round_5.pk, mentions.pk, d3.pk])
    ).content.decode()
    # alice's "Paris" (46-51), which bob skipped, is marked on her lane and on the disputes.
    assert 'title="LOC (46–51): unmatched">Paris' in document
    assert 'title="coders differ on 46–51">Paris</mark>' in document
    assert '<tr data-coder="bob"><th scope="row">bob</th>' in document
