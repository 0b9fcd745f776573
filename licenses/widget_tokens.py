"""Widget tokens: a product's backend exchanges its license key for a short-lived signed
token bound to the license, one end user and one allowed origin. The key never reaches a
web page; the widget only ever holds the token.

Each token has an id of its own, so one token can be revoked before it expires (the user
logged out of the product, the page leaked it): the id sits in Redis's deny list until the
token would have expired anyway. While Redis is down a revocation cannot be recorded (the
backend is told so) and revoked tokens are not refused (logged, like the rate limits)."""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

import redis
from django.conf import settings
from django.core import signing
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from datastores.keys import redis_key
from datastores.redis_pool import shared_redis
from licenses.models import License, LicenseStatus
from web.exceptions import ApplicationError

logger = logging.getLogger(__name__)
_SALT = "portality.widget-token"
TOKEN_PREFIX = "pbw_"


@dataclass(frozen=True)
class WidgetToken:
    license_id: str
    user_ref: str
    origin: str
    token_id: str = ""  # tokens issued before ids existed have none (and expire within the hour)
    issued_at: float = 0.0


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
    payload = {
        "l": str(license.pk),
        "u": user_ref.strip()[:120],
        "o": origin,
        "j": secrets.token_urlsafe(12),
        "t": int(time.time()),
    }
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
            gettext_noop("The chat session expired; reload the page."),
            status=401,
            extra={"code": "token_expired"},
        ) from None
    except signing.BadSignature:
        raise ApplicationError(gettext_noop("Invalid widget token."), status=401) from None
    claims = WidgetToken(
        license_id=payload["l"],
        user_ref=payload["u"],
        origin=payload["o"],
        token_id=payload.get("j", ""),
        issued_at=float(payload.get("t", 0)),
    )
    if _revoked(claims.token_id):
        raise ApplicationError(
            gettext_noop("This chat session was ended; reload the page."),
            status=401,
            extra={"code": "token_revoked"},
        )
    return claims


def _deny_key(token_id: str) -> str:
    return redis_key("pb:widget-revoked", token_id)


def _revoked(token_id: str) -> bool:
    if not token_id:
        return False
    try:
        return bool(shared_redis().exists(_deny_key(token_id)))
    except redis.RedisError as exc:
        logger.warning("widget token revocations not checked while Redis is unreachable: %s", exc)
        return False


def widget_token_revoke(*, license: License, token: str) -> None:
    """Refuse ``token`` from now until it would have expired. Only the license it was issued
    for may revoke it; revoking twice, or an expired token, is not an error."""
    try:
        claims = widget_token_read(token.strip())
    except ApplicationError as exc:
        if exc.extra.get("code") in {"token_expired", "token_revoked"}:
            return  # refused already
        raise ApplicationError(gettext_noop("Not a widget token of this product.")) from exc
    if claims.license_id != str(license.pk):
        raise ApplicationError(gettext_noop("Not a widget token of this license."))
    if not claims.token_id:
        raise ApplicationError(
            gettext_noop("This token predates revocation; it expires within the hour.")
        )
    remaining = claims.issued_at + settings.WIDGET_TOKEN_TTL_SECONDS - time.time()
    try:
        shared_redis().set(_deny_key(claims.token_id), 1, ex=max(1, int(remaining) + 1))
    except redis.RedisError as exc:
        raise ApplicationError(
            gettext_noop("The token could not be revoked right now; try again in a moment."),
            status=503,
        ) from exc


def widget_origin_known(origin: str) -> bool:
    """Whether some usable license allows ``origin``; CORS preflights carry no credentials
    to decide by. A revoked or expired license's origins get no CORS answer. One indexed
    lookup, however many licenses there are (every widget request asks)."""
    return (
        License.objects.filter(status=LicenseStatus.ACTIVE, allowed_origins__contains=[origin])
        .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now()))
        .exists()
    )
