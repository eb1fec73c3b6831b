"""The request goes to the address that was checked (issue 13, finding 6: DNS rebinding).

The resolver is patched: no test here reaches the network beyond 127.0.0.1, and no test
depends on a real DNS answer. ``93.184.215.14`` stands for any public address.
"""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.webhooks.receiver import running_receiver
from webhooks import transport
from webhooks.targets import webhook_target

PUBLIC = "93.184.215.14"


class Resolver:
    """``socket.getaddrinfo`` answering each lookup with the next scripted address."""

    def __init__(self, *answers: str | list[str]) -> None:
        self.answers = list(answers)
        self.lookups: list[str] = []

    def __call__(self, host: str, port: int, *args: Any, **kwargs: Any) -> list[Any]:
        self.lookups.append(host)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        addresses = [answer] if isinstance(answer, str) else answer
        return [
            (socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port))
            for a in addresses
        ]


class RecordingSocket:
    """Stands in for ``socket.socket``: records where it would connect, connects nowhere."""

    connected: list[Any] = []

    def __init__(self, *args: Any) -> None:
        pass

    def settimeout(self, seconds: float) -> None:
        pass

    def connect(self, address: Any) -> None:
        RecordingSocket.connected.append(address)
        raise ConnectionRefusedError(111, "Connection refused")

    def close(self) -> None:
        pass


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    RecordingSocket.connected = []
    monkeypatch.setattr(socket, "socket", RecordingSocket)
    return RecordingSocket.connected


def resolve_with(monkeypatch: pytest.MonkeyPatch, *answers: str | list[str]) -> Resolver:
    resolver = Resolver(*answers)
    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    return resolver


def post(url: str, *, allow_private: bool = False, timeout: float = 5) -> transport.Answer:
    return transport.post(
        webhook_target(url), b"{}", {"Content-Type": "application/json"},
        timeout=timeout, allow_private=allow_private,
    )  # fmt: skip


# -- the address connected to is the address checked -----------------------------------------


def test_a_name_that_rebinds_after_the_check_is_connected_at_the_checked_address(
    monkeypatch: pytest.MonkeyPatch, no_network: list[Any]
) -> None:
    # The old code resolved once to check and again to connect: the second answer
    # (127.0.0.1) was the one it connected to.
    resolver = resolve_with(monkeypatch, PUBLIC, "127.0.0.1")
    answer = post("http://rebind.example.org:8199/m")
    assert resolver.lookups == ["rebind.example.org"]  # one lookup, no second to rebind
    assert no_network == [(PUBLIC, 8199)]
    assert answer == transport.Answer(
        error="ConnectionRefusedError: [Errno 111] Connection refused"
    )


def test_a_name_that_now_resolves_to_a_private_address_is_refused_without_connecting(
    monkeypatch: pytest.MonkeyPatch, no_network: list[Any]
) -> None:
    resolve_with(monkeypatch, PUBLIC, "127.0.0.1")
    post("http://rebind.example.org:8199/m")  # first lookup: public, connected
    with pytest.raises(transport.ForbiddenAddressError) as refused:
        post("http://rebind.example.org:8199/m")  # second lookup: private, refused
    assert refused.value.address == "127.0.0.1"
    assert str(refused.value) == "rebind.example.org resolves to the private address 127.0.0.1"
    assert no_network == [(PUBLIC, 8199)]  # never 127.0.0.1


