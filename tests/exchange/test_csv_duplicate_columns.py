"""An import CSV whose header names a column twice is a 400 naming the column (issue 25,
finding 10). Before the fix the first (or, for INCEpTION's span CSV, the last) column of
that name won, and ``agreement_table`` counted a category twice."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.exchange.conftest import ImportStudy, db_state

pytestmark = pytest.mark.django_db


def post_csv(client: APIClient, target: ImportStudy, text: str, format_name: str) -> Any:
    question = "" if format_name.startswith("inception") else "&question=sentiment"
    return client.post(
        f"/api/v1/studies/{target.study.pk}/imports/?format={format_name}&round=Round%201"
        f"&create_missing=true{question}",
        data=text.encode(),
        content_type="text/csv",
    )


DIAGNOSIS = "Type,Collection,Document,Layer,Feature,Position,Flags"
NER = "de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity,news,doc-1,Named entity,value"


@pytest.mark.parametrize(
    ("format_name", "text", "name"),
    [
        ("long_csv", "item,coder,label,item\ndoc-1,alice,pos,doc-2\n", "item"),
        ("long_csv", "unit,Rater,value,rater\ndoc-1,alice,pos,bob\n", "rater"),
        ("wide_csv", "item,alice,bob,alice\ndoc-1,pos,neg,neg\n", "alice"),
        ("agreement_table", "item,pos,neg,pos\ndoc-1,1,0,2\n", "pos"),
        (
            "inception",
            "doc,user,begin,end,text,label,user\ndoc-1,alice,0,5,Alice,PER,bob\n",
            "user",
        ),
        (
            "inception_diagnosis",
            f"{DIAGNOSIS},alice,bob,alice\n{NER},0-5,USED,PER,PER,ORG\n",
            "alice",
        ),
    ],
)
def test_an_import_csv_naming_a_column_twice_is_a_400_naming_it(
    manager_client: APIClient, target: ImportStudy, format_name: str, text: str, name: str
) -> None:
    before = db_state(target.study)
    response = post_csv(manager_client, target, text, format_name)
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "code": "malformed_file",
            "detail": f"The CSV header names the column {name!r} more than once.",
            "attr": "file",
        }
    ]
    assert db_state(target.study) == before


@pytest.mark.parametrize(
    ("format_name", "text"),
    [
        ("wide_csv", "item,alice,Alice\ndoc-1,pos,neg\n"),  # coder keys are case-sensitive
        ("long_csv", "item,coder,label,,\ndoc-1,alice,pos,,\n"),  # blank trailing columns
    ],
)
def test_names_that_differ_or_are_blank_are_no_duplicates(
    manager_client: APIClient, target: ImportStudy, format_name: str, text: str
) -> None:
    response = post_csv(manager_client, target, text, format_name)
    assert response.status_code == 200, response.json()
