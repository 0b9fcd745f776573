"""Two requests at once, made repeatable: the first is held inside its transaction just after
it writes a row of a given model (a ``post_save`` receiver waits there), the second is
started, and the first commits once the second waits for it in PostgreSQL — or after a
while, if the second never waits (it then wrote beside the first, which is what the tests
look for). Each call runs in its own thread with its own connection, so the test using it
needs ``django_db(transaction=True)``."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from django.db import connection
from django.db.models.signals import post_save

HOLDER = "held-first"


def waits_on_a_lock(seconds: float) -> bool:
    """Whether some session of this database waits for a lock, within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute(
                """SELECT count(*) FROM pg_stat_activity
                    WHERE datname = current_database() AND wait_event_type = 'Lock'"""
            )
            if cursor.fetchone()[0]:
                return True
        time.sleep(0.02)
    return False


def twice_at_once(
    model: type, first: Callable[[], Any], second: Callable[[], Any]
) -> tuple[Any, Any, bool]:
    """Each call's result (or the exception it raised), and whether the second waited."""
    written, release = threading.Event(), threading.Event()
    outcome: dict[str, Any] = {}

    def hold(sender: type, **kwargs: Any) -> None:
        if threading.current_thread().name == HOLDER:
            written.set()
            release.wait(20)

    def run(name: str, call: Callable[[], Any]) -> None:
        try:
            outcome[name] = call()
        except Exception as exc:  # noqa: BLE001 - the failure is what the test reports
            outcome[name] = exc
        finally:
            connection.close()

    post_save.connect(hold, sender=model, weak=False)
    try:
        held = threading.Thread(target=run, args=("first", first), name=HOLDER)
        held.start()
        if not written.wait(20):
            held.join(20)
            raise AssertionError(f"the first call never wrote its row: {outcome.get('first')!r}")
        other = threading.Thread(target=run, args=("second", second))
        other.start()
        waited = waits_on_a_lock(3)
        release.set()
        held.join(20)
        other.join(20)
    finally:
        release.set()
        post_save.disconnect(hold, sender=model)
    return outcome["first"], outcome["second"], waited