@pytest.mark.django_db
def test_a_delivery_to_a_name_that_rebinds_is_refused_and_not_retried(
    study: Any, monkeypatch: pytest.MonkeyPatch, no_network: list[Any],
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    from webhooks import services as webhooks
    from webhooks.models import WebhookAttempt, WebhookDelivery

    endpoint, _secret = webhooks.webhook_endpoint_create(
        study=study, url="http://rebind.example.org:8199/m", events=["computation.finished"]
    )
    resolver = resolve_with(monkeypatch, PUBLIC, "127.0.0.1")
    with django_capture_on_commit_callbacks(execute=True):
        webhooks.webhook_ping(endpoint=endpoint)  # eager: the retry runs at once
    assert resolver.lookups == ["rebind.example.org", "rebind.example.org"]
    assert no_network == [(PUBLIC, 8199)]
    attempts = WebhookAttempt.objects.order_by("number")
    assert [(a.number, a.error, a.retry_in_seconds) for a in attempts] == [
        (1, "ConnectionRefusedError: [Errno 111] Connection refused", 30),
        (2, "The endpoint's host resolves to a private address 127.0.0.1.", None),
    ]
    assert WebhookDelivery.objects.get().status == "failed"


@pytest.mark.parametrize(
    "answer",
    [
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",  # cloud metadata
        "100.64.0.1",  # shared address space: not global
        "0.0.0.0",
        "224.0.0.1",
        "::1",
        "fe80::1",
        "fc00::1",
        "::ffff:127.0.0.1",  # IPv4-mapped loopback
        [PUBLIC, "10.0.0.5"],  # one private address among public ones is enough
    ],
)
def test_private_answers_are_refused_before_any_connection(
    monkeypatch: pytest.MonkeyPatch, no_network: list[Any], answer: str | list[str]
) -> None:
    resolve_with(monkeypatch, answer)
    with pytest.raises(transport.ForbiddenAddressError):
        post("http://hooks.example.org/in")
    assert no_network == []


def test_the_check_holds_at_the_socket_whatever_the_resolver_said(
    monkeypatch: pytest.MonkeyPatch, no_network: list[Any]
) -> None:
    # Even with the lookup's own check bypassed, the address handed to connect() is
    # checked on its way to the socket.
    monkeypatch.setattr(transport, "vetted_addresses", Resolver("10.0.0.5"))
    with pytest.raises(transport.ForbiddenAddressError):
        transport.connect_vetted(
            "hooks.example.org", 80, deadline=time.monotonic() + 5, allow_private=False
        )
    assert no_network == []


def test_a_literal_private_ip_is_refused_without_connecting(no_network: list[Any]) -> None:
    with pytest.raises(transport.ForbiddenAddressError):
        post("http://169.254.169.254/latest/meta-data/")
    assert no_network == []


# -- IPv6 addresses that stand for an IPv4 address (issue 25, finding 9) ----------------------


@pytest.mark.parametrize(
    ("address", "embedded"),
    [
        ("::ffff:169.254.169.254", ["169.254.169.254"]),  # IPv4-mapped
        ("2002:a9fe:a9fe::", ["169.254.169.254"]),  # 6to4: bits 16-47
        ("2002:0a00:0001:1234::1", ["10.0.0.1"]),
        # Teredo: the server is bits 32-63, the client the last 32 bits inverted.
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", ["65.54.227.120", "192.0.2.45"]),
        ("2001:0:5db8:d70e::f5ff:fefe", ["93.184.215.14", "10.0.1.1"]),
        ("64:ff9b::a9fe:a9fe", ["169.254.169.254"]),  # NAT64, the well-known prefix
        ("64:ff9b::5db8:d70e", [PUBLIC]),
        ("2001:4860:4860::8888", []),  # an ordinary global address embeds nothing
    ],
)
def test_the_ipv4_addresses_an_ipv6_address_stands_for_are_unwrapped(
    address: str, embedded: list[str]
) -> None:
    assert [str(ip) for ip in transport.embedded_ipv4(address)] == embedded


@pytest.mark.parametrize(
    "address",
    [
        "2002:a9fe:a9fe::",  # the probe: 6to4 for 169.254.169.254, which Python calls global
        "2002:7f00:1::",  # 6to4 for 127.0.0.1
        "2002:c0a8:101::1",  # 6to4 for 192.168.1.1
        "2001:0:5db8:d70e::f5ff:fefe",  # Teredo, a public server, the client 10.0.1.1
        "2001:0:a9fe:a9fe::a201:5f5a",  # Teredo, the server 169.254.169.254
        "64:ff9b::a9fe:a9fe",  # NAT64 for 169.254.169.254
        "64:ff9b::7f00:1",  # NAT64 for 127.0.0.1
        "64:ff9b:1::5db8:d70e",  # local-use NAT64: refused whatever it embeds
        "64:ff9b:1:5db8:d7:e00::",
        "::a9fe:a9fe",  # IPv4-compatible (deprecated)
        "::5db8:d70e",
        "::ffff:a9fe:a9fe",  # IPv4-mapped
    ],
)
def test_an_address_that_embeds_a_private_ipv4_address_is_forbidden(address: str) -> None:
    assert transport.forbidden_address(address)


@pytest.mark.parametrize(
    "address",
    [
        "2002:5db8:d70e::1",  # 6to4 for a public address
        "64:ff9b::5db8:d70e",  # NAT64 (DNS64 on an IPv6-only host) for a public address
        "2001:0:5db8:d70e::a247:28f1",  # Teredo, both ends public
        "::ffff:5db8:d70e",
        "2001:4860:4860::8888",
    ],
)
def test_an_address_that_stands_for_public_ipv4_addresses_is_allowed(address: str) -> None:
    assert not transport.forbidden_address(address)


def test_the_probes_6to4_url_is_refused_without_connecting(no_network: list[Any]) -> None:
    with pytest.raises(transport.ForbiddenAddressError):
        post("http://[2002:a9fe:a9fe::]/")
    assert no_network == []


def test_each_address_of_the_answer_is_tried_in_turn(
    monkeypatch: pytest.MonkeyPatch, no_network: list[Any]
) -> None:
    resolve_with(monkeypatch, [PUBLIC, "93.184.215.15"])
    answer = post("https://hooks.example.org/in")
    assert no_network == [(PUBLIC, 443), ("93.184.215.15", 443)]
    assert answer.error == "ConnectionRefusedError: [Errno 111] Connection refused"


# -- with private addresses allowed: a real local receiver ----------------------------------


def test_the_request_names_the_original_host_while_connecting_to_its_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with running_receiver() as receiver:
        resolver = resolve_with(monkeypatch, "127.0.0.1")
        answer = post(f"http://hooks.example.test:{receiver.port}/in?x=1", allow_private=True)
    assert resolver.lookups == ["hooks.example.test"]
    assert answer.status_code == 200
    assert answer.error == ""
    assert answer.excerpt == '{"received": true, "status": 200}'
    (request,) = receiver.requests
    assert request.path == "/in?x=1"
    assert request.headers["Host"] == f"hooks.example.test:{receiver.port}"
    assert request.body == b"{}"


def test_an_answer_other_than_2xx_is_an_error_and_redirects_are_not_followed() -> None:
    with running_receiver(script=[302, 500]) as receiver:
        found = post(receiver.url, allow_private=True)
        failed = post(receiver.url, allow_private=True)
    assert (found.status_code, found.error) == (302, "HTTP 302")
    assert (failed.status_code, failed.error) == (500, "HTTP 500")
    assert failed.excerpt == '{"received": true, "status": 500}'
    assert len(receiver.requests) == 2


def test_a_receiver_that_drips_its_answer_is_cut_off_at_the_timeout() -> None:
    with dripping_server() as port:
        started = time.monotonic()
        answer = post(f"http://127.0.0.1:{port}/in", allow_private=True, timeout=1)
        elapsed = time.monotonic() - started
    assert answer == transport.Answer(error="TimeoutError: no answer within 1 s")
    assert elapsed < 3


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for hooks.example.test (made with the openssl tool)."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
            "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", "/CN=hooks.example.test",
            "-addext", "subjectAltName=DNS:hooks.example.test",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def test_https_sends_the_host_name_in_sni_and_checks_the_certificate_against_it(
    monkeypatch: pytest.MonkeyPatch, certificate: tuple[Path, Path]
) -> None:
    cert, key = certificate
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(cert, key)
    names: list[str | None] = []

    def record_name(_sock: Any, name: str | None, _context: Any) -> None:
        names.append(name)

    server_context.sni_callback = record_name
    client_context = ssl.create_default_context(cafile=str(cert))
    monkeypatch.setattr(transport, "default_tls_context", lambda: client_context)
    resolve_with(monkeypatch, "127.0.0.1")

    with running_receiver(tls=server_context) as receiver:
        good = post(f"https://hooks.example.test:{receiver.port}/in", allow_private=True)
        # The same server reached under another name: its certificate does not match.
        wrong = post(f"https://other.example.test:{receiver.port}/in", allow_private=True)

    assert good.status_code == 200, good.error
    assert receiver.requests[0].headers["Host"] == f"hooks.example.test:{receiver.port}"
    assert names[0] == "hooks.example.test"
    assert wrong.status_code is None
    assert "CERTIFICATE_VERIFY_FAILED" in wrong.error
    assert "other.example.test" in wrong.error
    assert len(receiver.requests) == 1


def test_the_default_tls_context_verifies_certificates_and_host_names() -> None:
    context = transport.default_tls_context()
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname is True


# -- helpers ---------------------------------------------------------------------------------


class dripping_server:  # noqa: N801  (a context manager, used like a function)
    """Accepts one connection and sends a status line one byte every 0.2 s, forever."""

    def __enter__(self) -> int:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()
        return int(self.listener.getsockname()[1])

    def _serve(self) -> None:
        connection, _ = self.listener.accept()
        with connection:
            while not self.stop.wait(0.2):
                try:
                    connection.sendall(b"H")
                except OSError:
                    return

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.listener.close()
        self.thread.join(timeout=5)
