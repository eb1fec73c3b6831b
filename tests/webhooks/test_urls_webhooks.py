"""Webhook URLs: refused when parsers could disagree on the host (issue 13, finding 6), in
the service, the API (400 naming ``url``) and the admin; accepted URLs give the request's
target as written out here by hand."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from rest_framework.test import APIClient

from studies.models import Study
from webhooks import services as webhooks
from webhooks.models import WebhookEndpoint
from webhooks.targets import Target, webhook_target, webhook_url_problem

USERINFO = "The URL must not contain a user name or password (user@host)."
BACKSLASH = "The URL must not contain a backslash (\\)."
SCHEME = "The URL must start with http:// or https://."
NO_HOST = "The URL has no host."
SPACES = "The URL must not contain spaces or line breaks."
HOST_NAME = "The URL's host must be a name of letters, digits, hyphens and dots, or an IP address."
PORT = "The port must be a number from 1 to 65535."

REFUSED = [
    # The example: one parser reads host example.org, another 127.0.0.1:8199.
    ("http://127.0.0.1:8199\\@example.org/m", BACKSLASH),
    ("http://user@example.org/hook", USERINFO),
    ("https://user:secret@example.org/hook", USERINFO),
    ("http://example.org@127.0.0.1/hook", USERINFO),
    ("http://:@example.org/hook", USERINFO),
    ("http://example.org\\@evil.example/", BACKSLASH),
    ("https://example.org/a\\b", BACKSLASH),
    ("ftp://example.org/x", SCHEME),
    ("file:///etc/passwd", SCHEME),
    ("gopher://example.org/", SCHEME),
    ("javascript:alert(1)", SCHEME),
    ("example.org/hook", SCHEME),
    ("//example.org/hook", SCHEME),
    ("http:///hook", NO_HOST),
    ("https://", NO_HOST),
    ("http://:8080/hook", NO_HOST),
    ("http://exa mple.org/", SPACES),
    ("http://example.org/a b", SPACES),
    (" http://example.org/", SPACES),
    ("http://example.org/\r\nX-Injected: 1", SPACES),
    ("http://example.org/\u2028", SPACES),
    ("http://example.org/\x00", "The URL must not contain control characters ('\\x00')."),
    ("http://example.org/\x7f", "The URL must not contain control characters ('\\x7f')."),
    ("http://example.org/\x85", SPACES),  # NEL is whitespace to Python
    ("http://example.org/\x9b", "The URL must not contain control characters ('\\x9b')."),
    ("http://example.org:0/", PORT),
    ("http://example.org:99999/", "The URL cannot be parsed (Port out of range 0-65535)."),
    (
        "http://example.org:80a/",
        "The URL cannot be parsed (Port could not be cast to integer value as '80a').",
    ),
    ("http://exa%6dple.org/", HOST_NAME),
    ("http://exa_mple.org/", HOST_NAME),
    ("http://-example.org/", HOST_NAME),
    ("http://example..org/", "The URL's host is not a valid host name."),
    ("http://[::1%25eth0]/", "The URL's host must not carry a zone id (%)."),
    (
        "http://[not-ipv6]/",
        "The URL cannot be parsed ('not-ipv6' does not appear to be an IPv4 or IPv6 address).",
    ),
    ("", "Enter a URL."),
]


@pytest.mark.parametrize(("url", "reason"), REFUSED)
def test_a_url_parsers_could_read_differently_is_refused_with_its_reason(
    url: str, reason: str
) -> None:
    assert webhook_url_problem(url) == reason


@pytest.mark.parametrize(
    ("url", "target"),
    [
        (
            "https://hooks.example.org/agreement",
            Target("https", "hooks.example.org", 443, "/agreement"),
        ),
        ("HTTP://Hooks.Example.ORG", Target("http", "hooks.example.org", 80, "/")),
        # Private addresses pass here: they are refused when connecting, unless allowed.
        ("http://127.0.0.1:8000/hooks?a=1", Target("http", "127.0.0.1", 8000, "/hooks?a=1")),
        ("http://[2001:db8::1]:8080/x", Target("http", "2001:db8::1", 8080, "/x")),
        ("https://bücher.example/in", Target("https", "xn--bcher-kva.example", 443, "/in")),
        (
            "https://hooks.example.org/ü?q=ä#frag",
            Target("https", "hooks.example.org", 443, "/%C3%BC?q=%C3%A4"),
        ),
        ("https://hooks.example.org./x", Target("https", "hooks.example.org.", 443, "/x")),
    ],
)
def test_an_accepted_url_gives_the_target_of_the_request(url: str, target: Target) -> None:
    assert webhook_url_problem(url) is None
    assert webhook_target(url) == target


# -- the service, the API, the admin --------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1:8199\\@example.org/m", BACKSLASH),
        ("http://user@example.org/hook", USERINFO),
        ("ftp://example.org/x", SCHEME),
    ],
)
def test_the_service_refuses_such_urls_on_create_and_update(
    study: Study, url: str, reason: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        webhooks.webhook_endpoint_create(study=study, url=url, events=["computation.finished"])
    assert [(e.code, e.message) for e in caught.value.error_dict["url"]] == [
        ("invalid_url", reason)
    ]
    endpoint, _secret = webhooks.webhook_endpoint_create(
        study=study, url="https://hooks.example.org/a", events=["computation.finished"]
    )
    with pytest.raises(ValidationError) as caught:
        webhooks.webhook_endpoint_update(endpoint=endpoint, url=url)
    assert [e.code for e in caught.value.error_dict["url"]] == ["invalid_url"]
    endpoint.refresh_from_db()
    assert endpoint.url == "https://hooks.example.org/a"


def api_errors(response: Any) -> list[tuple[str, str, str]]:
    return [(e["attr"], e["code"], e["detail"]) for e in response.json()["errors"]]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "error"),
    [
        ("http://127.0.0.1:8199\\@example.org/m", ("url", "invalid_url", BACKSLASH)),
        ("http://user@example.org/hook", ("url", "invalid_url", USERINFO)),
        ("https://user:secret@example.org/hook", ("url", "invalid_url", USERINFO)),
        ("ftp://example.org/x", ("url", "invalid_url", SCHEME)),
        (
            "http://example.org:99999/",
            ("url", "invalid_url", "The URL cannot be parsed (Port out of range 0-65535)."),
        ),
        # Refused by Django's URL validator first (code "invalid"): never a 500.
        ("file:///etc/passwd", ("url", "invalid", "Enter a valid URL.")),
        ("http://example.org\\path", ("url", "invalid", "Enter a valid URL.")),
        ("javascript:alert(1)", ("url", "invalid", "Enter a valid URL.")),
    ],
)
def test_the_api_answers_400_naming_the_url(
    manager_client: APIClient, study: Study, url: str, error: tuple[str, str, str]
) -> None:
    response = manager_client.post(
        f"/api/v1/studies/{study.pk}/webhooks/",
        {"url": url, "events": ["computation.finished"]},
        format="json",
    )
    assert response.status_code == 400
    assert api_errors(response) == [error]
    assert not WebhookEndpoint.objects.exists()


@pytest.mark.django_db
def test_the_api_refuses_such_a_url_on_patch(manager_client: APIClient, study: Study) -> None:
    created = manager_client.post(
        f"/api/v1/studies/{study.pk}/webhooks/",
        {"url": "https://hooks.example.org/a", "events": ["computation.finished"]},
        format="json",
    ).json()
    response = manager_client.patch(
        f"/api/v1/studies/{study.pk}/webhooks/{created['id']}/",
        {"url": "http://127.0.0.1:8199\\@example.org/m"},
        format="json",
    )
    assert response.status_code == 400
    assert api_errors(response) == [("url", "invalid_url", BACKSLASH)]
    assert WebhookEndpoint.objects.get().url == "https://hooks.example.org/a"


@pytest.mark.django_db
def test_the_admin_form_refuses_such_a_url(settings: Any, study: Study) -> None:
    from django.test import Client

    from tests.factories import UserFactory

    settings.ROOT_URLCONF = "tests.webhooks.admin_urlconf"
    client = Client()
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    response = client.post(
        "/admin/webhooks/webhookendpoint/add/",
        {
            "study": study.pk,
            "url": "https://user@hooks.example.org/a",
            "description": "",
            "events": ["computation.finished"],
            "threshold": "",
            "coefficient": "",
            "is_active": "on",
        },
    )
    assert response.status_code == 200
    assert USERINFO in response.content.decode().replace("&#x27;", "'")
    assert not WebhookEndpoint.objects.exists()
