"""Test settings: the real settings module with test-only defaults for what env must supply."""

import os
import tempfile

os.environ.setdefault("SECRET_KEY", "tests-only-secret-key-never-used-in-production-0123456789")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "1")
os.environ.setdefault("AGREEMENT_VAR_DIR", tempfile.mkdtemp(prefix="agreement-tests-"))
os.environ.setdefault("ALLOWED_HOSTS", "testserver,127.0.0.1,localhost")

from agreement_server.settings import *  # noqa: F403
from agreement_server.settings import STATIC_ROOT

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# whitenoise serves STATIC_ROOT; let it exist (empty) so every request does not warn.
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
