"""Error responses for the whole site: friendly pages in the console's style, JSON under /api/.

Django calls these for errors no view handled (DEBUG off): a missing page, a permission
refused, a malformed request, an unexpected exception. API clients get the same
``{"detail": ...}`` body that every API view returns."""

from __future__ import annotations

import errno
import functools
import sys
from collections.abc import Callable
from typing import Any

import psycopg
import redis
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django.views.decorators.csrf import requires_csrf_token
from kombu.exceptions import OperationalError as KombuOperationalError

API_PREFIX = "/api/"
# Seconds a client is asked to wait when a server the product needs is not answering: make
# run starts a killed one again within seconds, a managed database fails over in about this.
RETRY_AFTER_SECONDS = 5
# PostgreSQL's SQLSTATEs for a server going away or not taking connections yet (admin or
# crash shutdown, starting up, in recovery); 57014 (a cancelled query) is not one of them.
_SERVER_GOING_AWAY = {"57P01", "57P02", "57P03"}
_DISK_FULL = "53100"  # PostgreSQL could not extend a file: its disk is full


def _in_request_language(handler: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """The error said in the request's language, even when it came before LocaleMiddleware
    chose it (a form read by an earlier middleware, a large upload's temporary file)."""

    @functools.wraps(handler)
    def handle(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:  # noqa: ANN401
        language = getattr(request, "LANGUAGE_CODE", None)
        with translation.override(language or translation.get_language_from_request(request)):
            return handler(request, *args, **kwargs)

    return handle


def respond(
    request: HttpRequest, status: int, detail: str, code: str, template: str
) -> HttpResponse:
    if request.path.startswith(API_PREFIX) or _asks_for_json(request):
        return JsonResponse({"detail": detail, "code": code}, status=status)
    page = loader.render_to_string(template, {"detail": detail}, request=request)
    return HttpResponse(page, status=status)


@requires_csrf_token
@_in_request_language
def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if isinstance(exception, RequestDataTooBig):
        limit_mb = settings.DATA_UPLOAD_MAX_MEMORY_SIZE / 1048576
        detail = _("The request body is larger than %(limit).1f MB.") % {"limit": limit_mb}
        return JsonResponse({"detail": detail, "code": "too_large"}, status=413)
    detail = _("The request could not be understood. Check what you sent and try again.")
    return respond(request, 400, detail, "invalid", "400.html")


@requires_csrf_token
@_in_request_language
def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return respond(
        request, 403, _("You do not have permission to do this."), "permission_denied", "403.html"
    )


@requires_csrf_token
@_in_request_language
def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return respond(request, 404, _("Not found."), "not_found", "404.html")


def _asks_for_json(request: HttpRequest) -> bool:
    """A console page's script (the DropZone's upload, a status poll) asks for JSON first;
    a browser's navigation asks for HTML first."""
    first = request.headers.get("Accept", "").split(",")[0]
    return first.split(";")[0].strip() == "application/json"


def unavailable_server(exc: BaseException | None) -> str:
    """Which server a failure says is not answering ("database", "redis"), or "" when it
    is some other error (a wrong query is a bug, not an outage)."""
    if isinstance(exc, DatabaseError):
        cause = exc.__cause__
        # No SQLSTATE: the client could not reach the server (refused, closed, pool timeout).
        if isinstance(cause, psycopg.OperationalError) and (
            cause.sqlstate is None
            or cause.sqlstate.startswith("08")
            or cause.sqlstate in _SERVER_GOING_AWAY
        ):
            return "database"
    # Celery's broker (Redis) not taking a message: kombu's error around redis-py's.
    if isinstance(exc, redis.ConnectionError | redis.TimeoutError | KombuOperationalError):
        return "redis"
    return ""


NO_ROOM = gettext_noop(
    "The server has no room left to store this, so nothing of it was kept. Ask an "
    "administrator to free disk space, then send it again."
)


def out_of_space(exc: BaseException | None) -> bool:
    """A disk is full: the server's own (or the account's quota on it), or the database's."""
    if isinstance(exc, DatabaseError):
        return getattr(exc.__cause__, "sqlstate", None) == _DISK_FULL
    return isinstance(exc, OSError) and exc.errno in {errno.ENOSPC, errno.EDQUOT}


@requires_csrf_token
@_in_request_language
def server_error(request: HttpRequest) -> HttpResponse:
    # Django calls this inside its handler of the exception, so sys.exc_info() holds it.
    failure = sys.exc_info()[1]
    if unavailable_server(failure):
        return _unavailable(request)
    if out_of_space(failure):
        return respond(request, 507, _(NO_ROOM), "insufficient_storage", "507.html")
    # No request context: the failure may lie in a context processor or the session.
    if request.path.startswith(API_PREFIX) or _asks_for_json(request):
        detail = _("Internal error: it has been logged.")
        return JsonResponse({"detail": detail, "code": "server_error"}, status=500)
    return HttpResponse(loader.render_to_string("500.html"), status=500)


def _unavailable(request: HttpRequest) -> HttpResponse:
    """503 with Retry-After: the database or Redis stopped answering (restarted, failing
    over). The request can be sent again as it was; nothing half-done was kept, as every
    write runs in a transaction."""
    if request.path.startswith(API_PREFIX) or _asks_for_json(request):
        detail = _(
            "The service is restarting a part it needs and cannot answer for a moment; "
            "send the request again in a few seconds."
        )
        response: HttpResponse = JsonResponse({"detail": detail, "code": "unavailable"}, status=503)
    else:
        response = HttpResponse(loader.render_to_string("503.html"), status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response
