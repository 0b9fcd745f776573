"""CORS for the endpoints the embedded widget calls, and only for allowed origins.

A preflight carries no credentials, so it is answered for any origin some license allows;
the real request is then checked against its token's own origin (WidgetTokenAuthentication)
and only that origin is echoed back. Everything else gets no CORS headers: browsers refuse."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

WIDGET_PATHS = ("/api/v1/chat", "/api/v1/me/", "/api/v1/feedback")


class WidgetCorsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        origin = request.headers.get("Origin", "").rstrip("/")
        if not origin or not request.path.startswith(WIDGET_PATHS):
            return self.get_response(request)
        from licenses.widget_tokens import widget_origin_known

        allowed = widget_origin_known(origin)
        if request.method == "OPTIONS":
            response = HttpResponse(status=204 if allowed else 403)
        else:
            response = self.get_response(request)
        if allowed:
            response["Access-Control-Allow-Origin"] = origin
            response["Access-Control-Allow-Methods"] = "GET, POST, PATCH, DELETE, OPTIONS"
            response["Access-Control-Allow-Headers"] = "Authorization, Content-Type"
            response["Access-Control-Max-Age"] = "600"
        response["Vary"] = "Origin"
        return response
