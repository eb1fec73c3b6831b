"""Worker settings for the computation end-to-end tests: the fixture's worker settings, plus
the test's queue as the default one, so the tasks a worker sends itself (bootstrap chunks,
the combine step) reach the test's workers rather than the shared default queue."""

import os

from tests.plugins.worker_settings import *  # noqa: F403

CELERY_TASK_DEFAULT_QUEUE = os.environ.get("AGREEMENT_TEST_QUEUE", "celery")
