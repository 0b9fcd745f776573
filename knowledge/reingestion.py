"""Ingest a document again: Retry (failed, ready, stuck, interrupted, or its message lost
with the broker), a new version of its file, and the periodic requeue of what was
interrupted. Interrupted work is read from the database: a document "processing" whose
advisory lock no session holds has no run left (its worker was killed)."""

from __future__ import annotations

import logging
import re
import uuid
from pathlib import Path
from typing import IO

import redis
from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.audit import audit_record
from datastores.locks import lock_key, locks_held
from datastores.redis_pool import shared_redis
from knowledge.models import Document, DocumentStatus
from knowledge.queue import documents_queued_again
from knowledge.uploads import (
    audit_name,
    check_pdf_password,
    file_sha256,
    shown_filename,
    upload_checked,
)
from licenses.models import License
from web.exceptions import ApplicationError

logger = logging.getLogger(__name__)


def document_is_stuck(document: Document) -> bool:
    limit = timezone.now() - settings.KNOWLEDGE_STUCK_AFTER
    return document.status == DocumentStatus.PROCESSING and document.updated_at < limit


def documents_in_broker() -> set[str] | None:
    """Ids of the documents whose ingestion message is in the broker — waiting in the queue,
    or delivered to a worker and not yet acknowledged — or None when it cannot be read. A
    message lost with Redis (killed within a second of an upload) leaves its document
    "queued" with nothing left to pick it up. Celery's headers carry the task's arguments
    in clear (argsrepr), so the ids are read from them without decoding the bodies; the
    tasks here have no routes, so they wait in the default queue."""
    try:
        client = shared_redis()
        queue = getattr(settings, "CELERY_TASK_DEFAULT_QUEUE", "celery")
        messages = [*client.lrange(queue, 0, -1), *client.hvals("unacked")]  # type: ignore[misc]
    except redis.RedisError as exc:
        logger.warning("cannot read the broker's queue: %s", exc)
        return None
    found: set[str] = set()
    for message in messages:
        found.update(_UUID.findall(message.decode("utf-8", "replace")))
    return found


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _message_lost(document: Document, waiting: set[str] | None) -> bool:
    """Queued for a while, and no message for it in the broker (or the broker cannot say and
    it has waited past the stuck limit)."""
    if document.status != DocumentStatus.QUEUED:
        return False
    age = timezone.now() - document.updated_at
    if waiting is None:
        return age > settings.KNOWLEDGE_STUCK_AFTER
    return age > settings.KNOWLEDGE_QUEUED_LOST_AFTER and str(document.pk) not in waiting


def _interrupted(documents: list[Document]) -> list[Document]:
    """The documents "processing" that no run holds (knowledge.ingestion's advisory lock):
    their worker was killed, and their message comes back only after the broker's
    visibility timeout, an hour."""
    processing = [d for d in documents if d.status == DocumentStatus.PROCESSING]
    held = locks_held(lock_key(d.pk) for d in processing)
    return [d for d in processing if lock_key(d.pk) not in held]


def document_retry(
    *, document: Document, pdf_password: str | None = None, enqueue: bool = True
) -> Document:
    """Queue a document again: failed, stuck, or ready (re-ingest; its chunks stay searchable
    until the new ones replace them in one transaction)."""
    check_pdf_password(pdf_password)
    _refuse_while_busy(document)
    with transaction.atomic():
        _queue_again(document, pdf_password=pdf_password, enqueue=enqueue)
        audit_record(
            "knowledge.retried",
            target=f"document:{document.pk}",
            details={"filename": audit_name(document.filename), "was": document.status},
        )
    document.refresh_from_db()
    return document


def _refuse_while_busy(document: Document) -> None:
    """A run is reading it, or its message is waiting for a worker."""
    if (
        document.status == DocumentStatus.PROCESSING
        and not document_is_stuck(document)
        and not _interrupted([document])
    ):
        raise ApplicationError(
            gettext_noop("%(filename)s is still being processed; wait for it to finish."),
            params={"filename": document.filename},
            status=409,
        )
    if document.status == DocumentStatus.QUEUED and not _message_lost(
        document, documents_in_broker()
    ):
        raise ApplicationError(
            gettext_noop("%(filename)s is already queued."),
            params={"filename": document.filename},
            status=409,
        )


def _queue_again(document: Document, *, pdf_password: str | None, enqueue: bool) -> None:
    documents_queued_again(
        Document.objects.filter(pk=document.pk),
        enqueue=enqueue,
        pdf_password=pdf_password if pdf_password is not None else document.pdf_password,
    )


