"""Each request's time by route (Prometheus), and the request id on every log line."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django_guid.log_filters import CorrelationId

from observability.metrics import REQUEST_SECONDS


class RequestMetricsMiddleware:
    """Each request's time in Django, by route pattern (not by path: one series per page,
    whatever ids it carries), method and status class (observability.metrics)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        REQUEST_SECONDS.labels(
            route=f"/{match.route}" if match and match.route else "unmatched",
            method=request.method if request.method in _METHODS else "other",
            status=f"{response.status_code // 100}xx",
        ).observe(time.perf_counter() - started)
        return response


_METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}


class RequestIdLogFilter(CorrelationId):
    """django-guid's request id on each log record; "-" outside a request or task (a
    startup line), so the text format never reads "[None]"."""

    def filter(self, record: logging.LogRecord) -> bool:
        super().filter(record)
        if getattr(record, self.correlation_id_field, None) is None:
            setattr(record, self.correlation_id_field, "-")
        return True
