"""The pages' CSV downloads are safe to open in a spreadsheet and name their file with a
valid header (issue 13, findings 1 and 5).

Before the fix the downloads wrote names raw (``=HYPERLINK("http://x")`` ran as a formula)
and put the raw round name in ``Content-Disposition``: CR/LF answered 500, a ``"`` cut the
file name short, and a non-Latin-1 name was MIME-encoded (``=?utf-8?b?...?=``), which
browsers do not read as a file name.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from studies.models import Study
from tests.exchange.test_csv_safety import HOSTILE, HOSTILE_CODES, HostileWorld, hostile_world

pytestmark = pytest.mark.django_db


def download(client: Any, world: HostileWorld, name: str, question: Any, *extra: str) -> Any:
    args = [world.study.pk, world.round.pk, question.pk, *extra]
    return client.get(reverse(f"pages:{name}", args=args))


def csv_of(response: Any) -> str:
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    return str(response.content.decode())


@pytest.mark.parametrize(
    ("name", "cell", "code", "code_cell"),
    [(*h, *c) for h, c in zip(HOSTILE, HOSTILE_CODES, strict=True)],
)
def test_every_page_download_neutralises_names_and_keeps_numbers(
    study: Study, viewer: Any, site_client: Any, name: str, cell: str, code: str, code_cell: str
) -> None:
    world = hostile_world(study, name, code)
    client = site_client(viewer)
    assert csv_of(download(client, world, "annotations-download", world.tone, "long")) == (
        f"item,coder,label\n{cell},{cell},{code_cell}\n"
    )
    assert csv_of(download(client, world, "annotations-download", world.tone, "wide")) == (
        f"item,{cell}\n{cell},{code_cell}\n"
    )
    assert csv_of(download(client, world, "items-download", world.tone)) == (
        f"item,n_coders,n_distinct,majority,majority_share,pairwise_agreement,{cell}\n"
        f"{cell},1,1,{code_cell},1,,{code_cell}\n"
    )
    assert csv_of(download(client, world, "annotations-download", world.score, "long")) == (
        f"item,coder,label\n{cell},{cell},-0.25\n"
    )
    assert csv_of(download(client, world, "items-download", world.score)) == (
        "item,n_coders,n_distinct,majority,majority_share,pairwise_agreement,mean,spread,"
        f"{cell}\n{cell},1,1,-0.25,1,,-0.25,0,-0.25\n"
    )
    assert csv_of(download(client, world, "results-download", world.tone, "csv")) == (
        f"coefficient,value,se,ci_low,ci_high,ci_level\n{cell},-0.25,0.125,-0.5,0,0.95\n"
    )


#: (round name, the file name part of the header, ``{}`` standing for ``study<pk>``)
ROUND_NAMES = [
    ("Round 1", 'filename="{}-Round 1-tone-long.csv"'),
    ('R"1', 'filename="{}-R\\"1-tone-long.csv"'),
    ("R\r\n1", "filename*=utf-8''{}-R%0D%0A1-tone-long.csv"),
    ("Résumé", "filename*=utf-8''{}-R%C3%A9sum%C3%A9-tone-long.csv"),
    ("Раунд 1", "filename*=utf-8''{}-%D0%A0%D0%B0%D1%83%D0%BD%D0%B4%201-tone-long.csv"),
    ('=HYPERLINK("http://x")', 'filename="{}-=HYPERLINK(\\"http://x\\")-tone-long.csv"'),
]


@pytest.mark.parametrize(("round_name", "filename"), ROUND_NAMES)
def test_page_downloads_name_their_file_with_a_valid_header(
    study: Study, viewer: Any, site_client: Any, round_name: str, filename: str
) -> None:
    world = hostile_world(study, "doc-1", "pos", round_name=round_name)
    response = download(site_client(viewer), world, "annotations-download", world.tone, "long")
    assert response.status_code == 200
    assert response["Content-Disposition"] == "attachment; " + filename.format(f"study{study.pk}")


def test_every_page_download_carries_the_header(
    study: Study, viewer: Any, site_client: Any
) -> None:
    world = hostile_world(study, "doc-1", "pos", round_name="R\r\n1")
    client = site_client(viewer)
    responses = {
        "long": download(client, world, "annotations-download", world.tone, "long"),
        "wide": download(client, world, "annotations-download", world.tone, "wide"),
        "items": download(client, world, "items-download", world.tone),
        "results": download(client, world, "results-download", world.tone, "csv"),
        "results-json": download(client, world, "results-download", world.tone, "json"),
    }
    prefix = f"attachment; filename*=utf-8''study{study.pk}-R%0D%0A1-tone-"
    assert {key: response["Content-Disposition"] for key, response in responses.items()} == {
        "long": prefix + "long.csv",
        "wide": prefix + "wide.csv",
        "items": prefix + "items.csv",
        "results": prefix + "results.csv",
        "results-json": prefix + "results.json",
    }