def document_new_version(
    *,
    document: Document,
    file: IO[bytes],
    filename: str,
    pdf_password: str = "",
    enqueue: bool = True,
) -> Document:
    """An uploaded document's new version, in its place: the same document (its scope,
    options and id, so links to it stay), read again. Its chunks
    stay searchable until the new ones replace them; those whose heading and text did not
    change keep their vectors; passages it no longer has go to documents that share them
    (knowledge.sharing), and chunks forgotten one by one stay forgotten. The file is checked
    as an upload is, before anything changes."""
    check_pdf_password(pdf_password)
    if document.source_pages.exists():
        raise ApplicationError(
            gettext_noop(
                "%(filename)s comes from a web source: it changes when the page does (Check "
                "now on the source)."
            ),
            params={"filename": document.filename},
            status=409,
        )
    _refuse_while_busy(document)
    name = shown_filename(filename, document.license, document.redaction)
    size, kind = upload_checked(file, name)
    sha256 = file_sha256(file)
    if sha256 == document.sha256:
        raise ApplicationError(
            gettext_noop("%(filename)s is the version already stored: nothing changed."),
            params={"filename": name},
            status=409,
        )
    old_name = document.file.name or ""
    new_name = _file_saved(document, file, sha256, suffix=Path(name).suffix)
    try:
        with transaction.atomic():
            Document.objects.filter(pk=document.pk).update(
                file=new_name, sha256=sha256, size_bytes=size, kind=kind, filename=name
            )
            _queue_again(document, pdf_password=pdf_password, enqueue=enqueue)
            audit_record(
                "knowledge.new_version",
                target=f"document:{document.pk}",
                details={
                    "filename": audit_name(document.filename),
                    "new_filename": audit_name(name),
                    "bytes": size,
                },
            )
    except IntegrityError as exc:
        default_storage.delete(new_name)
        raise _already_in_scope(name) from exc
    transaction.on_commit(lambda: default_storage.delete(old_name))
    document.refresh_from_db()
    return document


def _file_saved(document: Document, file: IO[bytes], sha256: str, *, suffix: str) -> str:
    """The new content beside the old (which goes once the change is committed)."""
    folder = Path(document.file.name or "").parent
    file.seek(0)
    return default_storage.save(
        f"{folder}/{document.pk}-{sha256[:12]}{suffix.lower()[:10]}", File(file)
    )


def _already_in_scope(filename: str) -> ApplicationError:
    return ApplicationError(
        gettext_noop("The new content of %(filename)s is already a document of this scope."),
        params={"filename": filename},
        status=409,
    )


def document_replace_file(
    *, document: Document, file: IO[bytes], kind_hint: str = "", enqueue: bool = True
) -> Document:
    """A new version of a document's content (a web page that changed): the file is
    checked as an upload is and replaced, and the document re-ingested in place; its chunks
    stay searchable until the new ones replace them, and those whose text did not change
    keep their vectors. Its kind follows the content (an address that now serves a PDF)."""
    size, kind = upload_checked(file, document.filename, text_hint=kind_hint)
    sha256 = file_sha256(file)
    if sha256 == document.sha256:
        return document
    old_name = document.file.name or ""
    new_name = _file_saved(document, file, sha256, suffix=Path(old_name).suffix)
    try:
        with transaction.atomic():
            Document.objects.filter(pk=document.pk).update(
                file=new_name, sha256=sha256, size_bytes=size, kind=kind, updated_at=timezone.now()
            )
    except IntegrityError as exc:
        default_storage.delete(new_name)
        raise _already_in_scope(document.filename) from exc
    transaction.on_commit(lambda: default_storage.delete(old_name))
    document.refresh_from_db()
    if document.status == DocumentStatus.QUEUED:
        # Already waiting for a worker (it took a passage another page let go of, in this
        # same check): that run reads the new file.
        return document
    return document_retry(document=document, enqueue=enqueue)


def documents_requeue_stuck(*, enqueue: bool = True) -> list[Document]:
    """Queue again every document stuck (processing for too long), interrupted (no worker
    holds it) or whose queued message was lost: at make run's start, by `ingest
    --retry-stuck`, and every 15 minutes."""
    processing = list(Document.objects.filter(status=DocumentStatus.PROCESSING))
    lost_limit = timezone.now() - settings.KNOWLEDGE_QUEUED_LOST_AFTER
    queued = list(Document.objects.filter(status=DocumentStatus.QUEUED, updated_at__lt=lost_limit))
    interrupted = _interrupted(processing)
    stuck = [d for d in processing if document_is_stuck(d) or d in interrupted]
    if queued:
        waiting = documents_in_broker()
        stuck += [d for d in queued if _message_lost(d, waiting)]
    return [document_retry(document=document, enqueue=enqueue) for document in stuck]


def documents_read_again(
    *, kinds: list[str], license: License | None, every_scope: bool, enqueue: bool = True
) -> list[uuid.UUID]:
    """Queue every ready document of ``kinds`` (all kinds when empty) in ``license``'s scope,
    or in every scope, to be read again: after an upgrade that reads more of a format (the
    pictures beside a PDF's text). Their chunks stay searchable meanwhile, and chunks that
    come out the same keep their vectors."""
    documents = Document.objects.filter(status=DocumentStatus.READY)
    if kinds:
        documents = documents.filter(kind__in=kinds)
    if not every_scope:
        documents = documents.filter(license=license)
    with transaction.atomic():
        queued = documents_queued_again(documents, enqueue=enqueue)
        audit_record(
            "knowledge.read_again",
            target="documents",
            details={"documents": len(queued), "file_kinds": sorted(kinds) or ["*"]},
        )
    return queued
