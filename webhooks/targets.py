"""Webhook URLs: the strict check an endpoint's URL must pass, and what a request needs of it.

A URL is refused when parsers could disagree about where it points, so that the host that
is checked is the host that is called: no user name or password (``user@host``, and so no
``http://127.0.0.1:8199\\@example.org/m``, which one parser reads as host ``example.org``
and another as ``127.0.0.1``), no backslash, no whitespace or control character anywhere,
only ``http`` and ``https``, a host name made of letters, digits and hyphens (IDNA names
are converted) or an IP address, and a numeric port from 1 to 65535.

Whether the host may be private is decided when connecting (``webhooks/transport.py``).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

SCHEMES = {"http": 80, "https": 443}
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")


class InvalidWebhookUrlError(ValueError):
    """The URL cannot be a webhook endpoint; the message says why, for the user."""


@dataclass(frozen=True)
class Target:
    """Where a request goes: ``host`` is ASCII (an IDNA name or a bare IP address)."""

    scheme: str
    host: str
    port: int
    path: str  # the request target: path and query, non-ASCII percent-encoded

    @property
    def is_https(self) -> bool:
        return self.scheme == "https"


def webhook_target(url: str) -> Target:
    r"""The target of a webhook URL, or ``InvalidWebhookUrlError`` saying what is wrong.

    Examples
    --------
    >>> webhook_target("https://Hooks.example.org/in?x=1")
    Target(scheme='https', host='hooks.example.org', port=443, path='/in?x=1')
    >>> webhook_url_problem("http://127.0.0.1:8199\\@example.org/m")
    'The URL must not contain a backslash (\\).'
    """
    if not isinstance(url, str) or not url:
        raise InvalidWebhookUrlError("Enter a URL.")
    _refuse_characters(url)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise InvalidWebhookUrlError(f"The URL cannot be parsed ({error}).") from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise InvalidWebhookUrlError("The URL must start with http:// or https://.")
    if "@" in parts.netloc:
        raise InvalidWebhookUrlError(
            "The URL must not contain a user name or password (user@host)."
        )
    if not parts.hostname:
        raise InvalidWebhookUrlError("The URL has no host.")
    if port == 0:
        raise InvalidWebhookUrlError("The port must be a number from 1 to 65535.")
    host = _ascii_host(parts.hostname, bracketed="[" in parts.netloc)
    request_target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(scheme, host, port or SCHEMES[scheme], _percent_encode(request_target))


def webhook_url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a webhook endpoint, or None when it can."""
    try:
        webhook_target(url)
    except InvalidWebhookUrlError as error:
        return str(error)
    return None


def _refuse_characters(url: str) -> None:
    for char in url:
        if char == "\\":
            raise InvalidWebhookUrlError("The URL must not contain a backslash (\\).")
        if char.isspace():
            raise InvalidWebhookUrlError("The URL must not contain spaces or line breaks.")
        if ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0:
            raise InvalidWebhookUrlError(f"The URL must not contain control characters ({char!r}).")


def _ascii_host(hostname: str, *, bracketed: bool) -> str:
    """The host as sent in ``Host`` and used to resolve: an IP address or an ASCII name."""
    if bracketed:
        if "%" in hostname:  # a zone id names an interface of this machine
            raise InvalidWebhookUrlError("The URL's host must not carry a zone id (%).")
        try:
            return str(ipaddress.IPv6Address(hostname))
        except ValueError:
            raise InvalidWebhookUrlError("The URL's host is not a valid IPv6 address.") from None
    try:
        name = hostname.encode("idna").decode("ascii")
    except UnicodeError:
        raise InvalidWebhookUrlError("The URL's host is not a valid host name.") from None
    labels = name.removesuffix(".").split(".")
    if len(name) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        raise InvalidWebhookUrlError(
            "The URL's host must be a name of letters, digits, hyphens and dots, or an IP address."
        )
    return name


def _percent_encode(text: str) -> str:
    """Non-ASCII characters as UTF-8 percent escapes; everything else as written."""
    return "".join(char if char.isascii() else quote(char) for char in text)
