"""API tokens of labeling tools, encrypted at rest.

Fernet (``cryptography``: AES-128-CBC with an HMAC-SHA256, a timestamp and a random IV per
token) with keys derived by HKDF-SHA256 from a setting: ``AGREEMENT_CONNECTION_KEY`` (by
default ``SECRET_KEY``). Keys in ``AGREEMENT_CONNECTION_OLD_KEYS`` still decrypt, so a key
is rotated by moving the old one there and running ``manage.py connections_reencrypt``.
A token is decrypted only to call the tool; it is never returned by the API, shown in the
admin or written to a log.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets as random_secrets

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings

_SALT = b"agreement-server/connections"
_INFO = b"label-studio-api-token"
WEBHOOK_SECRET_PREFIX = "lssec_"


class TokenUnreadableError(Exception):
    """The stored token was encrypted with a key the server no longer has."""


def _fernet_key(material: str) -> bytes:
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=_SALT, info=_INFO).derive(
        material.encode()
    )
    return base64.urlsafe_b64encode(derived)


def _fernet() -> MultiFernet:
    current = settings.AGREEMENT_CONNECTION_KEY or settings.SECRET_KEY
    keys = [current, *settings.AGREEMENT_CONNECTION_OLD_KEYS]
    return MultiFernet([Fernet(_fernet_key(key)) for key in keys if key])


def token_encrypt(token: str) -> str:
    return _fernet().encrypt(token.encode()).decode("ascii")


def token_decrypt(encrypted: str) -> str:
    try:
        return _fernet().decrypt(encrypted.encode("ascii")).decode()
    except InvalidToken:
        raise TokenUnreadableError(
            "The stored Label Studio token cannot be decrypted with the server's keys "
            "(AGREEMENT_CONNECTION_KEY changed?): enter the token again."
        ) from None


def token_reencrypt(encrypted: str) -> str:
    """The same token under the current key (after a key rotation)."""
    return _fernet().rotate(encrypted.encode("ascii")).decode("ascii")


def token_hint(token: str) -> str:
    return token[-4:] if len(token) >= 12 else ""


def webhook_secret_new() -> str:
    return WEBHOOK_SECRET_PREFIX + random_secrets.token_urlsafe(32)


def webhook_secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def webhook_secret_matches(secret: str | None, stored_hash: str) -> bool:
    if not secret or not stored_hash:
        return False
    return hmac.compare_digest(webhook_secret_hash(secret), stored_hash)
