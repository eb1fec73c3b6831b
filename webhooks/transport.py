"""One webhook request, sent to the address that was checked (the guard against SSRF).

The host is resolved once; unless private addresses are allowed, a name with any private,
loopback, link-local, reserved, multicast, unspecified or otherwise non-global address is
refused (an IPv6 address that stands for IPv4 addresses, such as 6to4's
``2002:a9fe:a9fe::`` for 169.254.169.254, is judged by those), and the socket connects to
one of the addresses of that same answer, checked again right before ``connect()``.
Resolving again when connecting (as ``urllib`` does) would let a name answer a public
address to the check and a private one to the connection (DNS rebinding); here there is
no second lookup to rebind. The request still carries the original host name in ``Host``,
and for https in SNI, and the certificate is verified against that name.

No proxy is used and redirects are not followed. A request has ``timeout`` seconds in all
(connecting, sending, the answer): a watchdog closes the socket when they are over, so a
receiver that drips its answer cannot hold a worker.
"""

from __future__ import annotations

import functools
import http.client
import ipaddress
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from typing import Any

from webhooks.targets import Target

AddressInfo = tuple[Any, ...]  # one entry of ``socket.getaddrinfo``


class ForbiddenAddressError(Exception):
    """The host resolves to an address webhooks may not call."""

    def __init__(self, host: str, address: str) -> None:
        super().__init__(f"{host} resolves to the private address {address}")
        self.host = host
        self.address = address


@dataclass(frozen=True)
class Answer:
    """What the receiver answered (``status_code``), or why there is no answer (``error``)."""

    status_code: int | None = None
    excerpt: str = ""
    error: str = ""


# IPv6 addresses that stand for IPv4 addresses: a connection to one reaches the IPv4 address
# it embeds (through a tunnel or a translator), so that address is the one to judge.
# ``ipaddress`` calls 2002::/16 global on Python 3.11, whatever it embeds.
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
# Local-use NAT64 (RFC 8215): the operator chooses where in it the IPv4 address sits, so
# there is nothing to unwrap reliably; like the deprecated IPv4-compatible form
# (``::a.b.c.d``), it is refused whatever it holds.
_ALWAYS_FORBIDDEN = (ipaddress.IPv6Network("64:ff9b:1::/48"), ipaddress.IPv6Network("::/96"))


def embedded_ipv4(address: str) -> tuple[ipaddress.IPv4Address, ...]:
    """The IPv4 addresses an IPv6 address stands for: IPv4-mapped (``::ffff:a.b.c.d``),
    6to4 (2002::/16, bits 16-47), Teredo (2001::/32: the server, bits 32-63, and the client,
    the last 32 bits inverted) and NAT64 (64:ff9b::/96, the last 32 bits); else none.

    >>> [str(ip) for ip in embedded_ipv4("2002:a9fe:a9fe::")]
    ['169.254.169.254']
    """
    ip = ipaddress.ip_address(address)
    if not isinstance(ip, ipaddress.IPv6Address):
        return ()
    if ip.ipv4_mapped is not None:
        return (ip.ipv4_mapped,)
    if ip.sixtofour is not None:
        return (ip.sixtofour,)
    if ip.teredo is not None:
        return ip.teredo
    if ip in _NAT64:
        return (ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF),)
    return ()


def forbidden_address(address: str) -> bool:
    """True for an address a webhook must not reach unless private addresses are allowed.
    An IPv6 address that stands for IPv4 addresses is judged by them (``embedded_ipv4``).

    >>> [forbidden_address(a) for a in ("93.184.215.14", "10.0.0.7", "2002:a9fe:a9fe::")]
    [False, True, True]
    """
    ip = ipaddress.ip_address(address)
    if any(ip in network for network in _ALWAYS_FORBIDDEN):
        return True
    embedded = embedded_ipv4(address)
    if embedded:
        return any(_not_global(v4) for v4 in embedded)
    return _not_global(ip)


def _not_global(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_reserved
        or ip.is_multicast
        or ip.is_unspecified
        or not ip.is_global
    )


def resolve(host: str, port: int) -> list[AddressInfo]:
    """The TCP addresses of ``host`` (one DNS lookup)."""
    return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)


