"""Widget tokens: a product's backend exchanges its license key for a short-lived signed
token bound to the license, one end user and one allowed origin. The key never reaches a
web page; the widget only ever holds the token."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core import signing
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from licenses.models import License, LicenseStatus
from portality.exceptions import ApplicationError

_SALT = "portality.widget-token"
TOKEN_PREFIX = "pbw_"


@dataclass(frozen=True)
class WidgetToken:
    license_id: str
    user_ref: str
    origin: str


def widget_token_issue(*, license: License, user_ref: str, origin: str) -> tuple[str, datetime]:
    origin = origin.strip().rstrip("/")
    if origin not in license.allowed_origins:
        raise ApplicationError(
            gettext_noop(
                "%(origin)s is not among this license's widget origins; an admin adds it on the "
                "license page."
            ),
            params={"origin": origin or "-"},
        )
    if not user_ref.strip():
        raise ApplicationError(
            gettext_noop("user is required: sessions and memories are kept per end user.")
        )
    payload = {"l": str(license.pk), "u": user_ref.strip()[:120], "o": origin}
    token = TOKEN_PREFIX + signing.dumps(payload, salt=_SALT, compress=True)
    return token, timezone.now() + timedelta(seconds=settings.WIDGET_TOKEN_TTL_SECONDS)


def widget_token_read(token: str) -> WidgetToken:
    if not token.startswith(TOKEN_PREFIX):
        raise ApplicationError(gettext_noop("Not a widget token."), status=401)
    try:
        payload = signing.loads(
            token[len(TOKEN_PREFIX) :], salt=_SALT, max_age=settings.WIDGET_TOKEN_TTL_SECONDS
        )
    except signing.SignatureExpired:
        raise ApplicationError(
            gettext_noop("The chat session expired; reload the page."), status=401
        ) from None
    except signing.BadSignature:
        raise ApplicationError(gettext_noop("Invalid widget token."), status=401) from None
    return WidgetToken(license_id=payload["l"], user_ref=payload["u"], origin=payload["o"])


def widget_origin_known(origin: str) -> bool:
    """Whether some usable license allows ``origin``; CORS preflights carry no credentials
    to decide by. A revoked or expired license's origins get no CORS answer. One indexed
    lookup, however many licenses there are (every widget request asks)."""
    return (
        License.objects.filter(status=LicenseStatus.ACTIVE, allowed_origins__contains=[origin])
        .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now()))
        .exists()
    )
