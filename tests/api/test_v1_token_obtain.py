"""``POST /api/v1/auth/token/``: the first token with curl, from a username and password.

Wrong credentials are a 400 with a clear error and count as failed sign-ins of the address
(``AGREEMENT_LOGIN_FAILURE_LIMIT``, 10 in 900 s by default): the eleventh attempt answers 429,
the right password included, and so does the sign-in form.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from studies.models import ApiToken
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/auth/token/"
BAD_CREDENTIALS = {
    "type": "validation_error",
    "errors": [
        {
            "code": "invalid_credentials",
            "detail": "No active user has this username and password.",
            "attr": "non_field_errors",
        }
    ],
}


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


def obtain(password: str, **extra: Any) -> Any:
    """What ``curl -d username=alice -d password=...`` sends."""
    return APIClient().post(
        URL,
        urlencode({"username": "alice", "password": password}),
        content_type="application/x-www-form-urlencoded",
        **extra,
    )


def test_a_form_post_with_the_right_password_answers_a_personal_token(alice: Any) -> None:
    response = obtain("right-password")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["name"] == "api"
    token = ApiToken.objects.get(pk=body["id"])
    assert token.user == alice
    assert token.study is None
    assert token.key_hash == ApiToken.hash_secret(body["secret"])
    studies = APIClient()
    studies.credentials(HTTP_AUTHORIZATION=f"Token {body['secret']}")
    assert studies.get("/api/v1/studies/").status_code == 200


def test_a_json_post_may_name_the_token(alice: Any) -> None:
    response = APIClient().post(
        URL,
        {"username": "alice", "password": "right-password", "name": "laptop"},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["name"] == "laptop"


@pytest.mark.parametrize(
    ("username", "password"), [("alice", "wrong"), ("nobody", "right-password")]
)
def test_wrong_credentials_answer_400_invalid_credentials(
    alice: Any, username: str, password: str
) -> None:
    response = APIClient().post(URL, {"username": username, "password": password})
    assert response.status_code == 400
    assert response.json() == BAD_CREDENTIALS
    assert not ApiToken.objects.exists()


def test_an_inactive_user_gets_no_token(alice: Any) -> None:
    alice.is_active = False
    alice.save()
    assert obtain("right-password").json() == BAD_CREDENTIALS


def test_missing_fields_are_named() -> None:
    response = APIClient().post(URL, {"username": "alice"})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"code": "required", "detail": "This field is required.", "attr": "password"}
    ]


def test_ten_wrong_passwords_then_the_right_one_answers_429(alice: Any) -> None:
    for _ in range(10):
        assert obtain("wrong").status_code == 400
    response = obtain("right-password")
    assert response.status_code == 429
    assert response.headers["Retry-After"] == "900"
    assert response.json() == {
        "type": "client_error",
        "errors": [
            {
                "code": "throttled",
                "detail": "Too many failed sign-ins from your address. "
                "Expected available in 900 seconds.",
                "attr": None,
            }
        ],
    }
    assert not ApiToken.objects.exists()
    # The same count as the sign-in form's: that is closed to the address too.
    form = Client().post("/accounts/login/", {"username": "alice", "password": "right-password"})
    assert form.status_code == 429


def test_nine_wrong_passwords_then_the_right_one_passes(alice: Any) -> None:
    for _ in range(9):
        assert obtain("wrong").status_code == 400
    assert obtain("right-password").status_code == 201


def test_only_the_failing_address_is_blocked(alice: Any) -> None:
    for _ in range(10):
        obtain("wrong", REMOTE_ADDR="198.51.100.1")
    assert obtain("right-password", REMOTE_ADDR="198.51.100.1").status_code == 429
    assert obtain("right-password", REMOTE_ADDR="198.51.100.2").status_code == 201
