"""studies.services.rounds."""

from __future__ import annotations

import pytest

from studies.exceptions import ConflictError
from studies.models import RoundStatus
from studies.services import rounds
from tests.factories import RoundFactory, StudyFactory

pytestmark = pytest.mark.django_db


def test_round_create_appends_after_the_last_round() -> None:
    study = StudyFactory()
    RoundFactory(study=study, position=7)
    assert rounds.round_create(study=study, name="next").position == 8


def test_round_close_and_reopen_keep_status_and_date_consistent() -> None:
    round_ = rounds.round_create(study=StudyFactory(), name="r")
    closed = rounds.round_close(round=round_)
    assert (closed.status, closed.closed_at is not None) == (RoundStatus.CLOSED, True)
    with pytest.raises(ConflictError):
        rounds.round_close(round=closed)
    reopened = rounds.round_reopen(round=closed)
    assert (reopened.status, reopened.closed_at) == (RoundStatus.OPEN, None)
