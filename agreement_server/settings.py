"""Settings for the agreement server: one module, driven by environment variables.

The embedded default needs no external service: SQLite in ``var/`` and a Celery broker
that lives on disk (kombu's filesystem transport). Production sets ``DATABASE_URL``
(PostgreSQL) and ``CELERY_BROKER_URL`` (Redis); see ``docker-compose.yml`` and
``.env.example`` for every variable.
"""

from __future__ import annotations

from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from agreement_server.env import (
    cache_from_url,
    env_bool,
    env_int,
    env_list,
    env_secret,
    env_str,
    require_strong_secret_key,
)

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("AGREEMENT_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_secret("SECRET_KEY", default="insecure-dev-key-only-for-debug" if DEBUG else None)
if not DEBUG:
    require_strong_secret_key(SECRET_KEY)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "drf_standardized_errors",
    "studies",
    "annotations",
    "computations",
    "exchange",
    "webhooks",
    "review",
    "adjudication",
    "planning",
    "pages",
    "demo",
    "connections",
    # The project's own system checks (agreement_server/checks.py).
    "agreement_server",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Serves static files under gunicorn, where no other server does in production.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "agreement_server.middleware.ContentSecurityPolicyMiddleware",
    "agreement_server.middleware.LoginThrottleMiddleware",
    "agreement_server.middleware.ApiNotFoundMiddleware",
]

ROOT_URLCONF = "agreement_server.urls"
WSGI_APPLICATION = "agreement_server.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

_DEFAULT_DATABASE_URL = f"sqlite:///{VAR_DIR / 'db.sqlite3'}"
_database_url = env_str("DATABASE_URL", _DEFAULT_DATABASE_URL)
try:
    DATABASES = {"default": dj_database_url.parse(_database_url, conn_max_age=60)}
except ValueError as error:
    raise ImproperlyConfigured(f"DATABASE_URL is not a valid database URL: {error}") from None
if DATABASES["default"]["ENGINE"] not in {
    "django.db.backends.sqlite3",
    "django.db.backends.postgresql",
}:
    raise ImproperlyConfigured("DATABASE_URL must be an sqlite:// or postgres:// URL.")
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several processes (web server, worker) share the embedded database: wait for locks.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {"timeout": 30, "transaction_mode": "IMMEDIATE"}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(VAR_DIR / "static")))
# In development the static files are found in the apps, not in a collected STATIC_ROOT.
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

LOGIN_URL = "login"
# Bulk uploads carry up to 100,000 annotations in one request body.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DATA_UPLOAD_MAX_MEMORY_SIZE", 64 * 1024 * 1024, minimum=1)
# A streamed CSV body (a large or partial bulk upload, annotations_import_csv) has no size
# limit; each of its lines has this one, in bytes (docs/operations.md#bounded-requests).
AGREEMENT_CSV_MAX_LINE_BYTES = env_int("AGREEMENT_CSV_MAX_LINE_BYTES", 1024 * 1024, minimum=1024)
# A streamed CSV import that creates at least this many annotations logs them as one
# change-log entry (a batch entry, expanded on read) instead of one row each
# (docs/crowd-scale.md#the-change-log-of-an-import).
AGREEMENT_INGEST_BATCH_LOG_MIN = env_int("AGREEMENT_INGEST_BATCH_LOG_MIN", 10_000, minimum=1)
# What the members of a zip import may unpack to, in all (the bytes counted as unpacked).
AGREEMENT_IMPORT_MAX_UNZIPPED_BYTES = env_int(
    "AGREEMENT_IMPORT_MAX_UNZIPPED_BYTES", 64 * 1024 * 1024, minimum=1024
)
# An image uploaded for an image item (studies.images): at most this many bytes.
AGREEMENT_IMAGE_MAX_BYTES = env_int("AGREEMENT_IMAGE_MAX_BYTES", 10 * 1024 * 1024, minimum=1024)

