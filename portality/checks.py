"""Settings that each read well but do not go together, or fall outside their range: Django
system checks, so ``manage.py check`` (and ``migrate``, which ``make run`` runs first) names
each in a sentence, all at once. A value that cannot be read at all (``DEBUG=maybe``) is
refused earlier, by its env reader, naming the variable.

The web application (portality/asgi.py, wsgi.py) and the Celery worker refuse to start on
any of these (``refuse_to_start_on_errors``): a deployment finds out at its first start, not
at its first chat."""

from __future__ import annotations

import ipaddress
from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, register, run_checks
from django.core.exceptions import ImproperlyConfigured

TAG = "portality_settings"
VERTEX_SETTINGS = (
    "VERTEX_PROJECT",
    "VERTEX_INDEX",
    "VERTEX_INDEX_ENDPOINT",
    "VERTEX_DEPLOYED_INDEX_ID",
    "VERTEX_ENDPOINT_DOMAIN",
)


@register(TAG)
def providers_check(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:  # noqa: ANN401
    errors: list[CheckMessage] = []
    if settings.PROVIDER_TIMEOUT_SECONDS <= 0 or settings.PROVIDER_BACKOFF_SECONDS < 0:
        errors.append(
            Error(
                "PROVIDER_TIMEOUT_SECONDS must be positive and PROVIDER_BACKOFF_SECONDS not "
                "negative.",
                id="portality.E001",
            )
        )
    for name in ("EMBEDDING_PROVIDER", "LLM_PROVIDER"):
        if getattr(settings, name) == "gemini" and not settings.GEMINI_API_KEY:
            errors.append(Error(f"{name}=gemini needs GEMINI_API_KEY.", id="portality.E002"))
    if settings.LLM_PROVIDER == "openai" and not (
        settings.OPENAI_BASE_URL and settings.OPENAI_MODEL
    ):
        errors.append(
            Error(
                "LLM_PROVIDER=openai needs OPENAI_BASE_URL and OPENAI_MODEL.", id="portality.E003"
            )
        )
    return errors


@register(TAG)
def search_check(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:  # noqa: ANN401
    errors: list[CheckMessage] = []
    if not 0 <= settings.SEARCH_SENTENCE_WEIGHT <= 1:
        errors.append(Error("SEARCH_SENTENCE_WEIGHT must be between 0 and 1.", id="portality.E010"))
    if settings.SEARCH_VECTOR_BACKEND == "vertex":
        missing = [name for name in VERTEX_SETTINGS if not getattr(settings, name)]
        if missing:
            errors.append(
                Error(
                    f"SEARCH_VECTOR_BACKEND=vertex needs {', '.join(missing)}.",
                    id="portality.E011",
                )
            )
    if settings.VERTEX_HYBRID_ALPHA and not _fraction(settings.VERTEX_HYBRID_ALPHA):
        errors.append(
            Error(
                "VERTEX_HYBRID_ALPHA must be a number from 0 to 1; got "
                f"{settings.VERTEX_HYBRID_ALPHA!r}.",
                id="portality.E012",
            )
        )
    return errors


@register(TAG)
def metrics_check(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:  # noqa: ANN401
    errors: list[CheckMessage] = []
    for network in settings.METRICS_ALLOWED_NETWORKS:
        try:
            ipaddress.ip_network(network, strict=False)
        except ValueError:
            errors.append(
                Error(
                    f"METRICS_ALLOWED_NETWORKS: {network!r} is not a network (e.g. 10.0.0.0/8).",
                    id="portality.E020",
                )
            )
    return errors


@register(TAG)
def mail_check(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:  # noqa: ANN401
    errors: list[CheckMessage] = []
    if settings.MAIL_ENABLED and settings.EMAIL_USE_TLS and settings.EMAIL_USE_SSL:
        errors.append(
            Error(
                "SMTP_STARTTLS and SMTP_SSL exclude each other: STARTTLS upgrades a plain "
                "connection (port 587), SSL starts encrypted (port 465). Set one.",
                id="portality.E030",
            )
        )
    if not settings.PUBLIC_URL.startswith(("http://", "https://")):
        errors.append(
            Error(
                f"PUBLIC_URL must start with http:// or https://, not {settings.PUBLIC_URL!r}.",
                id="portality.E031",
            )
        )
    return errors


CONSOLE_ROLES = ("owner", "knowledge_editor", "support", "privacy_officer")


@register(TAG)
def oidc_check(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:  # noqa: ANN401
    if not settings.OIDC_ENABLED:
        return []
    errors: list[CheckMessage] = []
    needed = {
        "OIDC_CLIENT_SECRET": settings.OIDC_RP_CLIENT_SECRET,
        "OIDC_ISSUER": settings.OIDC_ISSUER,
        "OIDC_AUTHORIZATION_ENDPOINT": settings.OIDC_OP_AUTHORIZATION_ENDPOINT,
        "OIDC_TOKEN_ENDPOINT": settings.OIDC_OP_TOKEN_ENDPOINT,
        "OIDC_USERINFO_ENDPOINT": settings.OIDC_OP_USER_ENDPOINT,
        "OIDC_JWKS_ENDPOINT": settings.OIDC_OP_JWKS_ENDPOINT,
    }
    if missing := [name for name, value in needed.items() if not value]:
        errors.append(
            Error(
                f"OIDC_CLIENT_ID is set, so single sign-on needs {', '.join(missing)} too "
                "(the identity provider's /.well-known/openid-configuration lists them).",
                id="portality.E032",
            )
        )
    pairs = [item.split("=", 1) for item in settings.OIDC_ROLE_MAP.split(",") if item.strip()]
    bad = [item for item in pairs if len(item) != 2 or item[1].strip() not in CONSOLE_ROLES]
    if not pairs or bad:
        errors.append(
            Error(
                "OIDC_ROLE_MAP maps the identity provider's groups to console roles, such as "
                f"'admins=owner,privacy=privacy_officer'; roles are {', '.join(CONSOLE_ROLES)}.",
                id="portality.E033",
            )
        )
    return errors


def _fraction(value: str) -> bool:
    try:
        return 0 <= float(value) <= 1
    except ValueError:
        return False


def refuse_to_start_on_errors() -> None:
    """Raise with every settings error in one message (the entry points call this)."""
    errors = [m for m in run_checks(tags=[TAG]) if m.is_serious()]
    if errors:
        raise ImproperlyConfigured(" ".join(str(m.msg) for m in errors))
