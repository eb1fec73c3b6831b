"""Every model change has its migration: a model edited without one would leave a deployed
database behind the code (``migrate`` would not know the change)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_model_change_lacks_a_migration() -> None:
    out = StringIO()
    # With --check, makemigrations exits (SystemExit 1) when a change lacks its migration.
    call_command("makemigrations", "--check", "--dry-run", stdout=out)
    assert out.getvalue().strip() == "No changes detected"