REST_FRAMEWORK = {
    "DEFAULT_VERSIONING_CLASS": "rest_framework.versioning.URLPathVersioning",
    "DEFAULT_VERSION": "v1",
    "ALLOWED_VERSIONS": ["v1"],
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "studies.api.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # JSON with a depth limit, strict UTF-8 and the size limit (studies/api/parsers.py).
    "DEFAULT_PARSER_CLASSES": [
        "studies.api.parsers.JSONParser",
        "studies.api.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "studies.api.pagination.StandardPagination",
    "PAGE_SIZE": 100,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "studies.api.schema.AutoSchema",
    "EXCEPTION_HANDLER": "drf_standardized_errors.handler.exception_handler",
    "DEFAULT_THROTTLE_RATES": {"anon": "60/minute"},
    # Proxies in front of the server that append to X-Forwarded-For: the client address for
    # throttling is the one the outermost trusted proxy saw (0: the connection's address).
    "NUM_PROXIES": env_int("NUM_PROXIES", 0, minimum=0),
}

# Throttling of failed sign-ins (the pages and the admin) and of failed API token
# authentication, per client address: after LIMIT failures within WINDOW seconds every
# further attempt from that address answers 429 (Retry-After) until the window has passed.
# The counts live in the cache: CACHE_URL=redis://... shares them between server processes.
# A Redis cache has 1 s to connect and 1 s to answer (agreement_server/env.py); after a
# failure, each process leaves it alone for AGREEMENT_CACHE_RETRY_SECONDS (throttling is
# off meanwhile, as while the cache is down), so a hung Redis never holds requests up.
CACHES = {"default": cache_from_url(env_str("CACHE_URL", "locmem://"))}
AGREEMENT_CACHE_RETRY_SECONDS = env_int("AGREEMENT_CACHE_RETRY_SECONDS", 10, minimum=0)
AGREEMENT_LOGIN_FAILURE_LIMIT = env_int("AGREEMENT_LOGIN_FAILURE_LIMIT", 10, minimum=1)
AGREEMENT_LOGIN_FAILURE_WINDOW_SECONDS = env_int(
    "AGREEMENT_LOGIN_FAILURE_WINDOW_SECONDS", 900, minimum=1
)
AGREEMENT_TOKEN_FAILURE_LIMIT = env_int("AGREEMENT_TOKEN_FAILURE_LIMIT", 20, minimum=1)
AGREEMENT_TOKEN_FAILURE_WINDOW_SECONDS = env_int(
    "AGREEMENT_TOKEN_FAILURE_WINDOW_SECONDS", 300, minimum=1
)

DRF_STANDARDIZED_ERRORS = {
    "EXCEPTION_HANDLER_CLASS": "studies.api.errors.ApiExceptionHandler",
    "ALLOWED_ERROR_STATUS_CODES": ["400", "401", "403", "404", "405", "409", "413", "415", "429"],
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Agreement server API",
    "DESCRIPTION": "Store annotation studies and measure inter-coder agreement.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "ValidationErrorEnum": (
            "drf_standardized_errors.openapi_serializers.ValidationErrorEnum.choices"
        ),
        "ClientErrorEnum": "drf_standardized_errors.openapi_serializers.ClientErrorEnum.choices",
        "ServerErrorEnum": "drf_standardized_errors.openapi_serializers.ServerErrorEnum.choices",
        "ErrorCode401Enum": "drf_standardized_errors.openapi_serializers.ErrorCode401Enum.choices",
        "ErrorCode403Enum": "drf_standardized_errors.openapi_serializers.ErrorCode403Enum.choices",
        "ErrorCode404Enum": "drf_standardized_errors.openapi_serializers.ErrorCode404Enum.choices",
        "ErrorCode405Enum": "drf_standardized_errors.openapi_serializers.ErrorCode405Enum.choices",
        "ErrorCode406Enum": "drf_standardized_errors.openapi_serializers.ErrorCode406Enum.choices",
        "ErrorCode415Enum": "drf_standardized_errors.openapi_serializers.ErrorCode415Enum.choices",
        "ErrorCode429Enum": "drf_standardized_errors.openapi_serializers.ErrorCode429Enum.choices",
        "ErrorCode500Enum": "drf_standardized_errors.openapi_serializers.ErrorCode500Enum.choices",
        # Choice sets that share a field name across components ("status", "type").
        "RoundStatusEnum": "studies.models.RoundStatus",
        "ComputationStatusEnum": "computations.models.ComputationStatus",
        "CoderKindEnum": "studies.models.CoderKind",
        "LabelKindEnum": "studies.models.LabelKind",
        "ClientErrorTypeEnum": ["client_error"],
    },
    "POSTPROCESSING_HOOKS": [
        "drf_standardized_errors.openapi_hooks.postprocess_schema_enums",
    ],
}

