"""The one error type services raise, and its translation for the API."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext

if TYPE_CHECKING:
    from rest_framework.response import Response


class ApplicationError(Exception):
    """A failure a person can act on; ``extra`` adds fields to the API's answer.

    ``template`` is English, marked with ``gettext_noop`` where it is raised, with
    ``%(name)s`` placeholders filled from ``params``: ``message`` translates it into the
    language active when it is read (the request's), and a failure stored for later (a
    document's) keeps template and params, so each admin reads it in their own language."""

    def __init__(
        self,
        template: str,
        *,
        params: dict[str, Any] | None = None,
        extra: dict[str, Any] | None = None,
        status: int = 400,
    ):
        self.template = template
        self.params = params or {}
        super().__init__(self.english)
        self.extra = extra or {}
        self.status = status

    @property
    def english(self) -> str:
        return fill_message(self.template, self.params, translate=str)

    @property
    def message(self) -> str:
        return translate_message(self.template, self.params)


def translate_message(template: str, params: dict[str, Any] | None = None) -> str:
    """``template`` (an English msgid) in the active language, its placeholders filled."""

    return fill_message(template, params, translate=gettext)


def fill_message(
    template: str, params: dict[str, Any] | None, *, translate: Callable[[str], str]
) -> str:
    """A parameter named ``t_…`` is itself a marked English phrase: translated too, and
    filled from the same parameters."""
    if not params:
        return translate(template)
    values = {k: translate(v) % params if k.startswith("t_") else v for k, v in params.items()}
    return translate(template) % values


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    # DRF is imported here, not at module level: DRF's settings import the authentication
    # classes, which import this module.
    from rest_framework import exceptions as drf_exceptions
    from rest_framework.response import Response
    from rest_framework.views import exception_handler

    if isinstance(exc, ApplicationError):
        code = exc.extra.get("code") or STATUS_CODES.get(exc.status, "invalid")
        return Response({"detail": exc.message, "code": code, **exc.extra}, status=exc.status)
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, drf_exceptions.ValidationError):
        response.data = {"detail": _first_error(response.data), "errors": response.data}
    if isinstance(exc, drf_exceptions.APIException):
        codes = exc.get_codes()
        response.data["code"] = codes if isinstance(codes, str) else "invalid"
    return response


# ``code`` in every API error: stable and machine-readable, while ``detail`` is a sentence in
# the caller's language (Accept-Language). DRF's own exceptions bring theirs.
STATUS_CODES = {
    400: "invalid",
    401: "authentication_failed",
    403: "permission_denied",
    404: "not_found",
    409: "conflict",
    413: "too_large",
    429: "throttled",
    507: "insufficient_storage",
}


def _first_error(errors: Any) -> str:
    """A one-line summary such as "query: This field may not be blank." for people reading it."""
    if isinstance(errors, dict):
        for field, value in errors.items():
            message = _first_error(value)
            return message if field == "non_field_errors" else f"{field}: {message}"
    if isinstance(errors, list) and errors:
        return _first_error(errors[0])
    return str(errors) or "Invalid input."
