"""Throttling (issue 13, finding 9): after a number of failed sign-ins or failed API tokens
from one address within a window, every attempt from it answers 429 with Retry-After, the
right password or token included, until the window has passed."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from agreement_server.throttling import client_address
from studies.services.tokens import personal_token_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
STUDIES = "/api/v1/studies/"
LOGIN_BLOCKED = "Too many failed sign-ins from your address: try again in 15 minutes.\n"


@pytest.fixture(autouse=True)
def fresh_counts() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def alice(db: None) -> Any:
    user = UserFactory(username="alice")
    user.set_password("right-password")
    user.save()
    return user


def sign_in(password: str, **extra: Any) -> Any:
    return Client().post(LOGIN, {"username": "alice", "password": password}, **extra)


def later(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """Move the clock (and the cache's idea of it) forward."""
    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now + seconds)


# --- sign-in ----------------------------------------------------------------------------------


def test_ten_wrong_passwords_then_the_right_one_answers_429(alice: Any) -> None:
    for _ in range(10):
        response = sign_in("wrong")
        assert response.status_code == 200  # the form again, with its error
    response = sign_in("right-password")
    assert response.status_code == 429
    assert response.headers["Retry-After"] == "900"
    assert response.content.decode() == LOGIN_BLOCKED
    assert "_auth_user_id" not in response.wsgi_request.session


def test_nine_wrong_passwords_then_the_right_one_signs_in(alice: Any) -> None:
    for _ in range(9):
        assert sign_in("wrong").status_code == 200
    response = sign_in("right-password")
    assert response.status_code == 302


def test_another_address_still_signs_in(alice: Any) -> None:
    for _ in range(10):
        sign_in("wrong", REMOTE_ADDR="203.0.113.7")
    assert sign_in("right-password", REMOTE_ADDR="203.0.113.7").status_code == 429
    assert sign_in("right-password", REMOTE_ADDR="203.0.113.8").status_code == 302


