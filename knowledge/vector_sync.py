"""Keeping a remote vector backend in step with PostgreSQL: the outbox and its drain.

Every insert and delete of an embedding puts a row in ``VectorOutbox``, written by the
database's own triggers (declared on ``Embedding``) in the same transaction, so no path can
change the vectors without the engine hearing of it, and a rolled-back change is never sent. The drain
(``send_now`` right after an ingestion, in the process that ingested; a Celery task queued
when a forgetting or a re-embedding commits; and every 15 s by beat)
sends due rows in batches and deletes each batch's rows once the engine said yes.

- **Nothing lost**: a batch the engine refuses stays, postponed with exponential backoff
  (``attempts``, ``last_error``); a refusal that will not pass by waiting (HTTP 400) is
  retried row by row, so one bad datapoint holds up only itself.
- **Idempotent**: upserting a datapoint already there, or removing one already gone, is
  harmless, so a drain killed between the engine's yes and its commit sends it again.
- **Ordered**: one drain at a time (an advisory lock); embedding ids are never reused, so a
  datapoint is upserted once and removed at most once after. An upsert whose embedding is
  gone when drained sends nothing (the removal behind it is what counts).
- **Receipts**: a forgetting names its ``VectorErasure`` while it deletes (``erasure``);
  the drain stamps ``confirmed_at`` when the engine has removed the last of its datapoints.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Min
from django.db.models.expressions import RawSQL
from django.db.models.functions import Now
from django.utils import timezone

from knowledge.models import Embedding, VectorErasure, VectorOutbox
from knowledge.queue import queue_outbox_drain
from knowledge.search import sparse
from knowledge.search.backends import is_remote, vector_backend
from knowledge.search.nearest import Datapoint, VectorBackend, VectorBackendError
from observability.metrics import OUTBOX_LAG_SECONDS

logger = logging.getLogger(__name__)

BACKOFF_FIRST_SECONDS = 2
BACKOFF_MAX_SECONDS = 600
# One drain at a time, cluster-wide: pg_try_advisory_xact_lock's key (any constant the
# product uses for nothing else).
_DRAIN_LOCK = 7_343_001


@dataclass
class DrainReport:
    upserted: int = 0
    removed: int = 0
    postponed: int = 0
    error: str = ""
    busy: bool = False  # another drain held the lock


def outbox_drain(*, backend: VectorBackend | None = None, max_batches: int = 100) -> DrainReport:
    """Send what is due, batch by batch, until nothing is due or a batch fails."""
    report = DrainReport()
    if not is_remote():
        return report
    backend = backend or vector_backend()
    for _ in range(max_batches):
        if not _drain_batch(backend, report):
            break
    return report


# Up to a second waiting for another drain to let go (it may have read the outbox before
# this process's changes were committed).
DRAIN_BUSY_RETRIES = 20


def outbox_drain_patiently() -> DrainReport:
    """``outbox_drain``, waiting up to a second for a drain running elsewhere to let go: it
    may have read the outbox before this change was committed, and then nothing else sends
    the change before beat's periodic drain (a forgotten document's erasure stayed
    unconfirmed that long in the scale-out run). ``busy`` still set: it did not let go."""
    report = outbox_drain()
    for _ in range(DRAIN_BUSY_RETRIES):
        if not report.busy:
            break
        time.sleep(0.05)
        report = outbox_drain()
    return report


def send_now(what: str) -> None:
    """After an ingestion, in the process that did it (the worker, or ``manage.py ingest``):
    its vectors go to the remote backend now — a drain task queued behind the other uploads
    waited 9-16 s (BENCHMARKS.md). Never raises: the document is ready whatever happens
    here, and what is not sent waits in the outbox for the next drain."""
    if not is_remote():
        return
    try:
        report = outbox_drain_patiently()
    except Exception:
        logger.warning("%s: vectors not sent yet", what, exc_info=True)
        return
    if report.error:
        logger.warning("%s: vectors not sent yet: %s", what, report.error)


def _drain_batch(backend: VectorBackend, report: DrainReport) -> bool:
    """One batch in one transaction; whether another may be due."""
    size = settings.VERTEX_BATCH_SIZE
    with transaction.atomic():
        if not _drain_lock():
            report.busy = True
            return False
        rows = list(VectorOutbox.objects.filter(available_at__lte=Now()).order_by("id")[:size])
        if not rows:
            return False
        try:
            _send(backend, rows, report)
        except VectorBackendError as exc:
            if exc.transient or len(rows) == 1:
                _postpone(rows, exc, report)
                return False
            logger.warning("vector outbox: batch refused (%s); sending it row by row", exc)
            _send_row_by_row(backend, rows, report)
        _done([r for r in rows if r.pk is not None])
    return len(rows) == size


def _send_row_by_row(
    backend: VectorBackend, rows: Sequence[VectorOutbox], report: DrainReport
) -> None:
    """Each row alone: the refused ones stay (their pk set to None here); if the engine
    becomes unreachable meanwhile, the rest wait for the next drain rather than each
    waiting out its own timeout."""
    for n, row in enumerate(rows):
        try:
            _send(backend, [row], report)
        except VectorBackendError as exc:
            left = [row] if not exc.transient else list(rows[n:])
            _postpone(left, exc, report)
            for waiting in left:
                waiting.pk = None
            if exc.transient:
                return


def _drain_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [_DRAIN_LOCK])
        return bool(cursor.fetchone()[0])


def _send(backend: VectorBackend, rows: Sequence[VectorOutbox], report: DrainReport) -> None:
    removals = sorted(
        {r.datapoint_id for r in rows if r.operation == VectorOutbox.Operation.REMOVE}
    )
    upserts = {r.datapoint_id for r in rows if r.operation == VectorOutbox.Operation.UPSERT}
    datapoints = _datapoints(upserts - set(removals))
    if datapoints:
        backend.upsert(datapoints)
    if removals:
        backend.remove(removals)
    report.upserted += len(datapoints)
    report.removed += len(removals)


def _datapoints(ids: set[int]) -> list[Datapoint]:
    """The embeddings still there, as the engine stores them (with their chunk's words when
    the queries are hybrid)."""
    rows = (
        Embedding.objects.filter(pk__in=ids)
        .order_by("pk")
        .only("pk", "vector", "model", "license_id")
    )
    hybrid = bool(settings.VERTEX_HYBRID_ALPHA)
    if hybrid:
        rows = rows.annotate(lexemes=RawSQL(sparse.CHUNK_LEXEMES_SQL, []))
    return [
        Datapoint(
            id=e.pk,
            vector=[float(x) for x in e.vector],
            model=e.model,
            license_id=e.license_id,
            sparse=sparse.chunk_sparse(getattr(e, "lexemes", None) or []) if hybrid else None,
        )
        for e in rows
    ]


def _postpone(rows: Sequence[VectorOutbox], error: VectorBackendError, report: DrainReport) -> None:
    logger.warning("vector outbox: %s change(s) postponed: %s", len(rows), error)
    for row in rows:
        delay = min(BACKOFF_MAX_SECONDS, BACKOFF_FIRST_SECONDS * 2**row.attempts)
        VectorOutbox.objects.filter(pk=row.pk).update(
            attempts=row.attempts + 1,
            available_at=timezone.now() + timedelta(seconds=delay * random.uniform(1, 1.25)),
            last_error=str(error)[:2000],
        )
    report.postponed += len(rows)
    report.error = str(error)


def _done(rows: Sequence[VectorOutbox]) -> None:
    """The engine confirmed these: forget them, observe their lag, stamp finished receipts."""
    if not rows:
        return
    VectorOutbox.objects.filter(pk__in=[r.pk for r in rows]).delete()
    now = timezone.now()
    for row in rows:
        OUTBOX_LAG_SECONDS.labels(operation=row.operation).observe(
            (now - row.created_at).total_seconds()
        )
    receipts = {r.erasure_id for r in rows if r.erasure_id}
    pending = set(
        VectorOutbox.objects.filter(erasure_id__in=receipts).values_list("erasure_id", flat=True)
    )
    VectorErasure.objects.filter(pk__in=receipts - pending, confirmed_at=None).update(
        confirmed_at=now
    )


@contextmanager
def erasure(subject: str) -> Iterator[VectorErasure | None]:
    """Around a forgetting's deletions, inside its transaction: with a remote backend, a
    receipt whose removals the triggers tag; without, nothing (PostgreSQL forgot it all)."""
    if not is_remote():
        yield None
        return
    if not connection.in_atomic_block:
        raise RuntimeError("erasure() belongs inside the forgetting's transaction")
    receipt = VectorErasure.objects.create(subject=subject[:300])
    _tag_removals(str(receipt.pk))
    try:
        yield receipt
    finally:
        _tag_removals("")
    removals = VectorOutbox.objects.filter(erasure=receipt).count()
    VectorErasure.objects.filter(pk=receipt.pk).update(
        datapoints=removals, confirmed_at=None if removals else timezone.now()
    )
    drain_soon()


def _tag_removals(receipt_id: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('portality.vector_erasure', %s, true)", [receipt_id])


def drain_soon() -> None:
    """Queue a drain once the current transaction commits (with a remote backend)."""
    if not is_remote():
        return

    def enqueue() -> None:
        try:
            queue_outbox_drain()
        except Exception:  # the broker down: beat's periodic drain will catch up
            logger.warning("vector outbox: drain not queued; the periodic one will run it")

    transaction.on_commit(enqueue)


def outbox_enqueue_all() -> int:
    """Queue every embedding for upserting: moving a deployment's vectors to a remote
    backend, or refilling an index that lost them. Idempotent, like every upsert."""
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO knowledge_vectoroutbox (datapoint_id, operation)"
            " SELECT id, 'upsert' FROM knowledge_embedding ORDER BY id"
        )
        return cursor.rowcount


def outbox_backlog() -> tuple[int, float]:
    """(changes waiting, age in seconds of the oldest)."""
    backlog = VectorOutbox.objects.aggregate(waiting=Count("id"), oldest=Min("created_at"))
    oldest = backlog["oldest"]
    return backlog["waiting"], (timezone.now() - oldest).total_seconds() if oldest else 0.0