# Celery. The default broker lives on disk so the embedded setup needs no server.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {}
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = VAR_DIR / "broker"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }
elif CELERY_BROKER_URL.startswith(("redis://", "rediss://", "unix://")):
    # A request never waits long on a broker that is down or hung: the send fails within
    # ~2 s (1 s to connect or read, one retry) and the sweep sends the work later. The
    # visibility timeout (redelivery of a dead worker's unacknowledged message) stays above
    # the task time limit, so a live long task is never delivered twice; recovery from a
    # dead worker does not wait for it (the sweeps re-send). See docs/operations.md.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "socket_connect_timeout": 1,
        "socket_timeout": 1,
        "visibility_timeout": env_int("CELERY_BROKER_VISIBILITY_TIMEOUT", 900, minimum=60),
    }
CELERY_BROKER_CONNECTION_TIMEOUT = 1
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 600, minimum=1)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 660, minimum=1)
# A worker's database sessions cancel any statement running longer than this (PostgreSQL's
# statement_timeout; 0: none), by default the task's soft time limit: a statement ends with
# its task (agreement_server/worker_sessions.py).
AGREEMENT_WORKER_STATEMENT_TIMEOUT_SECONDS = env_int(
    "AGREEMENT_WORKER_STATEMENT_TIMEOUT_SECONDS",
    min(CELERY_TASK_SOFT_TIME_LIMIT, CELERY_TASK_TIME_LIMIT),
    minimum=0,
)
if AGREEMENT_WORKER_STATEMENT_TIMEOUT_SECONDS > CELERY_TASK_TIME_LIMIT:
    raise ImproperlyConfigured(
        "AGREEMENT_WORKER_STATEMENT_TIMEOUT_SECONDS must be at most CELERY_TASK_TIME_LIMIT, "
        "or a worker's statement outlives its task."
    )
# Computations: a working task refreshes its heartbeat every INTERVAL seconds (from a side
# thread, whatever the step); the sweep, every SWEEP seconds, requeues a running computation
# whose heartbeat is older than HEARTBEAT_SECONDS (its worker died) and re-sends queued work
# the broker refused, or that went unclaimed for RESEND_AFTER seconds. A dead worker's
# computation runs again within HEARTBEAT_SECONDS + SWEEP (+ a beat tick): 30 + 10 < 60 s.
AGREEMENT_COMPUTATION_HEARTBEAT_SECONDS = env_int(
    "AGREEMENT_COMPUTATION_HEARTBEAT_SECONDS", 30, minimum=5
)
AGREEMENT_COMPUTATION_HEARTBEAT_INTERVAL_SECONDS = env_int(
    "AGREEMENT_COMPUTATION_HEARTBEAT_INTERVAL_SECONDS", 5, minimum=1
)
if AGREEMENT_COMPUTATION_HEARTBEAT_INTERVAL_SECONDS * 3 > AGREEMENT_COMPUTATION_HEARTBEAT_SECONDS:
    raise ImproperlyConfigured(
        "AGREEMENT_COMPUTATION_HEARTBEAT_INTERVAL_SECONDS must be at most a third of "
        "AGREEMENT_COMPUTATION_HEARTBEAT_SECONDS, or a live computation is taken for dead."
    )