def test_the_address_may_sign_in_again_after_the_window(
    alice: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    for _ in range(10):
        sign_in("wrong")
    later(monkeypatch, 899)
    assert sign_in("right-password").status_code == 429
    later(monkeypatch, 901)
    assert sign_in("right-password").status_code == 302


def test_admin_sign_in_failures_count_and_block_the_admin_too(alice: Any) -> None:
    client = Client()
    for _ in range(10):
        response = client.post("/admin/login/", {"username": "alice", "password": "wrong"})
        assert response.status_code == 200
    assert client.post("/admin/login/", {"username": "alice", "password": "x"}).status_code == 429
    assert sign_in("right-password").status_code == 429


def test_reading_the_sign_in_form_is_never_throttled(alice: Any) -> None:
    for _ in range(10):
        sign_in("wrong")
    assert Client().get(LOGIN).status_code == 200


@pytest.mark.parametrize(
    ("limit", "window", "tries_allowed", "retry_after"), [(3, 60, 3, "60"), (1, 5, 1, "5")]
)
def test_the_limit_and_window_come_from_the_settings(
    alice: Any, settings: Any, limit: int, window: int, tries_allowed: int, retry_after: str
) -> None:
    settings.AGREEMENT_LOGIN_FAILURE_LIMIT = limit
    settings.AGREEMENT_LOGIN_FAILURE_WINDOW_SECONDS = window
    for _ in range(tries_allowed):
        assert sign_in("wrong").status_code == 200
    response = sign_in("right-password")
    assert response.status_code == 429
    assert response.headers["Retry-After"] == retry_after


# --- API tokens -------------------------------------------------------------------------------


def with_token(secret: str, **extra: Any) -> Any:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {secret}", **extra)
    return client.get(STUDIES)


def test_twenty_bad_tokens_then_a_good_one_answers_429(alice: Any) -> None:
    _, secret = personal_token_create(user=alice, name="cli")
    for n in range(20):
        response = with_token(f"guess-{n}")
        assert response.status_code == 401
        assert response.json()["errors"][0]["code"] == "authentication_failed"
    response = with_token(secret)
    assert response.status_code == 429
    assert response.headers["Retry-After"] == "300"
    assert response.json() == {
        "type": "client_error",
        "errors": [
            {
                "code": "throttled",
                "detail": "Too many failed token attempts from your address. "
                "Expected available in 300 seconds.",
                "attr": None,
            }
        ],
    }


def test_nineteen_bad_tokens_then_a_good_one_passes(alice: Any) -> None:
    _, secret = personal_token_create(user=alice, name="cli")
    for n in range(19):
        assert with_token(f"guess-{n}").status_code == 401
    assert with_token(secret).status_code == 200


def test_a_malformed_authorization_header_counts_as_a_failure(alice: Any) -> None:
    _, secret = personal_token_create(user=alice, name="cli")
    for _ in range(20):
        assert with_token("two parts").status_code == 401
    assert with_token(secret).status_code == 429


def test_good_tokens_are_never_counted(alice: Any) -> None:
    _, secret = personal_token_create(user=alice, name="cli")
    for _ in range(40):
        assert with_token(secret).status_code == 200


def test_bad_tokens_block_only_their_address_and_only_for_the_window(
    alice: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, secret = personal_token_create(user=alice, name="cli")
    for n in range(20):
        with_token(f"guess-{n}", REMOTE_ADDR="198.51.100.1")
    assert with_token(secret, REMOTE_ADDR="198.51.100.1").status_code == 429
    assert with_token(secret, REMOTE_ADDR="198.51.100.2").status_code == 200
    later(monkeypatch, 301)
    assert with_token(secret, REMOTE_ADDR="198.51.100.1").status_code == 200


def test_requests_without_a_token_are_not_counted(alice: Any) -> None:
    for _ in range(30):
        assert APIClient().get(STUDIES).status_code in {401, 403}
    _, secret = personal_token_create(user=alice, name="cli")
    assert with_token(secret).status_code == 200


# --- the client address -------------------------------------------------------------------------


class FakeRequest:
    def __init__(self, **meta: str) -> None:
        self.META = meta


@pytest.mark.parametrize(
    ("proxies", "meta", "address"),
    [
        (0, {"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "1.2.3.4"}, "10.0.0.1"),
        (1, {"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "1.2.3.4"}, "1.2.3.4"),
        # A client's own X-Forwarded-For entries come first; the proxy appends the real one.
        (1, {"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "6.6.6.6, 1.2.3.4"}, "1.2.3.4"),
        (
            2,
            {"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "6.6.6.6, 1.2.3.4, 10.0.0.9"},
            "1.2.3.4",
        ),
        (1, {"REMOTE_ADDR": "10.0.0.1"}, "10.0.0.1"),
    ],
)
def test_the_client_address_trusts_only_the_configured_proxies(
    settings: Any, proxies: int, meta: dict[str, str], address: str
) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": proxies}
    assert client_address(FakeRequest(**meta)) == address


def test_forged_forwarded_addresses_do_not_escape_the_limit(alice: Any, settings: Any) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    for n in range(10):
        sign_in("wrong", HTTP_X_FORWARDED_FOR=f"10.9.9.{n}, 192.0.2.44")
    response = sign_in("right-password", HTTP_X_FORWARDED_FOR="10.9.9.99, 192.0.2.44")
    assert response.status_code == 429


def test_an_unreachable_cache_lets_attempts_through_instead_of_a_500(
    alice: Any, settings: Any
) -> None:
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",  # the discard port: nothing listens
        }
    }
    _, secret = personal_token_create(user=alice, name="cli")
    assert with_token("guess").status_code == 401
    assert with_token(secret).status_code == 200
    assert sign_in("wrong").status_code == 200
    assert sign_in("right-password").status_code == 302
