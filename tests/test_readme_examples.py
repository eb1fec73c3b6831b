"""The README's curl and ``manage.py`` examples, run as written against the demo study.

The commands are read from README.md itself (indented lines starting with ``curl`` or
``python manage.py``, with their ``\\`` continuations), so the README cannot drift from
what works: only the server's address is swapped for the test server's, and the files the
examples name (``round1.csv``, ``crowd.csv``) are written first, as a user would have them.
The demo is loaded as ``./dev run`` loads it on a fresh machine (study id 1, rounds Pilot
and Main, question ``sentiment``).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from demo.loader import demo_study_ensure
from studies.models import Annotation

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
ADDRESS = "http://127.0.0.1:8000"
PASSWORD = "readme-password"


def commands(prefix: str) -> list[str]:
    """The README's indented commands starting with ``prefix``, continuations joined."""
    found = []
    lines = README.splitlines()
    for index, line in enumerate(lines):
        if line.startswith(f"    {prefix}"):
            command = line.strip()
            while command.endswith("\\"):
                index += 1
                command = command[:-1].rstrip() + " " + lines[index].strip()
            found.append(command)
    return found


def test_the_readme_shows_the_examples_this_test_runs() -> None:
    curls = commands("curl ")
    assert curls == [
        'curl -d username=admin -d password="$PASSWORD" http://127.0.0.1:8000/api/v1/auth/token/',
        'curl -H "Authorization: Token $TOKEN" -H "Content-Type: text/csv" '
        "--data-binary @round1.csv "
        '"http://127.0.0.1:8000/api/v1/studies/1/annotations/bulk/'
        '?round=Main&question=sentiment&create_missing=true"',
    ]
    assert re.findall(r"`(python manage\.py annotations_import_csv [^`]+)`", README) == [
        "python manage.py annotations_import_csv 1 Main sentiment crowd.csv --create-missing"
    ]


def run_curl(command: str, base: str, cwd: Path, **env: str) -> Any:
    result = subprocess.run(
        ["bash", "-c", command.replace(ADDRESS, base) + " --silent --show-error"],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(result.stdout)


@pytest.mark.django_db(transaction=True, reset_sequences=True)
def test_the_readme_examples_run_against_the_demo(live_server: Any, tmp_path: Path) -> None:
    admin = get_user_model().objects.create_superuser("admin", password=PASSWORD)
    study = demo_study_ensure(manager=admin).study
    assert study.pk == 1
    token_command, upload_command = commands("curl ")

    token = run_curl(token_command, live_server.url, tmp_path, PASSWORD=PASSWORD)
    assert token["name"] == "api"
    assert token["is_active"] is True

    (tmp_path / "round1.csv").write_text(
        "item,coder,label\nnew-post-1,alice,positive\nnew-post-1,dana,negative\n"
    )
    upload = run_curl(upload_command, live_server.url, tmp_path, TOKEN=token["secret"])
    assert upload == {
        "created": 2,
        "updated": 0,
        "unchanged": 0,
        "items_created": 1,
        "coders_created": 1,
        "categories_created": [],
    }

    (tmp_path / "crowd.csv").write_text("item,coder,label\nnew-post-2,erin,neutral\n")
    (manage_line,) = re.findall(r"`python manage\.py (annotations_import_csv [^`]+)`", README)
    out = StringIO()
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        call_command(*shlex.split(manage_line), stdout=out)
    finally:
        os.chdir(cwd)
    assert "1 created" in out.getvalue()
    assert (
        Annotation.objects.filter(
            round__name="Main", item__external_id__in=["new-post-1", "new-post-2"]
        ).count()
        == 3
    )
