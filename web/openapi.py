"""The API's error answers, documented once for every operation.

Every endpoint can refuse: bad input (400), no or bad credentials (401), not allowed (403),
nothing there (404), not now (409), a body too large (413), too many requests (429, with Retry-After), a
server it needs restarting (503, with Retry-After).
Each answers ``{"detail": "a sentence a person can act on", "code": "stable_code"}``: the
detail in the caller's language (Accept-Language: en, es, pt-BR), the code never translated."""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema

ERRORS = {
    "400": "The request is malformed or a field is invalid (detail names it).",
    "401": "Missing, unknown, expired or revoked credentials.",
    "403": "These credentials may not do this (an admin-only option, another origin).",
    "404": "Nothing with that id or machine_id in your scope.",
    "409": "It is not in a state that allows this now (a document still being read, a gap "
    "answered already): detail says which.",
    "413": "The request body is larger than the limit.",
    "429": "Too many requests; wait the seconds in Retry-After.",
    "503": "A server the product needs (database, Redis) is restarting or failing over; "
    "send the same request again after the seconds in Retry-After.",
}
ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "detail": {"type": "string", "description": "For people, in the Accept-Language."},
        "code": {"type": "string", "description": "For programs: stable, never translated."},
    },
    "required": ["detail"],
}


def add_error_responses(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"])."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    reference = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for path, operations in result.get("paths", {}).items():
        if not path.startswith("/api/v1/"):
            continue
        for operation in operations.values():
            responses = operation.setdefault("responses", {})
            for status, description in ERRORS.items():
                responses.setdefault(status, {"description": description, "content": reference})
    return result


class AutoSchema(SpectacularAutoSchema):
    """Names a view's nested serializers after the view ("ChatSessionApiOutput"): every view
    has its own InputSerializer/OutputSerializer, which would otherwise all be "Input" and
    "Output" in the schema, one overwriting the other."""

    def get_serializer_name(self, serializer: Any, direction: Any) -> str:  # noqa: ANN401
        return type(serializer).__qualname__.replace(".", "")

    def get_operation_id(self) -> str:
        """One id per operation: a path's item (``/assistant/{machine_id}``) is named apart
        from its collection (``/assistant``), as "…_by_machine_id"."""
        operation_id = super().get_operation_id()
        variables = re.findall(r"{(\w+)}", self.path)
        return operation_id + "".join(f"_by_{name}" for name in variables)


class LicenseKeyScheme(OpenApiAuthenticationExtension):
    """The license key, as the schema's "Authorize" button offers it."""

    target_class = "licenses.authentication.LicenseKeyAuthentication"
    name = "licenseKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:  # noqa: ANN401
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A license key: Authorization: Bearer pbk_…",
        }


class WidgetTokenScheme(OpenApiAuthenticationExtension):
    target_class = "licenses.authentication.WidgetTokenAuthentication"
    name = "widgetToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:  # noqa: ANN401
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "A widget token from /api/v1/widget/token: Authorization: Widget pbw_…",
        }


class PersonalTokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.PersonalTokenAuthentication"
    name = "personalToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:  # noqa: ANN401
        return {
            "type": "http",
            "scheme": "bearer",
            "description": (
                "A console member's personal API token (tag tokens): Authorization: Bearer "
                "pbt_… (or Token pbt_…)."
            ),
        }
