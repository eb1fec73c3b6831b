"""Input at the edge (issue 13, finding 4): every JSON body goes through one parser that
refuses deep nesting, text that is not UTF-8, lone surrogates and bodies over the size
limit, with the standard error body and never a 500."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import override_settings
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from agreement_server.api_urls import router
from studies.api import parsers
from studies.api.parsers import JsonInputError, load_json, nesting_depth
from studies.models import Annotation, Item, Study
from studies.text_rules import lone_surrogate_path
from tests.api.annotation_setup import Scheme, build_scheme, bulk_url

pytestmark = pytest.mark.django_db

DEEP = "[" * 100_000 + "]" * 100_000
TOO_DEEP = {
    "type": "client_error",
    "errors": [
        {
            "code": "too_deep",
            "detail": "The JSON nests arrays and objects deeper than 64 levels.",
            "attr": None,
        }
    ],
}


def post(
    client: APIClient, url: str, body: str | bytes, content_type: str = "application/json"
) -> Any:
    return client.post(url, data=body, content_type=content_type)


def items_url(study: Study) -> str:
    return f"/api/v1/studies/{study.pk}/items/"


def nested(levels: int) -> Any:
    """A list nested ``levels`` deep: ``nested(2) == [[]]``."""
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value


@pytest.fixture
def scheme(study: Study) -> Scheme:
    return build_scheme(study)


# --- nesting ---------------------------------------------------------------------------------


def test_a_study_nested_100000_deep_is_a_400_too_deep(manager_client: APIClient) -> None:
    response = post(manager_client, "/api/v1/studies/", DEEP)
    assert response.status_code == 400
    assert response.json() == TOO_DEEP
    assert Study.objects.count() == 1  # the fixture's study only


def test_a_bulk_upload_nested_100000_deep_is_a_400_too_deep(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    body = f'{{"round": {scheme.round.pk}, "question": "sentiment", "annotations": {DEEP}}}'
    response = post(annotator_client, bulk_url(scheme.study), body)
    assert response.status_code == 400
    assert response.json() == TOO_DEEP
    assert not Annotation.objects.exists()


def test_item_metadata_nested_100000_deep_is_a_400_too_deep(
    annotator_client: APIClient, study: Study
) -> None:
    body = '{"external_id": "doc-1", "metadata": {"a": ' + DEEP + "}}"
    response = post(annotator_client, items_url(study), body)
    assert response.status_code == 400
    assert response.json() == TOO_DEEP
    assert not Item.objects.exists()


def test_item_metadata_up_to_64_levels_in_all_is_accepted_and_65_refused(
    annotator_client: APIClient, study: Study
) -> None:
    # The body object is level 1, so metadata may nest 63 more levels.
    body = {"external_id": "doc-64", "metadata": {"a": nested(62)}}
    response = post(annotator_client, items_url(study), json.dumps(body))
    assert response.status_code == 201, response.json()
    assert Item.objects.get(external_id="doc-64").metadata == {"a": nested(62)}

    body = {"external_id": "doc-65", "metadata": {"a": nested(63)}}
    response = post(annotator_client, items_url(study), json.dumps(body))
    assert response.status_code == 400
    assert response.json() == TOO_DEEP


def test_brackets_inside_strings_do_not_count_as_nesting(
    annotator_client: APIClient, study: Study
) -> None:
    text = '[[[{{{ \\" ]]] \\\\' * 100
    body = json.dumps({"external_id": "doc-1", "text": text, "metadata": {"note": "[" * 500}})
    response = post(annotator_client, items_url(study), body)
    assert response.status_code == 201, response.json()
    assert Item.objects.get(external_id="doc-1").text == text


# --- text ------------------------------------------------------------------------------------


def test_a_lone_surrogate_in_a_study_name_is_a_400_on_the_name(manager_client: APIClient) -> None:
    response = post(manager_client, "/api/v1/studies/", '{"name": "Study \\ud800"}')
    assert response.status_code == 400
    assert response.json() == {
        "type": "validation_error",
        "errors": [
            {
                "code": "lone_surrogate",
                "detail": "A string in name holds a lone UTF-16 surrogate (such as \\ud800): "
                "text must be valid Unicode.",
                "attr": "name",
            }
        ],
    }
    assert Study.objects.count() == 1


def test_a_lone_surrogate_in_a_bulk_item_name_is_a_400_naming_the_row(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    body = (
        f'{{"round": {scheme.round.pk}, "question": "sentiment", "annotations": ['
        '{"item": "doc-1", "coder": "alice", "label": "pos"},'
        '{"item": "doc-\\udc00", "coder": "alice", "label": "pos"}]}'
    )
    response = post(annotator_client, bulk_url(scheme.study), body)
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert [(e["code"], e["attr"]) for e in errors] == [("lone_surrogate", "annotations.1.item")]
    assert not Annotation.objects.exists()


def test_a_lone_surrogate_in_a_metadata_key_is_a_400_naming_the_key(
    annotator_client: APIClient, study: Study
) -> None:
    body = '{"external_id": "doc-1", "metadata": {"ok": 1, "k\\uDBFF": 2}}'
    response = post(annotator_client, items_url(study), body)
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert [(e["code"], e["attr"]) for e in errors] == [("lone_surrogate", "metadata.k\\udbff")]
    assert not Item.objects.exists()


def test_a_surrogate_pair_is_one_character_and_accepted(manager_client: APIClient) -> None:
    response = post(manager_client, "/api/v1/studies/", '{"name": "Smile \\ud83d\\ude00"}')
    assert response.status_code == 201, response.json()
    assert response.json()["name"] == "Smile \U0001f600"


def test_a_body_that_is_not_utf8_is_a_400_naming_the_byte(manager_client: APIClient) -> None:
    response = post(manager_client, "/api/v1/studies/", b'{"name": "caf\xe9"}')
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"code": "invalid_utf8", "detail": "The JSON is not valid UTF-8 (byte 13).", "attr": None}
    ]


def test_a_charset_other_than_utf8_is_a_400(manager_client: APIClient) -> None:
    response = post(
        manager_client,
        "/api/v1/studies/",
        '{"name": "x"}'.encode("utf-16"),
        content_type="application/json; charset=utf-16",
    )
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "code": "unsupported_charset",
            "detail": "JSON bodies are UTF-8; the charset 'utf-16' is not supported.",
            "attr": None,
        }
    ]


def test_nan_is_not_a_json_number(annotator_client: APIClient, study: Study) -> None:
    response = post(
        annotator_client, items_url(study), '{"external_id": "d", "metadata": {"x": NaN}}'
    )
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "code": "parse_error",
            "detail": "JSON parse error - NaN is not a JSON number.",
            "attr": None,
        }
    ]


# --- size ------------------------------------------------------------------------------------

TOO_LARGE = {
    "type": "client_error",
    "errors": [
        {
            "code": "request_too_large",
            "detail": "The request body is larger than the limit of 1,000 bytes "
            "(DATA_UPLOAD_MAX_MEMORY_SIZE); split the upload.",
            "attr": None,
        }
    ],
}


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000)
def test_a_study_body_over_the_limit_is_a_413(manager_client: APIClient) -> None:
    response = post(manager_client, "/api/v1/studies/", json.dumps({"name": "x" * 1001}))
    assert response.status_code == 413
    assert response.json() == TOO_LARGE
    assert Study.objects.count() == 1


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000)
def test_a_bulk_body_over_the_limit_is_a_413(annotator_client: APIClient, scheme: Scheme) -> None:
    rows = [{"item": f"doc-{n}", "coder": "alice", "label": "pos"} for n in range(30)]
    body = {"round": scheme.round.pk, "question": "sentiment", "annotations": rows}
    response = post(annotator_client, bulk_url(scheme.study), json.dumps(body))
    assert response.status_code == 413
    assert response.json() == TOO_LARGE
    assert not Annotation.objects.exists()


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000)
def test_an_item_body_at_the_limit_passes_and_one_byte_over_is_a_413(
    annotator_client: APIClient, study: Study
) -> None:
    template = '{"external_id": "doc-1", "metadata": {"pad": "%s"}}'
    padding = 1000 - len(template % "")
    response = post(annotator_client, items_url(study), template % ("x" * padding))
    assert response.status_code == 201, response.json()
    response = post(annotator_client, items_url(study), template % ("x" * (padding + 1)))
    assert response.status_code == 413
    assert response.json() == TOO_LARGE


# --- every JSON endpoint uses the parser --------------------------------------------------------


def json_parsers_of_every_route() -> dict[str, list[type]]:
    """{"ViewSet" or "ViewSet.action": the parsers that read application/json}."""
    found: dict[str, list[type]] = {}
    for _prefix, viewset, _basename in router.registry:
        candidates = {viewset.__name__: list(viewset.parser_classes)}
        for action in viewset.get_extra_actions():
            if "parser_classes" in action.kwargs:
                candidates[f"{viewset.__name__}.{action.__name__}"] = action.kwargs[
                    "parser_classes"
                ]
        for where, classes in candidates.items():
            json_parsers = [c for c in classes if c.media_type == "application/json"]
            if json_parsers:
                found[where] = json_parsers
    return found


def test_every_route_reads_json_with_the_strict_parser() -> None:
    routes = json_parsers_of_every_route()
    assert "StudyViewSet" in routes  # the walk sees the routes
    bypassing = {
        where: [f"{c.__module__}.{c.__qualname__}" for c in classes]
        for where, classes in routes.items()
        if not all(issubclass(c, parsers.JSONParser) for c in classes)
    }
    assert bypassing == {}


# --- the reader on its own ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        (b"1", 0),
        (b'"[[["', 0),
        (b"[]", 1),
        (b'{"a": [1, {"b": []}]}', 4),
        (b'["\\"[", ["\\\\"], "]"]', 2),  # an escaped quote, then an escaped backslash
        (b'[["\\\\\\"]]"]]', 2),  # \\ then \" inside one string
        (b"[" * 70 + b"]" * 70, 70),
        (b'[["unterminated', 2),
    ],
)
def test_nesting_depth_counts_only_brackets_outside_strings(text: bytes, depth: int) -> None:
    assert nesting_depth(text) == depth


def test_nesting_depth_stops_early_past_the_limit() -> None:
    assert nesting_depth(b"[" * 3_000_000, stop_above=64) > 64


def test_lone_surrogate_path_walks_lists_and_keys_in_document_order() -> None:
    assert (
        lone_surrogate_path({"a": ["ok", "x\ud800"], "b": "\udfff"}, dotted_indices=True) == "a.1"
    )
    assert lone_surrogate_path("\ud800", dotted_indices=True) == ""
    assert lone_surrogate_path({"a": [1, None, 2.5, {"b": "\u00e9"}]}, dotted_indices=True) is None


def test_load_json_reads_text_and_refuses_a_lone_surrogate_in_it() -> None:
    assert load_json('{"a": "\u00e9"}') == {"a": "\u00e9"}
    with pytest.raises(JsonInputError) as raised:
        load_json('{"a": "\ud800"}')
    assert (raised.value.code, raised.value.path) == ("lone_surrogate", "a")


def depth_of(value: Any) -> int:
    """The nesting depth of a parsed value, counted on the value itself."""
    if isinstance(value, dict):
        return 1 + max((depth_of(item) for item in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth_of(item) for item in value), default=0)
    return 0


tricky_text = st.text(alphabet='[]{}"\\ab\u00e9\U0001f600\n', max_size=8)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | tricky_text,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(tricky_text, children, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(value=json_values, ensure_ascii=st.booleans())
def test_nesting_depth_agrees_with_the_parsed_value(value: Any, ensure_ascii: bool) -> None:
    text = json.dumps(value, ensure_ascii=ensure_ascii).encode()
    assert nesting_depth(text) == depth_of(value)
    assert load_json(text) == value


# --- form bodies -----------------------------------------------------------------------------


def test_a_form_with_too_many_fields_is_a_400_not_a_500(
    manager_client: APIClient, study: Study
) -> None:
    body = "&".join(f"field{n}=1" for n in range(1001))
    response = post(
        manager_client,
        f"/api/v1/studies/{study.pk}/computations/",
        body,
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 400
    assert response.json() == {
        "type": "client_error",
        "errors": [
            {
                "code": "too_many_fields",
                "detail": "The request has more than 1,000 fields.",
                "attr": None,
            }
        ],
    }


def test_a_multipart_upload_with_too_many_files_is_a_400(
    manager_client: APIClient, study: Study
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    files = {f"file{n}": SimpleUploadedFile(f"f{n}.json", b"[]") for n in range(101)}
    response = manager_client.post(
        f"/api/v1/studies/{study.pk}/imports/?format=label_studio", files, format="multipart"
    )
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"code": "too_many_files", "detail": "The request has more than 100 files.", "attr": None}
    ]


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000)
def test_a_form_body_over_the_limit_is_a_413(manager_client: APIClient, study: Study) -> None:
    response = post(
        manager_client,
        f"/api/v1/studies/{study.pk}/computations/",
        "question=" + "x" * 1000,
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 413
    assert response.json() == TOO_LARGE
