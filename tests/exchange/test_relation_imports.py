"""Relations imported from brat, Label Studio, INCEpTION (WebAnno TSV 3) and Prodigy files.

Every format below carries the same annotation, written out literally in its own syntax, of
document ``doc1`` (``Alice met Bob in Paris.``: Alice [0, 5), Bob [10, 13), Paris [17, 22),
"Paris." [17, 23)) and ``doc2`` (``Nothing here.``, where both annotators related nothing):

- ``ann``: Alice -> Bob works_for; Bob -> Paris lives_in; Alice -> Paris lives_in;
- ``ben``: Alice -> Bob works_for; Bob -> "Paris." lives_in.

Hand-worked (docs/references.md, "Relation imports, hand case"):

- relation F1, exact tuples: TP 1 (works_for), FP 1 (ben's Bob -> "Paris."), FN 2 (ann's two
  lives_in): F1 = 2·1 / (2·1 + 1 + 2) = 2/5;
- relation F1 by overlap (IoU of [17, 22) and [17, 23) = 5/6 >= 0.5): TP 2, FP 0, FN 1:
  F1 = 4 / 5;
- alpha on relations (units aligned by overlap): candidate pairs (Alice, Bob): works_for,
  works_for; (Bob, Paris): lives_in, lives_in; (Alice, Paris): lives_in, no relation. Values
  n = 6 (works_for 2, lives_in 3, none 1); D_o = 2/6 (the one disagreeing pair, counted both
  ways); D_e = (36 - 4 - 9 - 1) / (6·5) = 22/30; alpha = 1 - (1/3)/(11/15) = 6/11.
"""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from studies.models import Annotation, Question, Study
from tests.factories import RoundFactory

pytestmark = pytest.mark.django_db

DOC1 = "Alice met Bob in Paris."
DOC2 = "Nothing here."
#: What every import must store: each (document, coder)'s relations read back by the API.
EXPECTED = {
    ("doc1", "ann"): [
        {"head_begin": 0, "head_end": 5, "tail_begin": 10, "tail_end": 13, "label": "works_for"},
        {"head_begin": 0, "head_end": 5, "tail_begin": 17, "tail_end": 22, "label": "lives_in"},
        {"head_begin": 10, "head_end": 13, "tail_begin": 17, "tail_end": 22, "label": "lives_in"},
    ],
    ("doc1", "ben"): [
        {"head_begin": 0, "head_end": 5, "tail_begin": 10, "tail_end": 13, "label": "works_for"},
        {"head_begin": 10, "head_end": 13, "tail_begin": 17, "tail_end": 23, "label": "lives_in"},
    ],
    ("doc2", "ann"): [],
    ("doc2", "ben"): [],
}

BRAT_ANN = (
    "T1\tPER 0 5\tAlice\nT2\tPER 10 13\tBob\nT3\tLOC 17 22\tParis\n"
    "R1\tworks_for Arg1:T1 Arg2:T2\nR2\tlives_in Arg1:T2 Arg2:T3\nR3\tlives_in Arg1:T1 Arg2:T3\n"
)
BRAT_BEN = (
    "T1\tPER 0 5\tAlice\nT2\tPER 10 13\tBob\nT3\tLOC 17 23\tParis.\n"
    "R1\tworks_for Arg1:T1 Arg2:T2\nR2\tlives_in Arg1:T2 Arg2:T3\n"
)
BRAT_NOTHING = "T1\tMISC 0 7\tNothing\n"


def _entity(identifier: str, start: int, end: int, text: str, label: str) -> dict[str, Any]:
    return {
        "id": identifier,
        "from_name": "label",
        "to_name": "text",
        "type": "labels",
        "value": {"start": start, "end": end, "text": text, "labels": [label]},
    }


def _link(head: str, tail: str, label: str, direction: str = "right") -> dict[str, Any]:
    return {
        "from_id": head,
        "to_id": tail,
        "type": "relation",
        "direction": direction,
        "labels": [label],
    }


LABEL_STUDIO = [
    {
        "id": 1,
        "data": {"text": DOC1, "doc": "doc1"},
        "annotations": [
            {
                "id": 11,
                "completed_by": "ann",
                "result": [
                    _entity("a1", 0, 5, "Alice", "PER"),
                    _entity("a2", 10, 13, "Bob", "PER"),
                    _entity("a3", 17, 22, "Paris", "LOC"),
                    _link("a1", "a2", "works_for"),
                    _link("a2", "a3", "lives_in"),
                    # "left": the arrow points from to_id to from_id.
                    _link("a3", "a1", "lives_in", direction="left"),
                ],
            },
            {
                "id": 12,
                "completed_by": "ben",
                "result": [
                    _entity("b1", 0, 5, "Alice", "PER"),
                    _entity("b2", 10, 13, "Bob", "PER"),
                    _entity("b3", 17, 23, "Paris.", "LOC"),
                    _link("b1", "b2", "works_for"),
                    _link("b2", "b3", "lives_in"),
                ],
            },
        ],
    },
    {
        "id": 2,
        "data": {"text": DOC2, "doc": "doc2"},
        "annotations": [
            {"id": 21, "completed_by": "ann", "result": []},
            {"id": 22, "completed_by": "ben", "result": [_entity("c1", 0, 7, "Nothing", "PER")]},
        ],
    },
]


