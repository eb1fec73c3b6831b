"""The Celery application; tasks live in each app's ``tasks.py``."""

import os
from typing import Any

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agreement_server.settings")

app = Celery("agreement_server")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect(dispatch_uid="agreement.worker_sessions")
def limit_database_sessions(**_: Any) -> None:
    """A worker's database statements end with its tasks (``agreement_server.worker_sessions``)."""
    from agreement_server.worker_sessions import limit_worker_sessions

    limit_worker_sessions()
