"""System checks of the deployment, run by ``manage.py check --deploy``."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Tags, register
from django.core.exceptions import ImproperlyConfigured

from agreement_server.env import is_placeholder_secret_key

PLACEHOLDER_SECRET_KEY = "agreement_server.E001"


@register(Tags.security, deploy=True)
def check_secret_key_is_not_the_placeholder(app_configs: Any, **kwargs: Any) -> list[CheckMessage]:
    """The settings refuse the placeholder when DEBUG is off; this catches it with DEBUG on,
    or from a settings module that sets the key after that refusal."""
    try:
        key = settings.SECRET_KEY
    except ImproperlyConfigured:  # no key at all: Django's own check names that
        return []
    if not isinstance(key, str) or not is_placeholder_secret_key(key):
        return []
    return [
        Error(
            "SECRET_KEY is the public placeholder of .env.example.",
            hint='Set a key of your own: python -c "import secrets; '
            'print(secrets.token_urlsafe(50))"',
            id=PLACEHOLDER_SECRET_KEY,
        )
    ]