def _span(start: int, end: int, label: str) -> dict[str, Any]:
    return {"start": start, "end": end, "label": label}


def _prodigy(document: str, coder: str, text: str, relations: list[Any]) -> str:
    return json.dumps(
        {
            "text": text,
            "doc": document,
            "relations": [
                {"head": 0, "child": 1, "head_span": head, "child_span": child, "label": label}
                for head, child, label in relations
            ],
            "answer": "accept",
            "_annotator_id": coder,
        }
    )


ALICE, BOB, PARIS, PARIS_DOT = (
    _span(0, 5, "PER"),
    _span(10, 13, "PER"),
    _span(17, 22, "LOC"),
    _span(17, 23, "LOC"),
)
PRODIGY = "\n".join(
    [
        _prodigy(
            "doc1",
            "ann",
            DOC1,
            [(ALICE, BOB, "works_for"), (BOB, PARIS, "lives_in"), (ALICE, PARIS, "lives_in")],
        ),
        _prodigy("doc1", "ben", DOC1, [(ALICE, BOB, "works_for"), (BOB, PARIS_DOT, "lives_in")]),
        _prodigy("doc2", "ann", DOC2, []),
        _prodigy("doc2", "ben", DOC2, []),
    ]
)

TSV_HEAD = (
    "#FORMAT=WebAnno TSV 3.3\n"
    "#T_SP=de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity|value\n"
    "#T_RL=webanno.custom.Relation|label|BT_de.tudarmstadt.ukp.dkpro.core.api.ner.type."
    "NamedEntity\n\n\n"
)
TSV_ANN = TSV_HEAD + (
    "#Text=Alice met Bob in Paris.\n"
    "1-1\t0-5\tAlice\tPER\t_\t_\n"
    "1-2\t6-9\tmet\t_\t_\t_\n"
    "1-3\t10-13\tBob\tPER\tworks_for\t1-1\n"
    "1-4\t14-16\tin\t_\t_\t_\n"
    "1-5\t17-22\tParis\tLOC\tlives_in|lives_in\t1-3|1-1\n"
    "1-6\t22-23\t.\t_\t_\t_\n"
)
# ben's "Paris." is one annotation over two tokens ([1]); its relation names it as target 1.
TSV_BEN = TSV_HEAD + (
    "#Text=Alice met Bob in Paris.\n"
    "1-1\t0-5\tAlice\tPER\t_\t_\n"
    "1-2\t6-9\tmet\t_\t_\t_\n"
    "1-3\t10-13\tBob\tPER\tworks_for\t1-1\n"
    "1-4\t14-16\tin\t_\t_\t_\n"
    "1-5\t17-22\tParis\tLOC[1]\tlives_in\t1-3[0_1]\n"
    "1-6\t22-23\t.\tLOC[1]\t_\t_\n"
)
TSV_NOTHING = TSV_HEAD + (
    "#Text=Nothing here.\n1-1\t0-7\tNothing\t_\t_\t_\n1-2\t8-12\there\t_\t_\t_\n"
    "1-3\t12-13\t.\t_\t_\t_\n"
)