AGREEMENT_COMPUTATION_SWEEP_SECONDS = env_int("AGREEMENT_COMPUTATION_SWEEP_SECONDS", 10, minimum=1)
AGREEMENT_COMPUTATION_RESEND_AFTER_SECONDS = env_int(
    "AGREEMENT_COMPUTATION_RESEND_AFTER_SECONDS", 120, minimum=10
)
CELERY_BEAT_SCHEDULE = {
    # Requeues computations whose worker died mid-run (their heartbeat stopped) and re-sends
    # work the broker refused or lost.
    "computations-sweep": {
        "task": "studies.computations_sweep",
        "schedule": float(AGREEMENT_COMPUTATION_SWEEP_SECONDS),
    },
    # Re-sends webhook deliveries the broker refused or lost (see docs/webhooks.md).
    "webhooks-sweep": {"task": "webhooks.deliveries_sweep", "schedule": 10.0},
    # Re-sends reference computations (each coder against the gold) lost on the way.
    "reference-sweep": {"task": "adjudication.reference_sweep", "schedule": 60.0},
    # Re-sends plan requests the broker refused or lost, and requeues a dead worker's plan.
    "plans-sweep": {"task": "planning.plans_sweep", "schedule": 30.0},
    # Label Studio connections: events and syncs lost on the way, and the agreement of a
    # round requested once its events have been quiet (docs/imports.md#live-from-label-studio).
    "connections-sweep": {"task": "connections.sweep", "schedule": 10.0},
}
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True

# Rows per write statement of the bulk writes that are not set-based (the review queue's
# rebuild): each batch is its own short statement (agreement_server/bulk.py).
AGREEMENT_WRITE_BATCH_SIZE = env_int("AGREEMENT_WRITE_BATCH_SIZE", 1000, minimum=1)

# Bootstraps larger than a chunk fan out over workers.
AGREEMENT_COMPUTATION_CHUNK_SIZE = env_int("AGREEMENT_COMPUTATION_CHUNK_SIZE", 1000, minimum=10)
# Computations over more annotations than this are split by item ranges over the workers
# (computations/item_sums.py; docs/operations.md#scaling).
AGREEMENT_ITEM_CHUNK_ANNOTATIONS = env_int("AGREEMENT_ITEM_CHUNK_ANNOTATIONS", 1_000_000, minimum=1)
# Rounds larger than this are not compared with the previous round when a computation ends.
AGREEMENT_COMPARE_MAX_ANNOTATIONS = env_int("AGREEMENT_COMPARE_MAX_ANNOTATIONS", 500_000, minimum=0)
# The fewest items two coders must share for the pages to show their pairwise agreement:
# below, the pair is flagged in the tables and left blank in the coder × coder heatmap
# (docs/pages.md, "Pairwise tables").
AGREEMENT_PAIR_MIN_ITEMS = env_int("AGREEMENT_PAIR_MIN_ITEMS", 10, minimum=1)
# Rounds above this many annotations store no coder quality models (Dawid-Skene, MACE).
AGREEMENT_QUALITY_MAX_ANNOTATIONS = env_int(
    "AGREEMENT_QUALITY_MAX_ANNOTATIONS", 1_000_000, minimum=0
)
# Bootstrap replicates of each coder's intervals against the reference (0: none).
AGREEMENT_REFERENCE_BOOTSTRAP = env_int("AGREEMENT_REFERENCE_BOOTSTRAP", 1000, minimum=0)

