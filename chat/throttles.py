"""Per-license and per-user request limits in Redis (fixed one-minute windows).

DRF turns a refusal into 429 with Retry-After. If Redis is down the limits are not
enforced (the chat keeps answering) and that is logged."""

from __future__ import annotations

import logging
import time

import redis
from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from licenses.models import License
from portality.redis_pool import shared_redis

logger = logging.getLogger(__name__)
WINDOW = 60


class ChatRateThrottle(BaseThrottle):
    def __init__(self) -> None:
        self._wait = 0.0

    def allow_request(self, request: Request, view: APIView) -> bool:
        if not isinstance(request.auth, License):
            return True  # admins are not throttled here
        window = int(time.time() // WINDOW)
        user_ref = getattr(request.user, "user_ref", "default")
        limits = [
            (
                f"pb:rate:license:{request.auth.pk}:{window}",
                settings.CHAT_RATE_PER_LICENSE_PER_MINUTE,
            ),
            (
                f"pb:rate:user:{request.auth.pk}:{user_ref}:{window}",
                settings.CHAT_RATE_PER_USER_PER_MINUTE,
            ),
        ]
        try:
            with shared_redis().pipeline() as pipe:
                for key, _ in limits:
                    pipe.incr(key)
                    pipe.expire(key, WINDOW * 2)
                counts = pipe.execute()[::2]
        except redis.RedisError as exc:
            logger.warning("rate limits not enforced (Redis: %s)", exc)
            return True
        if any(count > limit for count, (_, limit) in zip(counts, limits, strict=True)):
            self._wait = WINDOW - time.time() % WINDOW
            return False
        return True

    def wait(self) -> float:
        return max(1.0, self._wait)
