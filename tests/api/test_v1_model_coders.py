"""Model coders over the API: a coder's kind, model name, version and prompt version, and the
versions recorded per round; every refusal a 400 naming the field."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from studies.models import Coder, CoderKind, ModelCoderRound, Role, Study
from studies.services.roster import model_round_versions_record
from tests.factories import CoderFactory, MembershipFactory, RoundFactory, UserFactory

pytestmark = pytest.mark.django_db


def url(study: Study, *rest: Any) -> str:
    tail = "".join(f"{part}/" for part in rest)
    return f"/api/v1/studies/{study.pk}/coders/{tail}"


def errors(response: Any) -> list[tuple[str, str | None, str]]:
    return [(e["code"], e["attr"], e["detail"]) for e in response.json()["errors"]]


def test_an_annotator_registers_a_model_coder(annotator_client: APIClient, study: Study) -> None:
    body = {
        "key": "gpt",
        "kind": "model",
        "model_name": "gpt-4o",
        "model_version": "2024-08-06",
        "prompt_version": "v1",
    }
    response = annotator_client.post(url(study), body, format="json")
    assert response.status_code == 201, response.json()
    data = response.json()
    assert {key: data[key] for key in body} == body
    assert data["username"] is None
    coder = Coder.objects.get(study=study, key="gpt")
    assert coder.is_model
    assert (coder.model_name, coder.model_version, coder.prompt_version) == (
        "gpt-4o",
        "2024-08-06",
        "v1",
    )


def test_a_person_is_the_default_kind(annotator_client: APIClient, study: Study) -> None:
    response = annotator_client.post(url(study), {"key": "ann"}, format="json")
    assert response.status_code == 201
    assert response.json()["kind"] == "person"
    assert response.json()["model_name"] == ""


def test_a_model_without_its_name_is_a_400_naming_model_name(
    annotator_client: APIClient, study: Study
) -> None:
    response = annotator_client.post(url(study), {"key": "m", "kind": "model"}, format="json")
    assert response.status_code == 400
    assert errors(response) == [
        ("invalid", "model_name", "A model coder needs the model's name (model_name).")
    ]
    assert not Coder.objects.exists()


def test_a_person_with_model_fields_is_a_400_naming_each(
    annotator_client: APIClient, study: Study
) -> None:
    response = annotator_client.post(
        url(study), {"key": "p", "model_name": "gpt", "prompt_version": "v1"}, format="json"
    )
    assert response.status_code == 400
    assert errors(response) == [
        ("invalid", "model_name", "Only model coders (kind model) have a model name."),
        ("invalid", "prompt_version", "Only model coders (kind model) have a prompt version."),
    ]


def test_an_unknown_kind_is_a_400(annotator_client: APIClient, study: Study) -> None:
    response = annotator_client.post(url(study), {"key": "x", "kind": "robot"}, format="json")
    assert response.status_code == 400
    assert errors(response)[0][:2] == ("invalid_choice", "kind")


def test_a_model_cannot_be_linked_to_a_user(manager_client: APIClient, study: Study) -> None:
    MembershipFactory(study=study, user=UserFactory(username="carol"), role=Role.VIEWER)
    response = manager_client.post(
        url(study),
        {"key": "m", "kind": "model", "model_name": "gpt", "username": "carol"},
        format="json",
    )
    assert response.status_code == 400
    assert errors(response) == [
        (
            "model_linked",
            "username",
            "A model coder cannot be linked to a user account: only people are.",
        )
    ]


def test_bulk_names_the_entry_and_field(annotator_client: APIClient, study: Study) -> None:
    response = annotator_client.post(
        url(study, "bulk"),
        [{"key": "a", "kind": "model", "model_name": "m"}, {"key": "b", "kind": "model"}],
        format="json",
    )
    assert response.status_code == 400
    assert [(code, attr) for code, attr, _ in errors(response)] == [("invalid", "1.model_name")]


def test_a_prompt_version_change_keeps_the_rounds_already_recorded(
    annotator_client: APIClient, study: Study
) -> None:
    model = CoderFactory(
        study=study, key="m", kind=CoderKind.MODEL, model_name="gpt", prompt_version="v1"
    )
    first = RoundFactory(study=study, name="R1", position=1)
    second = RoundFactory(study=study, name="R2", position=2)
    model_round_versions_record(round_ids=[first.pk], coder_ids=[model.pk])
    response = annotator_client.patch(url(study, model.pk), {"prompt_version": "v2"}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["prompt_version"] == "v2"
    model_round_versions_record(round_ids=[first.pk, second.pk], coder_ids=[model.pk])
    response = annotator_client.get(url(study, model.pk, "versions"))
    assert response.status_code == 200
    assert [(v["round_name"], v["prompt_version"]) for v in response.json()] == [
        ("R1", "v1"),
        ("R2", "v2"),
    ]


def test_a_rounds_versions_are_set_by_round_name(annotator_client: APIClient, study: Study) -> None:
    model = CoderFactory(
        study=study, key="m", kind=CoderKind.MODEL, model_name="gpt", model_version="a"
    )
    RoundFactory(study=study, name="Pilot", position=1)
    response = annotator_client.post(
        url(study, model.pk, "versions"), {"round": "Pilot", "prompt_version": "v3"}, format="json"
    )
    assert response.status_code == 200, response.json()
    assert response.json()["round_name"] == "Pilot"
    assert response.json()["model_version"] == "a"
    assert response.json()["prompt_version"] == "v3"
    assert ModelCoderRound.objects.get(coder=model).prompt_version == "v3"


def test_a_persons_versions_are_a_400_naming_coder(
    annotator_client: APIClient, study: Study
) -> None:
    person = CoderFactory(study=study, key="p")
    round_ = RoundFactory(study=study, name="R1", position=1)
    response = annotator_client.post(
        url(study, person.pk, "versions"), {"round": round_.pk}, format="json"
    )
    assert response.status_code == 400
    assert errors(response) == [
        (
            "not_a_model",
            "coder",
            "Only model coders (kind model) have a model and prompt version per round.",
        )
    ]
    missing = annotator_client.post(
        url(study, person.pk, "versions"), {"round": "nope"}, format="json"
    )
    assert errors(missing) == [("invalid", "round", "No such round in this study.")]


def test_coders_are_filtered_by_kind(viewer_client: APIClient, study: Study) -> None:
    CoderFactory(study=study, key="p")
    CoderFactory(study=study, key="m", kind=CoderKind.MODEL, model_name="gpt")
    response = viewer_client.get(url(study), {"kind": "model"})
    assert [c["key"] for c in response.json()["results"]] == ["m"]
