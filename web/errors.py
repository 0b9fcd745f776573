"""Error responses for the whole site: friendly pages in the console's style, JSON under /api/.

Django calls these for errors no view handled (DEBUG off): a missing page, a permission
refused, a malformed request, an unexpected exception. API clients get the same
``{"detail": ...}`` body that every API view returns."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.utils.translation import gettext as _
from django.views.decorators.csrf import requires_csrf_token

API_PREFIX = "/api/"


def respond(
    request: HttpRequest, status: int, detail: str, code: str, template: str
) -> HttpResponse:
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"detail": detail, "code": code}, status=status)
    return HttpResponse(loader.render_to_string(template, request=request), status=status)


@requires_csrf_token
def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if isinstance(exception, RequestDataTooBig):
        limit_mb = settings.DATA_UPLOAD_MAX_MEMORY_SIZE / 1048576
        detail = _("The request body is larger than %(limit).1f MB.") % {"limit": limit_mb}
        return JsonResponse({"detail": detail, "code": "too_large"}, status=413)
    return respond(request, 400, _("Bad request."), "invalid", "400.html")


@requires_csrf_token
def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return respond(
        request, 403, _("You do not have permission to do this."), "permission_denied", "403.html"
    )


@requires_csrf_token
def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return respond(request, 404, _("Not found."), "not_found", "404.html")


@requires_csrf_token
def server_error(request: HttpRequest) -> HttpResponse:
    # No request context: the failure may lie in a context processor or the session.
    if request.path.startswith(API_PREFIX):
        detail = _("Internal error: it has been logged.")
        return JsonResponse({"detail": detail, "code": "server_error"}, status=500)
    return HttpResponse(loader.render_to_string("500.html"), status=500)
