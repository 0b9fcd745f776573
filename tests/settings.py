"""Test settings: the real embedded PostgreSQL and Redis, in a data dir of their own."""

from __future__ import annotations

import os
from pathlib import Path

# Tests never touch the data of `make run`: their embedded servers live in var/test
# (unless DATABASE_URL / REDIS_URL point at servers of your own).
os.environ["PORTALITY_DATA_DIR"] = os.environ.get(
    "PORTALITY_TEST_DATA_DIR", str(Path(__file__).resolve().parent.parent / "var" / "test")
)
os.environ.setdefault("SECRET_KEY", "test-only-secret-key-not-for-production-use-0123456789")

from runtime.embedded import start_unless_external  # noqa: E402

start_unless_external()  # the test session's own embedded servers, under var/test

# `make test-fast` runs the tests in two processes (pytest-xdist): each gets its own test
# database (pytest-django), Redis database and metrics directory, so neither counts, limits
# nor flushes what the other does.
_XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")  # "gw0", "gw1", … or ""
if _XDIST_WORKER:
    from portality.env import EMBEDDED_REDIS_URL  # noqa: E402

    _redis_db = int(_XDIST_WORKER.removeprefix("gw")) + 1
    if os.environ.get(EMBEDDED_REDIS_URL, "").endswith("?db=0"):
        os.environ[EMBEDDED_REDIS_URL] = os.environ[EMBEDDED_REDIS_URL][:-1] + str(_redis_db)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(
        Path(os.environ["PORTALITY_DATA_DIR"]) / "run" / f"metrics-{_XDIST_WORKER}"
    )

from portality.settings import *  # noqa: E402,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES["staticfiles"] = {  # noqa: F405
    "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
}
WHITENOISE_USE_FINDERS = True
MEDIA_ROOT = DATA_DIR / "media"  # noqa: F405
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = False
# The live server answers each request in a short-lived thread; persistent connections
# left by those threads would keep the test database busy at teardown.
DATABASES["default"]["CONN_MAX_AGE"] = 0  # noqa: F405
# Provider retries back off from 10 ms, not half a second: the fakes answer at once.
PROVIDER_BACKOFF_SECONDS = 0.01
if _XDIST_WORKER:  # test-fast runs no worker: a health check need not wait a second for one
    HEALTH_WORKER_PING_SECONDS = 0.1
# A test's own worker (started with other settings, e.g. a remote vector backend) sends its
# follow-up tasks to a queue of its own, not to the session worker's "celery".
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("PORTALITY_TEST_QUEUE", "celery")
# The demo page's new-visitor limit is per address, and every test client is 127.0.0.1.
DEMO_VISITORS_PER_MINUTE = 1000