def vetted_addresses(host: str, port: int, *, allow_private: bool) -> list[AddressInfo]:
    """Resolve ``host`` once; ``ForbiddenAddressError`` if any of its addresses is private."""
    infos = resolve(host, port)
    if not allow_private:
        for info in infos:
            if forbidden_address(info[4][0]):
                raise ForbiddenAddressError(host, info[4][0])
    return infos


def connect_vetted(host: str, port: int, *, deadline: float, allow_private: bool) -> socket.socket:
    """A TCP socket connected to a vetted address of ``host``, before ``deadline`` (monotonic)."""
    last_error: OSError | None = None
    for family, socktype, proto, _name, sockaddr in vetted_addresses(
        host, port, allow_private=allow_private
    ):
        # The check that matters: on the very address this socket connects to.
        if not allow_private and forbidden_address(sockaddr[0]):
            raise ForbiddenAddressError(host, sockaddr[0])
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("timed out")
        sock = socket.socket(family, socktype, proto)
        try:
            sock.settimeout(remaining)
            sock.connect(sockaddr)
        except OSError as error:
            sock.close()
            last_error = error
            continue
        return sock
    raise last_error or OSError(f"{host} resolves to no address")


@functools.cache
def default_tls_context() -> ssl.SSLContext:
    """The system's trusted certificates; host names are checked."""
    return ssl.create_default_context()


class CheckedHTTPConnection(http.client.HTTPConnection):
    """``HTTPConnection`` whose socket goes to a vetted address of its host."""

    def __init__(self, host: str, port: int, *, deadline: float, allow_private: bool) -> None:
        super().__init__(host, port)
        self.deadline = deadline
        self.allow_private = allow_private

    def connect(self) -> None:
        self.sock = connect_vetted(
            self.host, self.port, deadline=self.deadline, allow_private=self.allow_private
        )


class CheckedHTTPSConnection(http.client.HTTPSConnection):
    """``HTTPSConnection`` to a vetted address; SNI and the certificate use the host name."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        deadline: float,
        allow_private: bool,
        context: ssl.SSLContext,
    ) -> None:
        super().__init__(host, port, context=context)
        self.deadline = deadline
        self.allow_private = allow_private
        self.tls_context = context

    def connect(self) -> None:
        sock = connect_vetted(
            self.host, self.port, deadline=self.deadline, allow_private=self.allow_private
        )
        try:
            self.sock = self.tls_context.wrap_socket(sock, server_hostname=self.host)
        except BaseException:
            sock.close()
            raise


def post(
    target: Target,
    body: bytes,
    headers: dict[str, str],
    *,
    timeout: float,
    allow_private: bool,
    excerpt_chars: int = 1000,
) -> Answer:
    """POST ``body`` to ``target``: the answer's status and the start of its body.

    Raises ``ForbiddenAddressError`` (the host is private and that is not allowed); every
    network or protocol failure is returned as ``Answer.error``.
    """
    deadline = time.monotonic() + timeout
    connection: http.client.HTTPConnection
    if target.is_https:
        connection = CheckedHTTPSConnection(
            target.host,
            target.port,
            deadline=deadline,
            allow_private=allow_private,
            context=default_tls_context(),
        )
    else:
        connection = CheckedHTTPConnection(
            target.host, target.port, deadline=deadline, allow_private=allow_private
        )
    expired = threading.Event()
    watchdog = threading.Timer(timeout, _cut, args=(connection, expired))
    watchdog.daemon = True
    watchdog.start()
    try:
        connection.request("POST", target.path, body=body, headers=headers)
        response = connection.getresponse()
        status = response.status
        raw = response.read(excerpt_chars * 4)
    except (OSError, http.client.HTTPException, ValueError) as error:
        if expired.is_set():
            return Answer(error=f"TimeoutError: no answer within {timeout:g} s")
        return Answer(error=f"{type(error).__name__}: {error}"[:excerpt_chars])
    finally:
        watchdog.cancel()
        connection.close()
    excerpt = raw.decode("utf-8", "replace")[:excerpt_chars]
    return Answer(status, excerpt, "" if 200 <= status < 300 else f"HTTP {status}")


def _cut(connection: http.client.HTTPConnection, expired: threading.Event) -> None:
    """The time is over: unblock whatever the request is waiting for."""
    expired.set()
    sock = connection.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
