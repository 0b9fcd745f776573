"""Handing work to the Celery workers when the broker may be down.

A request that queues a task must not fail, nor wait, because Redis does not take the
message: what was asked is already stored, and each kind of work has a way to be sent again
(beat's requeue of queued documents, its look for due sources every five minutes), or is
one that may be lost (a conversation's memory proposals: its next message proposes again).
The send fails within the broker's socket timeout (BROKER_SOCKET_SECONDS)."""

from __future__ import annotations

import logging

from kombu.exceptions import OperationalError as KombuOperationalError

from portality.celery import app as celery_app

logger = logging.getLogger(__name__)


def task_send(name: str, *args: str | list[str], retry: bool = True) -> bool:
    """Queue the task registered as ``name``; False (logged, without its arguments: they
    may be what a person wrote) when the broker did not take the message. ``retry=False``
    tries once, for a caller someone waits on."""
    try:
        # ignore_result: nothing here reads a task's result, and Celery would otherwise
        # subscribe this process to each task's result channel (Redis pub/sub), failing the
        # send with a RuntimeError while Redis is down.
        celery_app.send_task(name, args=list(args), retry=retry, ignore_result=True)
    except KombuOperationalError as exc:
        logger.warning("%s not queued, the broker did not take it (%s)", name, exc)
        return False
    return True
