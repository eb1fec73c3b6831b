"""Counting failed sign-ins and failed token authentications per client address.

After ``limit`` failures from one address within ``window`` seconds, every further attempt
from it is refused (429, ``Retry-After``) until ``window`` seconds after the failure that
reached the limit, even with the right password or token: otherwise a guesser would still
learn when a guess is right. The counts live in the default cache, so they are shared by
the server processes when ``CACHE_URL`` points at Redis. When the cache cannot be reached,
attempts are let through (and a warning logged) rather than answered with a 500, and the
process leaves the cache alone for ``AGREEMENT_CACHE_RETRY_SECONDS``: a hung Redis costs
one socket timeout per process and period, not one or two per request.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import cache
from django.core.signals import setting_changed
from rest_framework.settings import api_settings

logger = logging.getLogger(__name__)
T = TypeVar("T")


class CacheBreaker:
    """After a cache operation fails, skip the cache in this process for
    ``AGREEMENT_CACHE_RETRY_SECONDS``, then try it again."""

    def __init__(self) -> None:
        self.skip_until = 0.0  # time.monotonic()

    def call(self, operation: Callable[[], T], what: str) -> T | None:
        """``operation()``, or None when it failed now or the cache failed recently."""
        if time.monotonic() < self.skip_until:
            return None
        try:
            return operation()
        except Exception:  # the cache server is down or hung: do not turn it into a 500
            self.skip_until = time.monotonic() + settings.AGREEMENT_CACHE_RETRY_SECONDS
            logger.warning("%s: the cache is unreachable", what, exc_info=True)
            return None

    def reset(self) -> None:
        self.skip_until = 0.0


CACHE_BREAKER = CacheBreaker()


def _reset_on_new_caches(*, setting: str, **kwargs: Any) -> None:
    if setting == "CACHES":  # another cache server (tests): it has not failed yet
        CACHE_BREAKER.reset()


setting_changed.connect(_reset_on_new_caches, dispatch_uid="agreement-cache-breaker")


def client_address(request: Any) -> str:
    """The client's address: the connection's, or with ``NUM_PROXIES`` trusted proxies in
    front, the one the outermost of them saw (the rest of X-Forwarded-For can be forged)."""
    meta = request.META
    remote = str(meta.get("REMOTE_ADDR") or "")
    proxies = int(api_settings.NUM_PROXIES or 0)
    forwarded = meta.get("HTTP_X_FORWARDED_FOR")
    if proxies == 0 or not forwarded:
        return remote
    hops = [hop.strip() for hop in str(forwarded).split(",")]
    return hops[-min(proxies, len(hops))]


@dataclass(frozen=True)
class FailureThrottle:
    """Failures of one kind (``scope``), limited by two settings read at each use."""

    scope: str
    limit_setting: str
    window_setting: str

    @property
    def limit(self) -> int:
        return int(getattr(settings, self.limit_setting))

    @property
    def window(self) -> int:
        return int(getattr(settings, self.window_setting))

    def retry_after(self, address: str) -> int:
        """Seconds until ``address`` may try again; 0 when it may now (or the cache is down)."""
        until = CACHE_BREAKER.call(
            lambda: cache.get(self._key("until", address)), f"throttle {self.scope}"
        )
        if until is None:
            return 0
        return max(1, math.ceil(float(until) - time.time()))

    def record_failure(self, address: str) -> None:
        CACHE_BREAKER.call(lambda: self._count(address), f"throttle {self.scope}")

    def _count(self, address: str) -> None:
        window = self.window
        count_key = self._key("count", address)
        cache.add(count_key, 0, timeout=window)  # the first failure opens the window
        try:
            count = cache.incr(count_key)
        except ValueError:  # the window closed between add and incr
            cache.set(count_key, 1, timeout=window)
            count = 1
        if count >= self.limit:
            cache.set(self._key("until", address), time.time() + window, timeout=window)

    def _key(self, kind: str, address: str) -> str:
        # Hashed: an address from X-Forwarded-For is client text, not a safe cache key.
        digest = hashlib.sha256(address.encode("utf-8", "backslashreplace")).hexdigest()[:32]
        return f"agreement:throttle:{self.scope}:{kind}:{digest}"


LOGIN_FAILURES = FailureThrottle(
    "login", "AGREEMENT_LOGIN_FAILURE_LIMIT", "AGREEMENT_LOGIN_FAILURE_WINDOW_SECONDS"
)
TOKEN_FAILURES = FailureThrottle(
    "token", "AGREEMENT_TOKEN_FAILURE_LIMIT", "AGREEMENT_TOKEN_FAILURE_WINDOW_SECONDS"
)
