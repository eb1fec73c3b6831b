"""The project's documentation (``docs/*.md``) on the site, so that a page can link
"docs/planning.md" instead of naming it: the file's text as it is, in a page."""

from __future__ import annotations

import re

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from pages.views import site_login_required

#: A page's name: a docs file's name without ``.md`` (no path, no dots).
NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,60}")


def docs_text(name: str) -> str | None:
    """The text of ``docs/<name>.md``; None for a name that is not a docs page."""
    if not NAME.fullmatch(name):
        return None
    path = settings.BASE_DIR / "docs" / f"{name}.md"
    return path.read_text(encoding="utf-8") if path.is_file() else None


@require_GET
@site_login_required
def help_view(request: HttpRequest, name: str) -> HttpResponse:
    text = docs_text(name)
    if text is None:
        raise Http404("No such page of the documentation.")
    return render(request, "pages/help.html", {"name": name, "text": text})