def _zip(members: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


BRAT_ZIP = _zip(
    {
        "doc1.txt": DOC1,
        "doc2.txt": DOC2,
        "ann/doc1.ann": BRAT_ANN,
        "ben/doc1.ann": BRAT_BEN,
        "ann/doc2.ann": BRAT_NOTHING,
        "ben/doc2.ann": "",
    }
)
TSV_ZIP = _zip(
    {
        "annotation/doc1/ann.tsv": TSV_ANN,
        "annotation/doc1/ben.tsv": TSV_BEN,
        "annotation/doc2/ann.tsv": TSV_NOTHING,
        "annotation/doc2/ben.tsv": TSV_NOTHING,
        "curation/doc1/CURATION_USER.tsv": TSV_ANN,
    }
)

FILES: dict[str, tuple[str, bytes, dict[str, str]]] = {
    "brat": ("relations.zip", BRAT_ZIP, {}),
    "label_studio": (
        "relations.json",
        json.dumps(LABEL_STUDIO).encode(),
        # The entity spans are the relations' units; no span question takes them here.
        {"document_key": "doc", "question_map": json.dumps({"label": None})},
    ),
    "prodigy_rel": ("relations.jsonl", PRODIGY.encode(), {"document_key": "doc"}),
    "inception_tsv_relations": ("relations.zip", TSV_ZIP, {}),
}


def _declare(study: Study, client: APIClient) -> None:
    RoundFactory(study=study, name="Round 1", position=1)
    response = client.post(
        f"/api/v1/studies/{study.pk}/questions/",
        {
            "key": "rel",
            "kind": "relation",
            "categories": [{"code": "works_for"}, {"code": "lives_in"}],
        },
        format="json",
    )
    assert response.status_code == 201, response.json()


def _import(
    client: APIClient, study: Study, format_name: str, name: str, content: bytes, **options: str
) -> Any:
    return client.post(
        f"/api/v1/studies/{study.pk}/imports/",
        {
            "round": "Round 1",
            "question": "rel",
            "format": format_name,
            "create_missing": "true",
            "file": SimpleUploadedFile(name, content),
            **options,
        },
        format="multipart",
    )


def _stored(client: APIClient, study: Study) -> dict[tuple[str, str], Any]:
    listed = client.get(
        f"/api/v1/studies/{study.pk}/annotations/", {"question": "rel", "page_size": 100}
    ).json()["results"]
    return {(row["item"], row["coder"]): row["units"] for row in listed}


@pytest.mark.parametrize("format_name", sorted(FILES))
def test_each_format_imports_the_relations_and_computes_the_hand_worked_values(
    format_name: str,
    study: Study,
    manager_client: APIClient,
    django_capture_on_commit_callbacks: Any,
) -> None:
    _declare(study, manager_client)
    name, content, options = FILES[format_name]
    response = _import(manager_client, study, format_name, name, content, **options)
    assert response.status_code == 200, response.json()
    assert response.json()["committed"] is True
    assert _stored(manager_client, study) == EXPECTED

    question = Question.objects.get(study=study, key="rel")
    round_ = study.rounds.get(name="Round 1")
    with django_capture_on_commit_callbacks(execute=True):
        posted = manager_client.post(
            f"/api/v1/studies/{study.pk}/computations/",
            {"question": question.pk, "round": round_.pk, "bootstrap": 0},
            format="json",
        )
    assert posted.status_code == 202, posted.json()
    computation = manager_client.get(posted.json()["url"]).json()
    assert computation["status"] == "done", computation.get("error")
    coefficients = computation["results"]["coefficients"]
    assert coefficients["relation_f1"]["value"] == pytest.approx(2 / 5, abs=1e-12)
    assert coefficients["relation_f1_overlap"]["value"] == pytest.approx(4 / 5, abs=1e-12)
    assert coefficients["alpha"]["value"] == pytest.approx(6 / 11, abs=1e-12)
    assert coefficients["alpha"]["observed"] == pytest.approx(1 / 3, abs=1e-12)
    assert coefficients["alpha"]["expected"] == pytest.approx(22 / 30, abs=1e-12)


def _refused(response: Any, study: Study) -> tuple[str, str]:
    assert response.status_code == 400, response.json()
    assert not Annotation.objects.filter(question__study=study).exists()
    first = response.json()["errors"][0]
    return first["code"], first["attr"]


def test_a_brat_equivalence_line_is_refused_naming_the_line(
    study: Study, manager_client: APIClient
) -> None:
    _declare(study, manager_client)
    bad = _zip({"ann/doc1.ann": BRAT_ANN + "*\tEquiv T1 T2\n", "ben/doc1.ann": BRAT_BEN})
    response = _import(manager_client, study, "brat", "relations.zip", bad)
    assert _refused(response, study) == ("unsupported_type", "ann/doc1.ann, line 7.*")
    assert "equivalence lines (*)" in response.json()["errors"][0]["detail"]


def test_a_brat_relation_to_an_undeclared_entity_is_refused(
    study: Study, manager_client: APIClient
) -> None:
    _declare(study, manager_client)
    response = _import(
        manager_client,
        study,
        "brat",
        "doc1.ann",
        b"T1\tPER 0 5\tAlice\nR1\tworks_for Arg1:T1 Arg2:T9\n",
        coder="ann",
    )
    assert _refused(response, study) == ("required", "doc1.ann, line 2.Arg2")


def test_one_brat_file_takes_its_name_as_the_document_and_the_coder_option(
    study: Study, manager_client: APIClient
) -> None:
    _declare(study, manager_client)
    response = _import(manager_client, study, "brat", "doc1.ann", BRAT_BEN.encode(), coder="ben")
    assert response.status_code == 200, response.json()
    assert _stored(manager_client, study) == {("doc1", "ben"): EXPECTED[("doc1", "ben")]}


def test_a_label_studio_relation_without_a_label_is_refused_naming_the_result(
    study: Study, manager_client: APIClient
) -> None:
    _declare(study, manager_client)
    task = {
        "id": 1,
        "data": {"text": DOC1},
        "annotations": [
            {
                "id": 11,
                "completed_by": "ann",
                "result": [
                    _entity("a1", 0, 5, "Alice", "PER"),
                    _entity("a2", 10, 13, "Bob", "PER"),
                    {**_link("a1", "a2", "x"), "labels": []},
                ],
            }
        ],
    }
    response = _import(
        manager_client,
        study,
        "label_studio",
        "bad.json",
        json.dumps([task]).encode(),
        question_map=json.dumps({"label": None}),
    )
    assert _refused(response, study) == ("required", "task 1, annotation 11, result [2].labels")


def test_a_prodigy_relation_past_the_text_is_refused_naming_the_span(
    study: Study, manager_client: APIClient
) -> None:
    _declare(study, manager_client)
    line = _prodigy("doc1", "ann", DOC1, [(ALICE, _span(17, 40, "LOC"), "lives_in")])
    response = _import(
        manager_client, study, "prodigy_rel", "bad.jsonl", line.encode(), document_key="doc"
    )
    assert _refused(response, study) == ("invalid_offsets", "line 1.relations.0.child_span")


def test_a_webanno_relation_without_a_value_is_refused_naming_the_line(
    study: Study, manager_client: APIClient
) -> None:
    _declare(study, manager_client)
    bad = TSV_ANN.replace("works_for\t1-1", "*\t1-1")
    response = _import(
        manager_client, study, "inception_tsv_relations", "doc1.tsv", bad.encode(), coder="ann"
    )
    assert _refused(response, study) == ("required", "line 9.Relation.label")


def test_an_unknown_relation_label_is_refused_and_nothing_is_written(
    study: Study, manager_client: APIClient
) -> None:
    _declare(study, manager_client)
    bad = BRAT_BEN.replace("works_for", "married_to")
    response = _import(manager_client, study, "brat", "doc1.ann", bad.encode(), coder="ben")
    code, attr = _refused(response, study)
    assert (code, attr) == ("unknown_category", "doc1.ann, line 4.label")


def test_a_label_studio_relation_both_ways_is_one_relation_when_undirected_else_two(
    study: Study, manager_client: APIClient
) -> None:
    """``direction: "bi"``, ann's annotation of doc1: Alice <-> Bob works_for and
    Bob <-> Alice knows. works_for is directed, so both ways are two relations, Alice -> Bob
    and Bob -> Alice; knows is declared undirected, so it is one relation, stored in document
    order (Alice -> Bob). Read back sorted by head, tail, then label as declared."""
    RoundFactory(study=study, name="Round 1", position=1)
    declared = manager_client.post(
        f"/api/v1/studies/{study.pk}/questions/",
        {
            "key": "rel",
            "kind": "relation",
            "categories": [{"code": "works_for"}, {"code": "knows", "undirected": True}],
        },
        format="json",
    )
    assert declared.status_code == 201, declared.json()
    export = b"""[{"id": 1, "data": {"text": "Alice met Bob in Paris.", "doc": "doc1"},
      "annotations": [{"id": 11, "completed_by": "ann", "result": [
        {"id": "a1", "from_name": "label", "to_name": "text", "type": "labels",
         "value": {"start": 0, "end": 5, "text": "Alice", "labels": ["PER"]}},
        {"id": "a2", "from_name": "label", "to_name": "text", "type": "labels",
         "value": {"start": 10, "end": 13, "text": "Bob", "labels": ["PER"]}},
        {"from_id": "a1", "to_id": "a2", "type": "relation", "direction": "bi",
         "labels": ["works_for"]},
        {"from_id": "a2", "to_id": "a1", "type": "relation", "direction": "bi",
         "labels": ["knows"]}]}]}]"""
    response = _import(
        manager_client,
        study,
        "label_studio",
        "export.json",
        export,
        document_key="doc",
        question_map=json.dumps({"label": None}),
    )
    assert response.status_code == 200, response.json()
    assert _stored(manager_client, study) == {
        ("doc1", "ann"): [
            {
                "head_begin": 0,
                "head_end": 5,
                "tail_begin": 10,
                "tail_end": 13,
                "label": "works_for",
            },
            {"head_begin": 0, "head_end": 5, "tail_begin": 10, "tail_end": 13, "label": "knows"},
            {
                "head_begin": 10,
                "head_end": 13,
                "tail_begin": 0,
                "tail_end": 5,
                "label": "works_for",
            },
        ]
    }
