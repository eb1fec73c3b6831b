"""Settings of the Celery worker process started by the ``celery_worker_process`` fixture.

The test settings, plus a short Redis visibility timeout: a task taken by a worker that
was killed comes back to a restarted worker after seconds rather than an hour.
"""

import os

from tests.settings import *  # noqa: F403
from tests.settings import CELERY_BROKER_URL

if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": int(os.environ.get("AGREEMENT_TEST_VISIBILITY_TIMEOUT", "10"))
    }
