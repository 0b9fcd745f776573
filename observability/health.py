"""/healthz: is every part the product needs up? Used by make run, Docker and monitors.

Anyone may ask, and learns only whether the product is up (``{"status": "ok"}``, or 503
``{"status": "unavailable"}``); which part is down, and versions or paths in its message,
are for a signed-in admin (and the log)."""

from __future__ import annotations

import ipaddress
import logging
import time

import psycopg
import redis
from django.conf import settings
from django.db import connection
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from accounts.roles import DASHBOARD
from observability.metrics import scrape
from portality.celery import app as celery_app
from portality.env import celery_broker_url
from web.http import client_ip

logger = logging.getLogger(__name__)
OK = gettext_noop("ok")  # gettext_noop: the console shows it translated
# The parts' names as the dashboard shows them (the JSON keeps the keys).
PART_LABELS = {
    "database": gettext_lazy("Database"),
    "pgvector": "pgvector",
    "redis": "Redis",
    "worker": gettext_lazy("Worker"),
}


def check_database() -> tuple[str, str]:
    """Return (database status, pgvector version or what is wrong).

    Asked on a connection of its own that gives up after HEALTH_DATABASE_SECONDS. A request
    waits up to the pool's 30 s for its database (under make run it is back in 3 s), but a
    monitor asks about now, and a database that stopped answering held the probe, and the
    thread it runs in, for as long as it stayed silent."""
    params = connection.get_connection_params()
    for django_only in ("cursor_factory", "context"):
        params.pop(django_only, None)
    seconds = settings.HEALTH_DATABASE_SECONDS
    params["connect_timeout"] = seconds
    params["options"] = f"{params.get('options', '')} -c statement_timeout={seconds * 1000}"
    try:
        with psycopg.connect(**params) as own, own.cursor() as cursor:
            cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            row = cursor.fetchone()
    except psycopg.Error as exc:
        return f"unreachable: {exc}".strip(), "unknown (database unreachable)"
    return OK, row[0] if row else "missing: run manage.py migrate to create the vector extension"


def check_redis() -> str:
    try:
        redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1).ping()
    except redis.RedisError as exc:
        return f"unreachable: {exc}"
    return OK


def check_worker(redis_status: str) -> str:
    if redis_status != OK:
        return "unknown: the broker (Redis) is unreachable"
    try:
        # Ping through the Redis of the settings, so the report describes one consistent broker.
        with celery_app.connection_for_write(celery_broker_url(settings.REDIS_URL)) as conn:
            # limit=1: done at the first reply instead of listening out the whole second.
            replies = celery_app.control.ping(
                timeout=settings.HEALTH_WORKER_PING_SECONDS, limit=1, connection=conn
            )
    except Exception as exc:  # kombu raises many transport-specific errors
        logger.warning("worker ping failed: %s", exc)
        return f"unreachable: {exc}"
    return OK if replies else NO_WORKER


NO_WORKER = gettext_noop("no Celery worker answered a ping")
_OWN_SENTENCES = {OK, NO_WORKER}


def system_health() -> dict[str, str]:
    database, pgvector = check_database()
    redis_status = check_redis()
    return {
        "database": database,
        "pgvector": pgvector,
        "redis": redis_status,
        "worker": check_worker(redis_status),
    }


def health_rows(report: dict[str, str]) -> list[tuple[str, str]]:
    """The report for a person, in their language: each part's name, "ok", and the
    product's own sentences (what a server or library said stays as it said it, as in the
    log)."""
    return [
        (str(PART_LABELS.get(part, part)), _(value) if value in _OWN_SENTENCES else value)
        for part, value in report.items()
    ]


def is_healthy(report: dict[str, str]) -> bool:
    pgvector_ok = report["pgvector"][:1].isdigit()
    return pgvector_ok and all(report[part] == OK for part in ("database", "redis", "worker"))


UNHEALTHY_WARNING_INTERVAL_SECONDS = 60.0
_last_unhealthy_warning = 0.0


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    report = system_health()
    healthy = is_healthy(report)
    body = report if _console_role(request) else {"status": "ok" if healthy else "unavailable"}
    if healthy:
        return JsonResponse(body)
    response = JsonResponse(body, status=503)
    # A 503 here is the answer a monitor asked for, not a failure of this request: instead
    # of Django's ERROR line on every poll (a monitor polls every few seconds, and make run
    # polls while the worker starts), one warning a minute names what is down.
    response._has_been_logged = True  # type: ignore[attr-defined]  # django.utils.log.log_response
    _warn_unhealthy(report)
    return response


def _warn_unhealthy(report: dict[str, str]) -> None:
    global _last_unhealthy_warning
    now = time.monotonic()
    if now - _last_unhealthy_warning < UNHEALTHY_WARNING_INTERVAL_SECONDS:
        return
    _last_unhealthy_warning = now
    down = {part: state for part, state in report.items() if state != OK}
    logger.warning("health check: not every part is up: %s", down)


@never_cache
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    """Prometheus metrics of every process on this machine (observability.metrics), for an admin
    or a scraper on METRICS_ALLOWED_NETWORKS; anyone else finds nothing here."""
    if not (_console_role(request) or _scraper(client_ip(request))):
        raise Http404
    body, content_type = scrape()
    return HttpResponse(body, content_type=content_type)


def _console_role(request: HttpRequest) -> bool:
    """A staff account with a role (any role reads the dashboard); a roleless one is told
    to ask for a role and sees no more than anyone else."""
    user = getattr(request, "user", None)
    return bool(user and user.is_active and user.is_staff and user.has_perm(DASHBOARD))


def _scraper(address: str | None) -> bool:
    if not address:
        return False
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(
        ip in ipaddress.ip_network(net, strict=False) for net in settings.METRICS_ALLOWED_NETWORKS
    )
