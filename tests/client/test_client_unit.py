"""``agreement_client`` pieces that need no server: URLs, waiting, error parsing, signatures."""

from __future__ import annotations

from typing import Any

import pytest

from agreement_client import (
    AgreementClient,
    ServerError,
    WaitTimeoutError,
    verify_webhook_signature,
)
from agreement_client.client import _error_from
from webhooks.services import payload_body, webhook_signature


def test_the_base_url_may_be_the_server_or_its_api_root() -> None:
    for base in (
        "http://h:8000",
        "http://h:8000/",
        "http://h:8000/api/v1",
        "http://h:8000/api/v1/",
    ):
        client = AgreementClient(base, "t")
        assert client.url("studies/") == "http://h:8000/api/v1/studies/"
        assert client.url("/api/v1/studies/3/") == "http://h:8000/api/v1/studies/3/"
    client = AgreementClient("http://h", "t")
    assert client.url("studies/", {"page_size": 2, "x": None}) == (
        "http://h/api/v1/studies/?page_size=2"
    )
    assert client.url("https://other/x?page=2", {"a": 1}) == "https://other/x?page=2&a=1"


def test_waiting_gives_up_after_the_timeout_with_the_last_state(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client = AgreementClient("http://h", "t")
    polls: list[str] = []

    def get(path: str, **params: Any) -> dict:
        polls.append(path)
        return {"id": 7, "status": "running", "progress": 0.5}

    monkeypatch.setattr(client, "get", get)
    with pytest.raises(WaitTimeoutError) as caught:
        client.wait_for_computation(7, study_id=3, timeout=0.05, poll=0.01)
    assert caught.value.computation["progress"] == 0.5
    assert polls[0] == "studies/3/computations/7/"
    assert len(polls) >= 2


def test_an_id_without_its_study_is_refused() -> None:
    with pytest.raises(ValueError, match="study_id"):
        AgreementClient("http://h", "t").computation(7)


def test_a_server_error_without_json_still_raises_clearly() -> None:
    error = _error_from(502, b"<html>Bad gateway</html>", "Bad Gateway")
    assert isinstance(error, ServerError)
    assert error.status == 502
    assert error.codes == []
    assert str(error) == "HTTP 502 Bad Gateway"


def test_rows_become_the_csv_the_server_reads() -> None:
    text = AgreementClient.rows_to_csv([("d1", "ann", "pos"), ("d1", "bob", ["a", "b"])])
    assert text == "item,coder,label\nd1,ann,pos\nd1,bob,a|b\n"


def test_the_client_verifies_what_the_server_signs() -> None:
    body = payload_body({"event": "ping", "data": {"x": 1}})
    signature = webhook_signature(secret="whsec_s", timestamp="1700000000", body=body)
    assert verify_webhook_signature(
        secret="whsec_s", body=body, timestamp="1700000000", signature=signature,
        now=1700000100,
    )  # fmt: skip
    assert not verify_webhook_signature(
        secret="whsec_other", body=body, timestamp="1700000000", signature=signature,
        now=1700000100,
    )  # fmt: skip
    assert not verify_webhook_signature(
        secret="whsec_s", body=body + b" ", timestamp="1700000000", signature=signature,
        now=1700000100,
    )  # fmt: skip
    # An old request (a replay) is refused unless the tolerance is lifted.
    assert not verify_webhook_signature(
        secret="whsec_s", body=body, timestamp="1700000000", signature=signature, now=1800000000
    )
    assert verify_webhook_signature(
        secret="whsec_s", body=body, timestamp="1700000000", signature=signature, tolerance=None
    )
    assert not verify_webhook_signature(
        secret="whsec_s", body=body, timestamp="soon", signature=signature
    )
