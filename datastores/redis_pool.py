"""One Redis client (and connection pool) per process and URL.

A client per call opened a new connection every time: about 1 ms each, five times per chat
request (rate limits, session read and write). redis-py's pool notices a fork and reconnects
in the child, so Celery's and granian's worker processes are safe.
"""

from __future__ import annotations

import functools

import redis
from django.conf import settings


def shared_redis() -> redis.Redis:
    """The process's client for settings.REDIS_URL (short timeouts: callers degrade, not wait)."""
    return _client_for(settings.REDIS_URL)


@functools.lru_cache(maxsize=8)
def _client_for(url: str) -> redis.Redis:
    return redis.Redis.from_url(
        url, socket_timeout=0.5, socket_connect_timeout=0.5, health_check_interval=30
    )