# Webhooks. Private and loopback addresses are refused unless allowed (an SSRF guard).
AGREEMENT_PUBLIC_URL = env_str("AGREEMENT_PUBLIC_URL", "")
AGREEMENT_WEBHOOKS_ALLOW_PRIVATE = env_bool("AGREEMENT_WEBHOOKS_ALLOW_PRIVATE", False)
AGREEMENT_WEBHOOK_MAX_ATTEMPTS = env_int("AGREEMENT_WEBHOOK_MAX_ATTEMPTS", 8, minimum=1)
AGREEMENT_WEBHOOK_TIMEOUT_SECONDS = env_int("AGREEMENT_WEBHOOK_TIMEOUT_SECONDS", 10, minimum=1)
AGREEMENT_WEBHOOK_RETRY_BASE_SECONDS = env_int(
    "AGREEMENT_WEBHOOK_RETRY_BASE_SECONDS", 30, minimum=1
)
AGREEMENT_WEBHOOK_RETRY_MAX_SECONDS = env_int(
    "AGREEMENT_WEBHOOK_RETRY_MAX_SECONDS", 6 * 3600, minimum=1
)
AGREEMENT_WEBHOOK_RESEND_AFTER_SECONDS = env_int(
    "AGREEMENT_WEBHOOK_RESEND_AFTER_SECONDS", 120, minimum=10
)

# Label Studio connections (docs/imports.md#live-from-label-studio). API tokens are
# encrypted with a key derived from AGREEMENT_CONNECTION_KEY (default: SECRET_KEY); keys in
# AGREEMENT_CONNECTION_OLD_KEYS still decrypt (rotation; docs/security.md).
AGREEMENT_CONNECTION_KEY = env_secret("AGREEMENT_CONNECTION_KEY", default="") or ""
AGREEMENT_CONNECTION_OLD_KEYS = env_list("AGREEMENT_CONNECTION_OLD_KEYS", [])
# Label Studio on a private or loopback address (the usual self-hosted setup) is refused
# unless allowed, as webhook receivers are (the SSRF guard of webhooks/transport.py).
AGREEMENT_LABEL_STUDIO_ALLOW_PRIVATE = env_bool("AGREEMENT_LABEL_STUDIO_ALLOW_PRIVATE", False)
AGREEMENT_LABEL_STUDIO_TIMEOUT_SECONDS = env_int(
    "AGREEMENT_LABEL_STUDIO_TIMEOUT_SECONDS", 30, minimum=1
)
AGREEMENT_LABEL_STUDIO_PAGE_SIZE = env_int("AGREEMENT_LABEL_STUDIO_PAGE_SIZE", 100, minimum=1)
# The round's agreement is requested again once no event has changed it for this long.
AGREEMENT_LABEL_STUDIO_QUIET_SECONDS = env_int(
    "AGREEMENT_LABEL_STUDIO_QUIET_SECONDS", 60, minimum=0
)
# Every connection is synced this often (0: no periodic sync), catching what webhooks missed.
AGREEMENT_LABEL_STUDIO_SYNC_SECONDS = env_int("AGREEMENT_LABEL_STUDIO_SYNC_SECONDS", 900, minimum=0)
if AGREEMENT_LABEL_STUDIO_SYNC_SECONDS:
    CELERY_BEAT_SCHEDULE["connections-sync"] = {
        "task": "connections.syncs_periodic",
        "schedule": float(AGREEMENT_LABEL_STUDIO_SYNC_SECONDS),
    }

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}

# HTTPS. Behind a TLS-terminating proxy that sets X-Forwarded-Proto (and strips it from
# clients), trust it so that a request it forwarded over HTTPS counts as secure: without
# that, SECURE_SSL_REDIRECT would redirect every forwarded request, forever.
if env_bool("TRUST_X_FORWARDED_PROTO", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Off unless set: a server reached over plain HTTP (no proxy yet) stays usable; compose sets it.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
# HSTS is only sent over HTTPS; a year, subdomains included, as the deploy check asks.
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# The Content-Security-Policy header of every response (agreement_server/middleware.py).
# No inline script anywhere; the API docs page's one inline <style> is allowed by its hash.
CONTENT_SECURITY_POLICY = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    # The coder page draws its bars with style="width: ..." attributes.
    "style-src-attr": ["'unsafe-inline'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}
