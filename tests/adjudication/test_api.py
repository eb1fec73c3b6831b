"""The adjudication API: adjudications (members read, managers decide), the round's gold
coder, the stored results and each coder's history; 4xx answers name the field."""

from __future__ import annotations

from typing import Any

import pytest

from adjudication.models import Adjudication

pytestmark = pytest.mark.django_db


def base(study: Any) -> str:
    return f"/api/v1/studies/{study.pk}"


def adjudicate(client: Any, study: Any, **body: Any) -> Any:
    body = {"round": "Round 1", "question": "sentiment", **body}
    return client.post(f"{base(study)}/adjudications/", body, format="json")


def test_managers_adjudicate_members_read(
    study: Any,
    gold_round: dict[str, Any],
    manager_client: Any,
    annotator_client: Any,
    viewer_client: Any,
    outsider_client: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    assert adjudicate(annotator_client, study, item="u2", label="b").status_code == 403
    with django_capture_on_commit_callbacks(execute=True):
        response = adjudicate(manager_client, study, item="u2", coder="c2", note="b, clearly")
    assert response.status_code == 201, response.content
    body = response.json()
    assert {k: body[k] for k in ("round", "question", "item", "label", "value", "source", "coder",
                                 "note", "created_by", "is_current")} == {
        "round": "Round 1", "question": "sentiment", "item": "u2", "label": "b", "value": "b",
        "source": "coder", "coder": "c2", "note": "b, clearly", "created_by": "manager_a",
        "is_current": True,
    }  # fmt: skip
    listed = viewer_client.get(f"{base(study)}/adjudications/", {"question": "sentiment"})
    assert listed.status_code == 200
    assert [(r["item"], r["label"]) for r in listed.json()["results"]] == [("u2", "b")]
    assert outsider_client.get(f"{base(study)}/adjudications/").status_code == 404


def test_adjudicating_again_supersedes_and_the_history_lists_both(
    study: Any, gold_round: dict[str, Any], manager_client: Any
) -> None:
    first = adjudicate(manager_client, study, item="u4", label="c", note="first").json()
    url = f"{base(study)}/adjudications/{first['id']}/"
    again = manager_client.patch(url, {"label": "a", "note": "second"}, format="json")
    assert again.status_code == 200, again.content
    assert (again.json()["label"], again.json()["source"], again.json()["id"] != first["id"]) == (
        "a", "entered", True,
    )  # fmt: skip
    current = manager_client.get(f"{base(study)}/adjudications/").json()["results"]
    assert [(r["item"], r["label"], r["note"]) for r in current] == [("u4", "a", "second")]
    history = manager_client.get(f"{base(study)}/adjudications/", {"current": "false"})
    assert [(r["label"], r["is_current"]) for r in history.json()["results"]] == [
        ("a", True),
        ("c", False),
    ]
    assert manager_client.get(url).json()["superseded_at"] is not None


def errors(response: Any) -> list[tuple[str, str]]:
    return [(e["attr"], e["detail"]) for e in response.json()["errors"]]


def test_bad_input_is_a_400_naming_the_field(
    study: Any, gold_round: dict[str, Any], manager_client: Any
) -> None:
    both = adjudicate(manager_client, study, item="u1", label="a", coder="c1")
    assert both.status_code == 400
    assert errors(both) == [
        ("label", "Give either a label or the coder whose label to take, not both.")
    ]
    neither = adjudicate(manager_client, study, item="u1")
    assert errors(neither) == [
        ("label", "Give the reference label, or the coder whose label to take.")
    ]
    unknown_item = adjudicate(manager_client, study, item="nope", label="a")
    assert errors(unknown_item) == [("item", "No item 'nope' in this study.")]
    unknown_coder = adjudicate(manager_client, study, item="u1", coder="zed")
    assert errors(unknown_coder) == [("coder", "No coder 'zed' in this study.")]
    bad_label = adjudicate(manager_client, study, item="u1", label="z")
    assert bad_label.status_code == 400
    assert bad_label.json()["errors"] == [
        {
            "code": "unknown_category",
            "detail": "'z' is not a category of this question (declared: 'a', 'b', 'c').",
            "attr": "label",
        }
    ]
    as_set = adjudicate(manager_client, study, item="u1", label=["a"])
    assert errors(as_set) == [("label", "This question takes one category, not a set.")]
    missing_round = manager_client.post(
        f"{base(study)}/adjudications/", {"question": "sentiment", "item": "u1", "label": "a"},
        format="json",
    )  # fmt: skip
    assert errors(missing_round) == [("round", "This field is required.")]
    bad_filter = manager_client.get(f"{base(study)}/adjudications/", {"source": "oracle"})
    assert bad_filter.status_code == 400
    assert errors(bad_filter)[0][0] == "source"
    assert Adjudication.objects.count() == 0


def test_the_gold_coder_and_the_stored_results(
    study: Any,
    gold_round: dict[str, Any],
    manager_client: Any,
    viewer_client: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    round_ = gold_round["round"]
    url = f"{base(study)}/round-references/{round_.pk}/"
    assert viewer_client.get(url).json() == {
        "round": "Round 1", "round_id": round_.pk, "gold_coder": None, "updated_at": None,
    }  # fmt: skip
    assert viewer_client.patch(url, {"gold_coder": "g"}, format="json").status_code == 403
    with django_capture_on_commit_callbacks(execute=True):
        response = manager_client.patch(url, {"gold_coder": "g"}, format="json")
    assert response.status_code == 200
    assert response.json()["gold_coder"] == "g"
    assert errors(manager_client.patch(url, {"gold_coder": "zed"}, format="json")) == [
        ("gold_coder", "No coder 'zed' in this study.")
    ]
    results = viewer_client.get(f"{base(study)}/reference-results/", {"round": "Round 1"})
    assert results.status_code == 200
    (row,) = results.json()["results"]
    assert (row["question"], row["status"], row["results"]["gold_coder"]) == (
        "sentiment", "done", "g",
    )  # fmt: skip
    history = viewer_client.get(
        f"{base(study)}/reference-results/history/", {"question": "sentiment", "coder": "c1"}
    )
    assert [(r["round"], r["coder"], r["accuracy"]["value"]) for r in history.json()] == [
        ("Round 1", "c1", 0.5)
    ]
    no_question = viewer_client.get(f"{base(study)}/reference-results/history/")
    assert errors(no_question) == [("question", "This field is required.")]
    with django_capture_on_commit_callbacks(execute=True):
        cleared = manager_client.patch(url, {"gold_coder": None}, format="json")
    assert cleared.json()["gold_coder"] is None
    assert viewer_client.get(f"{base(study)}/round-references/").json()["results"] == []
