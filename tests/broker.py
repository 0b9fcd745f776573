"""The Celery app's Redis taken away from the test's process: down (nothing listens), or
frozen (it accepts connections and never answers). The app talks to Redis twice when it
sends a task: the broker takes the message, and the result store is where a caller would
wait for its result."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from portality.celery import app
from tests.ports import free_port, silent_server


def _use(broker_url: str, result_url: str) -> None:
    app.conf.broker_url = broker_url
    app.conf.result_backend = result_url
    app._pool = None  # the producers' connections were made for the other broker
    app.amqp._producer_pool = None
    app._local.__dict__.pop("backend", None)  # the result store's client, kept per thread


@contextlib.contextmanager
def _redis_at(url: str) -> Iterator[None]:
    original = app.conf.broker_url, app.conf.result_backend
    _use(url, url)
    try:
        yield
    finally:
        _use(*original)


@contextlib.contextmanager
def redis_down() -> Iterator[None]:
    with _redis_at(f"redis://127.0.0.1:{free_port()}/0"):
        yield


@contextlib.contextmanager
def redis_frozen() -> Iterator[None]:
    with silent_server() as port, _redis_at(f"redis://127.0.0.1:{port}/0"):
        yield
