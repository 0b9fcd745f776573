"""Request limits per license and per (license, end user), in Redis (one-minute windows).

DRF turns a refusal into 429 with Retry-After (JSON). If Redis is down the limits are not
enforced — the product keeps answering rather than failing every call — and that is logged
(at most once a minute)."""

from __future__ import annotations

import logging
import time

import redis
from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from licenses.models import License
from portality.keys import redis_key
from portality.redis_pool import shared_redis

logger = logging.getLogger(__name__)
WINDOW = 60
_last_warning = 0.0


def end_user(request: Request) -> str | None:
    """Who is speaking through the license: a widget token's user, or the ``user`` a product
    backend names in the body (chat and memories); None when nobody is named."""
    user_ref = getattr(request.user, "user_ref", None)
    if user_ref:
        return str(user_ref)
    named = request.data.get("user") if hasattr(request.data, "get") else None
    return str(named)[:120] if isinstance(named, str | int) and str(named).strip() else None


class LicenseRateThrottle(BaseThrottle):
    """Fixed one-minute windows: one per license, one per (license, end user)."""

    scope = ""
    per_license_setting = ""
    per_user_setting = ""

    def __init__(self) -> None:
        self._wait = 0.0

    def allow_request(self, request: Request, view: APIView) -> bool:
        if not isinstance(request.auth, License):
            return True  # admins are not throttled
        window = int(time.time() // WINDOW)
        limits = [
            (
                redis_key(f"pb:rate:{self.scope}:license", request.auth.pk, window),
                getattr(settings, self.per_license_setting),
            )
        ]
        user = end_user(request)
        if user is not None:
            limits.append(
                (
                    redis_key(f"pb:rate:{self.scope}:user", request.auth.pk, user, window),
                    getattr(settings, self.per_user_setting),
                )
            )
        counts = _count(key for key, _ in limits)
        if counts is None:
            return True
        if any(count > limit for count, (_, limit) in zip(counts, limits, strict=True)):
            self._wait = WINDOW - time.time() % WINDOW
            return False
        return True

    def wait(self) -> float:
        return max(1.0, self._wait)


def _count(keys: object) -> list[int] | None:
    global _last_warning
    try:
        with shared_redis().pipeline() as pipe:
            for key in keys:  # type: ignore[attr-defined]
                pipe.incr(key)
                pipe.expire(key, WINDOW * 2)
            return pipe.execute()[::2]
    except redis.RedisError as exc:
        if time.monotonic() - _last_warning > 60:
            _last_warning = time.monotonic()
            logger.warning("rate limits not enforced while Redis is unreachable: %s", exc)
        return None


class ChatRateThrottle(LicenseRateThrottle):
    scope = "chat"
    per_license_setting = "CHAT_RATE_PER_LICENSE_PER_MINUTE"
    per_user_setting = "CHAT_RATE_PER_USER_PER_MINUTE"


class SearchRateThrottle(LicenseRateThrottle):
    scope = "search"
    per_license_setting = "SEARCH_RATE_PER_LICENSE_PER_MINUTE"
    per_user_setting = "SEARCH_RATE_PER_USER_PER_MINUTE"
