"""Request limits per license and per (license, end user), kept in Redis by the ``limits``
library (fixed one-minute windows, its Redis storage on the process's shared connection pool).

A request is checked against every bucket it belongs to before any is counted, so a refused
request costs nothing: one end user hammering an endpoint exhausts their own bucket, not the
license's, and the license's other users keep being served. Calls that cost the server more
(a memory edit re-embeds its text) count for more than one.

DRF turns a refusal into 429 with Retry-After (JSON). If Redis is down the limits are not
enforced — the product keeps answering rather than failing every call — and that is logged
(at most once a minute)."""

from __future__ import annotations

import functools
import logging
import time
from typing import ClassVar

import redis
from django.conf import settings
from limits import RateLimitItem, RateLimitItemPerMinute
from limits.storage import RedisStorage
from limits.strategies import SlidingWindowCounterRateLimiter
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from datastores.redis_pool import shared_redis
from licenses.models import License
from observability.metrics import RATE_LIMIT_REFUSALS

logger = logging.getLogger(__name__)
_last_warning = 0.0
# An end user's reference as stored (Memory.user_ref): a longer one names nobody.
USER_REF_MAX_LENGTH = 120


def end_user(request: Request) -> str | None:
    """Who is speaking through the license: a widget token's user, or the ``user`` a product
    backend names (in the body for chat, in the query for /me/*); None when nobody is named."""
    user_ref = getattr(request.user, "user_ref", None)
    if user_ref:
        return str(user_ref)
    named = request.data.get("user") if hasattr(request.data, "get") else None
    named = named or request.query_params.get("user")
    if isinstance(named, str | int) and str(named).strip():
        return str(named)[:USER_REF_MAX_LENGTH]
    return None


@functools.lru_cache(maxsize=4)
def _limiter(pool: redis.ConnectionPool) -> SlidingWindowCounterRateLimiter:
    # A sliding window (the previous minute's count weighs in as it slides out): a fixed
    # window admitted a whole minute's quota as one burst at its edge (finding F9).
    storage = RedisStorage("redis://", connection_pool=pool, key_prefix="pb:rate")
    return SlidingWindowCounterRateLimiter(storage)


def limiter() -> SlidingWindowCounterRateLimiter:
    # On the process's shared pool (datastores.redis_pool): its short timeouts make a Redis
    # outage cost a request milliseconds, not seconds.
    return _limiter(shared_redis().connection_pool)


class LicenseRateThrottle(BaseThrottle):
    """One bucket per license and one per (license, end user), per minute; an admin's calls
    (API token or console session) have a bucket of their own at the license rate."""

    scope = ""
    per_license_setting = ""
    per_user_setting = ""
    # What one call of a method counts for (1 unless named).
    cost_by_method: ClassVar[dict[str, int]] = {}

    def __init__(self) -> None:
        self._wait = 0.0

    def allow_request(self, request: Request, view: APIView) -> bool:
        if isinstance(request.auth, License):
            buckets = self._buckets(request.auth, end_user(request))
        elif request.user and request.user.is_authenticated:
            per_admin = RateLimitItemPerMinute(getattr(settings, self.per_license_setting))
            buckets = [(per_admin, (self.scope, "admin", str(request.user.pk)))]
        else:
            return True  # refused by the permission check, which costs nothing
        cost = self.cost_by_method.get(request.method or "", 1)
        try:
            return self._take(buckets, cost)
        except redis.RedisError as exc:
            _warn_unenforced(exc)
            return True

    def _buckets(
        self, license: License, user: str | None
    ) -> list[tuple[RateLimitItem, tuple[str, ...]]]:
        per_license = RateLimitItemPerMinute(getattr(settings, self.per_license_setting))
        buckets: list[tuple[RateLimitItem, tuple[str, ...]]] = [
            (per_license, (self.scope, "license", str(license.pk)))
        ]
        if user is not None:
            per_user = RateLimitItemPerMinute(getattr(settings, self.per_user_setting))
            buckets.append((per_user, (self.scope, "user", str(license.pk), user)))
        return buckets

    def _take(self, buckets: list[tuple[RateLimitItem, tuple[str, ...]]], cost: int) -> bool:
        """Count the call in every bucket, or in none when one of them is full."""
        rate = limiter()
        full = [(item, ids) for item, ids in buckets if not rate.test(item, *ids, cost=cost)]
        if full:
            resets = [rate.get_window_stats(item, *ids).reset_time for item, ids in full]
            self._wait = max(resets) - time.time()
            RATE_LIMIT_REFUSALS.labels(limit=self.scope).inc()
            return False
        for item, ids in buckets:
            rate.hit(item, *ids, cost=cost)
        return True

    def wait(self) -> float:
        return max(1.0, self._wait)


def _warn_unenforced(exc: Exception) -> None:
    global _last_warning
    if time.monotonic() - _last_warning > 60:
        _last_warning = time.monotonic()
        logger.warning("rate limits not enforced while Redis is unreachable: %s", exc)


class ChatRateThrottle(LicenseRateThrottle):
    scope = "chat"
    per_license_setting = "CHAT_RATE_PER_LICENSE_PER_MINUTE"
    per_user_setting = "CHAT_RATE_PER_USER_PER_MINUTE"


class SearchRateThrottle(LicenseRateThrottle):
    scope = "search"
    per_license_setting = "SEARCH_RATE_PER_LICENSE_PER_MINUTE"
    per_user_setting = "SEARCH_RATE_PER_USER_PER_MINUTE"


class MemoryRateThrottle(LicenseRateThrottle):
    """/api/v1/me/*: an edit embeds the memory's text again, so it counts as five reads."""

    scope = "memory"
    per_license_setting = "MEMORY_RATE_PER_LICENSE_PER_MINUTE"
    per_user_setting = "MEMORY_RATE_PER_USER_PER_MINUTE"
    cost_by_method: ClassVar[dict[str, int]] = {"PATCH": 5, "PUT": 5}


class WidgetRateThrottle(LicenseRateThrottle):
    """The widget's own calls besides chat: its session on a page load, token issuance."""

    scope = "widget"
    per_license_setting = "WIDGET_RATE_PER_LICENSE_PER_MINUTE"
    per_user_setting = "WIDGET_RATE_PER_USER_PER_MINUTE"


def new_visitor_allowed(address: str | None) -> bool:
    """make run's demo page mints an end user and a widget token for each visitor without
    its cookie: at most DEMO_VISITORS_PER_MINUTE from one address (finding F13)."""
    per_minute = RateLimitItemPerMinute(settings.DEMO_VISITORS_PER_MINUTE)
    try:
        if limiter().hit(per_minute, "demo", "visitor", address or "unknown"):
            return True
    except redis.RedisError as exc:
        _warn_unenforced(exc)
        return True
    RATE_LIMIT_REFUSALS.labels(limit="demo").inc()
    return False
