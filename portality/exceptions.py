"""The one error type services raise, and its translation for the API."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions as drf_exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler


class ApplicationError(Exception):
    """A failure a person can act on. ``message`` is shown as is; ``extra`` adds fields."""

    def __init__(self, message: str, *, extra: dict[str, Any] | None = None, status: int = 400):
        super().__init__(message)
        self.message = message
        self.extra = extra or {}
        self.status = status


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ApplicationError):
        return Response({"detail": exc.message, **exc.extra}, status=exc.status)
    response = exception_handler(exc, context)
    if response is not None and isinstance(exc, drf_exceptions.ValidationError):
        response.data = {"detail": "Invalid input.", "errors": response.data}
    return response
