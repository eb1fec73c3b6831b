"""Zip imports unpack to at most ``AGREEMENT_IMPORT_MAX_UNZIPPED_BYTES``, counted as the
bytes come out (issue 25, finding 5).

Before the fix the budget (256 MB) was checked against the sizes the archive's headers
claim, then every member was read whole and parsed: a 569 KB zip of 240 MB of JSON lines
cost 72.6 s and 3.16 GB of worker memory before its 400. The work is counted here in bytes
unpacked and bytes allocated, never in seconds: an archive over the budget is refused after
unpacking at most the budget and one chunk, whatever it holds.
"""

from __future__ import annotations

import io
import tracemalloc
import zipfile
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from rest_framework.test import APIClient

from tests.exchange.conftest import ImportStudy, db_state
from tests.proportion import Work

pytestmark = pytest.mark.django_db

BUDGET = 1 << 18  # AGREEMENT_IMPORT_MAX_UNZIPPED_BYTES in these tests
CHUNK = 1 << 16  # what the reader unpacks at a time

#: (format, member name, one line of a member) per format that reads zip archives
ZIP_FORMATS = {
    "doccano": ("alice.jsonl", b'{"id": "doc-1", "text": "a", "label": ["pos"]}\n'),
    "conll": ("alice.conll", b"token O\n"),
    "inception_tsv": ("annotation/doc-1/alice.tsv", b"1-1\t0-5\ttoken\t_\n"),
}


def zip_of(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def lines_of(line: bytes, size: int) -> bytes:
    return line * (size // len(line))


@pytest.fixture
def unpacked(monkeypatch: pytest.MonkeyPatch) -> Work:
    """The bytes read out of zip members (decompressed), from now on."""
    work = Work()
    read = zipfile.ZipExtFile.read

    def counted(self: zipfile.ZipExtFile, n: int | None = -1) -> bytes:
        data = read(self, n)
        work.amount += len(data)
        return data

    monkeypatch.setattr(zipfile.ZipExtFile, "read", counted)
    return work


def post_zip(client: APIClient, target: ImportStudy, archive: bytes, format_name: str) -> Any:
    fields = {
        "round": "Round 1",
        "format": format_name,
        "create_missing": "true",
        "file": SimpleUploadedFile("export.zip", archive),
    }
    if format_name == "doccano":
        fields["question"] = "sentiment"
    return client.post(f"/api/v1/studies/{target.study.pk}/imports/", fields, format="multipart")


def too_large(member: str, limit: int = BUDGET) -> dict[str, Any]:
    return {
        "type": "client_error",
        "errors": [
            {
                "code": "file_too_large",
                "detail": f"The zip archive unpacks to more than {limit:,} bytes "
                f"(AGREEMENT_IMPORT_MAX_UNZIPPED_BYTES): unpacking stopped in {member}. "
                "Split the archive.",
                "attr": None,
            }
        ],
    }


@override_settings(AGREEMENT_IMPORT_MAX_UNZIPPED_BYTES=BUDGET)
@pytest.mark.parametrize("format_name", list(ZIP_FORMATS))
def test_the_probe_a_small_zip_of_megabytes_is_a_413_unpacked_to_the_budget(
    annotator_client: APIClient, target: ImportStudy, unpacked: Work, format_name: str
) -> None:
    member, line = ZIP_FORMATS[format_name]
    archive = zip_of({member: lines_of(line, 16 * BUDGET)})
    assert len(archive) < BUDGET // 8  # highly compressible, as the probe's 569 KB of 240 MB
    before = db_state(target.study)
    response = post_zip(annotator_client, target, archive, format_name)
    assert response.status_code == 413
    assert response.json() == too_large(member)
    assert unpacked.amount <= BUDGET + CHUNK
    assert db_state(target.study) == before


@override_settings(AGREEMENT_IMPORT_MAX_UNZIPPED_BYTES=BUDGET)
def test_the_budget_spans_the_members_and_the_first_overrun_stops_the_unpacking(
    annotator_client: APIClient, target: ImportStudy, unpacked: Work
) -> None:
    _, line = ZIP_FORMATS["doccano"]
    share = lines_of(line, BUDGET * 2 // 5)
    archive = zip_of({f"{coder}.jsonl": share for coder in ("alice", "bob", "carol", "dave")})
    response = post_zip(annotator_client, target, archive, "doccano")
    assert response.status_code == 413
    assert response.json() == too_large("carol.jsonl")
    assert unpacked.amount <= BUDGET + CHUNK


@override_settings(AGREEMENT_IMPORT_MAX_UNZIPPED_BYTES=BUDGET)
def test_an_archive_within_the_budget_imports(
    annotator_client: APIClient, target: ImportStudy
) -> None:
    records = b"".join(b'{"id": "doc-%d", "label": ["pos"]}\n' % i for i in range(500))
    archive = zip_of({"ann.jsonl": records, "bea.jsonl": records})
    response = post_zip(annotator_client, target, archive, "doccano")
    assert response.status_code == 200, response.json()
    assert response.json()["created"] == 1000


@override_settings(AGREEMENT_IMPORT_MAX_UNZIPPED_BYTES=BUDGET)
def test_doubling_an_archive_over_the_budget_does_not_grow_the_work(
    annotator_client: APIClient, target: ImportStudy, unpacked: Work
) -> None:
    member, line = ZIP_FORMATS["doccano"]

    def work(size: int) -> tuple[int, int, int]:
        """(status, bytes unpacked, peak bytes allocated) of importing ``size`` bytes."""
        archive = zip_of({member: lines_of(line, size)})
        unpacked.amount = 0
        tracemalloc.start()
        try:
            response = post_zip(annotator_client, target, archive, "doccano")
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        return response.status_code, unpacked.amount, peak

    work(8 * BUDGET)  # the first request imports and builds what every request uses
    small, large = work(8 * BUDGET), work(16 * BUDGET)
    for status, read, peak in (small, large):
        assert (status, read <= BUDGET + CHUNK, peak <= 4 * BUDGET) == (413, True, True), (
            f"{read:,} bytes unpacked, {peak:,} allocated"
        )
