"""The Celery application; tasks live in each app's ``tasks.py``."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agreement_server.settings")

app = Celery("agreement_server")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
