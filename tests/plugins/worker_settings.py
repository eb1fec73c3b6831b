"""Settings of the Celery worker process started by the ``celery_worker_process`` fixture.

The test settings, plus a short Redis visibility timeout: a task taken by a worker that
was killed comes back to a restarted worker after seconds rather than an hour; and the
test's queue as the default one, so the tasks a worker sends itself reach the test's workers.
"""

import os

from tests.settings import *  # noqa: F403
from tests.settings import CELERY_BROKER_URL

if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": int(os.environ.get("AGREEMENT_TEST_VISIBILITY_TIMEOUT", "10"))
    }

CELERY_TASK_DEFAULT_QUEUE = os.environ.get("AGREEMENT_TEST_QUEUE", "celery")
