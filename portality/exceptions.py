"""The one error type services raise, and its translation for the API."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rest_framework.response import Response


class ApplicationError(Exception):
    """A failure a person can act on. ``message`` is shown as is; ``extra`` adds fields."""

    def __init__(self, message: str, *, extra: dict[str, Any] | None = None, status: int = 400):
        super().__init__(message)
        self.message = message
        self.extra = extra or {}
        self.status = status


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    # DRF is imported here, not at module level: DRF's settings import the authentication
    # classes, which import this module.
    from rest_framework import exceptions as drf_exceptions
    from rest_framework.response import Response
    from rest_framework.views import exception_handler

    if isinstance(exc, ApplicationError):
        return Response({"detail": exc.message, **exc.extra}, status=exc.status)
    response = exception_handler(exc, context)
    if response is not None and isinstance(exc, drf_exceptions.ValidationError):
        response.data = {"detail": _first_error(response.data), "errors": response.data}
    return response


def _first_error(errors: Any) -> str:
    """A one-line summary such as "query: This field may not be blank." for people reading it."""
    if isinstance(errors, dict):
        for field, value in errors.items():
            message = _first_error(value)
            return message if field == "non_field_errors" else f"{field}: {message}"
    if isinstance(errors, list) and errors:
        return _first_error(errors[0])
    return str(errors) or "Invalid input."
