"""Knowledge writes: accept an upload, ingest it (extract → normalise → redact → chunk →
dedupe → embed → store), forget it, retry it.

Idempotency lives here (STYLE §6): ``document_ingest`` claims the document with a
conditional update and stores its chunks in one transaction that first deletes whatever
an earlier, interrupted run left, so a redelivered task leaves exactly one copy.
"""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import redis
from django.conf import settings
from django.contrib.postgres.search import SearchVector
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet, Value
from django.db.models.expressions import CombinedExpression
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.audit import audit_record
from datastores.erasures import erasure_record
from datastores.redis_pool import shared_redis
from knowledge import vector_sync
from knowledge.chunk_options import ChunkOptions, chunk_options_resolve, chunk_size_for
from knowledge.chunking import Chunker, Piece, blocks_from_pages, embedding_text
from knowledge.embeddings import EmbeddingProvider, embed_in_batches
from knowledge.extraction import Budget, IngestionError, PageText, detect_kind, extract
from knowledge.models import (
    TS_CONFIG,
    Chunk,
    Document,
    DocumentStatus,
    Embedding,
    FileKind,
    Language,
    Redaction,
    RedactionPolicy,
    SearchLog,
    SourceType,
    VectorErasure,
)
from knowledge.normalize import (
    check_quality,
    normalize_text,
    remove_repeated_margins,
)
from knowledge.redaction import KINDS, allow_list_invalid, redact
from knowledge.search import SearchOptions, SearchResponse, search, vector_index
from knowledge.selectors import RedactionPlan, redaction_plan
from knowledge.signals import passages_forgotten
from licenses.models import GLOBAL_SCOPE, License
from licenses.principals import Principal
from observability.metrics import INGESTION_SECONDS
from portality.celery import app as celery_app
from text.languages import detect_language
from web.exceptions import ApplicationError

logger = logging.getLogger(__name__)


@dataclass
class DocumentCreation:
    document: Document
    created: bool


# -- accepting an upload -------------------------------------------------------------------


def document_create(
    *,
    file: IO[bytes],
    filename: str,
    license: License | None,
    source_type: str = SourceType.OTHER,
    language: str = Language.AUTO,
    pdf_password: str = "",
    redaction: str = Redaction.DEFAULT,
    chunking: ChunkOptions | None = None,
    enqueue: bool = True,
    kind_hint: str = "",
) -> DocumentCreation:
    """Store an upload as a queued document, or return the same file already in this scope."""
    check_choices(source_type=source_type, language=language, redaction=redaction)
    chunking = chunk_options_resolve(license, chunking or ChunkOptions())
    filename = _redacted_filename(_display_name(filename), license, redaction)
    size, kind = upload_checked(file, filename, text_hint=kind_hint)
    sha256 = _sha256(file)
    existing = Document.objects.filter(license=license, sha256=sha256).first()
    if existing:
        return DocumentCreation(existing, created=False)
    try:
        document = _document_save(
            file,
            filename=filename,
            license=license,
            kind=kind,
            size_bytes=size,
            sha256=sha256,
            source_type=source_type,
            language=language,
            pdf_password=pdf_password,
            redaction=redaction,
            chunk_size=chunking.size,
            chunk_overlap=chunking.overlap,
            split=chunking.split,
        )
    except IntegrityError:  # the same file arrived twice at once: the first one wins
        return DocumentCreation(Document.objects.get(license=license, sha256=sha256), created=False)
    if enqueue:
        transaction.on_commit(lambda: _enqueue(document.pk))
    return DocumentCreation(document, created=True)


def _display_name(filename: str) -> str:
    """An upload's own name (no client path), or a web page's whole URL: its citation."""
    if filename.startswith(("http://", "https://")):
        return filename[:255]
    return Path(filename).name[:255] or "document"


def upload_checked(file: IO[bytes], filename: str, *, text_hint: str = "") -> tuple[int, FileKind]:
    """What every file is checked for before anything reads it (an upload, its preview):
    not empty, within the size limit, and a type read from its content."""
    size = _file_size(file)
    if size == 0:
        raise IngestionError(gettext_noop("%(filename)s is empty."), params={"filename": filename})
    if size > settings.KNOWLEDGE_MAX_UPLOAD_BYTES:
        limit_mb = settings.KNOWLEDGE_MAX_UPLOAD_BYTES // (1024 * 1024)
        raise IngestionError(
            gettext_noop("%(filename)s is %(size).1f MB; the limit is %(limit)s MB."),
            params={"filename": filename, "size": size / 1048576, "limit": limit_mb},
        )
    kind = detect_kind(
        file,
        filename,
        max_unpacked_bytes=settings.KNOWLEDGE_MAX_UNPACKED_MB * 1024 * 1024,
        text_hint=text_hint,
    )
    return size, kind


def _redacted_filename(filename: str, license: License | None, redaction: str) -> str:
    """A file name is shown to end users in citations: personal data in it ("maria.lopez@…
    12345678Z.pdf") is redacted as the text is. The extension stays, it says the format."""
    plan = redaction_plan(license=license, choice=redaction)
    if not plan.kinds:
        return filename
    if filename.startswith(("http://", "https://")):
        return redact(filename, kinds=plan.kinds, allow=plan.allow).text
    path = Path(filename)
    stem = redact(path.stem, kinds=plan.kinds, allow=plan.allow).text
    return f"{stem}{path.suffix}"


def redaction_choice_check(*, choice: str, may_set_policy: bool) -> None:
    """Lowering redaction below the scope's policy for one upload (keep contacts, redact
    nothing) is the policy's owners' decision, not every uploader's (a third party's ID or
    phone would become searchable by end users)."""
    if may_set_policy or choice in (Redaction.DEFAULT, Redaction.ALL):
        return
    raise ApplicationError(
        gettext_noop(
            "Only a role that may set the redaction policy can redact less than the policy "
            "for an upload; upload with the policy's redaction or ask an owner."
        ),
        status=403,
    )


def check_choices(*, source_type: str, language: str, redaction: str) -> None:
    if redaction not in Redaction.values:
        raise ApplicationError(
            gettext_noop("Unknown redaction %(value)r; use one of %(choices)s."),
            params={"value": redaction, "choices": ", ".join(Redaction.values)},
        )
    if source_type not in SourceType.values:
        raise ApplicationError(
            gettext_noop("Unknown source type %(value)r; use one of %(choices)s."),
            params={"value": source_type, "choices": ", ".join(SourceType.values)},
        )
    if language not in Language.values:
        raise ApplicationError(
            gettext_noop("Unknown language %(value)r; use one of %(choices)s."),
            params={"value": language, "choices": ", ".join(Language.values)},
        )


def _file_size(file: IO[bytes]) -> int:
    size = getattr(file, "size", None)
    if size is None:
        file.seek(0, 2)
        size = file.tell()
    return int(size)


def _sha256(file: IO[bytes]) -> str:
    digest = hashlib.sha256()
    file.seek(0)
    for block in iter(lambda: file.read(1024 * 1024), b""):
        digest.update(block)
    file.seek(0)
    return digest.hexdigest()


def _document_save(file: IO[bytes], **fields: object) -> Document:
    document = Document(id=uuid.uuid4(), **fields)
    stored_name = f"{document.id}{Path(str(fields['filename'])).suffix.lower()[:10]}"
    document.file.save(stored_name, File(file), save=False)
    try:
        with transaction.atomic():
            document.save(force_insert=True)
            _audit_upload(document)
    except Exception:
        if document.file.name:  # no orphan file when the row is refused
            default_storage.delete(document.file.name)
        raise
    return document


def scope_name(license: License | None) -> str:
    return license.machine_id if license else GLOBAL_SCOPE


def _audit_name(filename: str) -> str:
    """A document as the audit trail names it: every kind of personal data redacted,
    whatever the upload chose, since the trail outlives the document's forgetting."""
    return redact(filename).text


def _audit_upload(document: Document) -> None:
    audit_record(
        "knowledge.uploaded",
        target=f"document:{document.pk}",
        details={
            "filename": _audit_name(document.filename),
            "scope": scope_name(document.license),
            "source_type": document.source_type,
            "redaction": document.redaction,
            "bytes": document.size_bytes,
        },
    )


def _enqueue(document_id: uuid.UUID) -> None:
    from knowledge.tasks import document_ingest_task

    document_ingest_task.delay(str(document_id))


# -- ingestion ---------------------------------------------------------------------------------


@dataclass
class ExtractedDocument:
    pieces: list[Piece]
    page_count: int | None
    language: str
    details: dict[str, object] = field(default_factory=dict)


def document_ingest(*, document_id: uuid.UUID | str) -> Document | None:
    """Run the whole pipeline for one document. Returns None when there was nothing to do.

    Bad input ends as ``failed`` with its message; transient provider errors propagate so
    the task retries them."""
    if not _claim(document_id):
        return None
    document = Document.objects.select_related("license").get(pk=document_id)
    try:
        provider = vector_index.active_provider()
        with INGESTION_SECONDS.labels(stage="extract").time():
            extracted = _extract(document, provider)
        pieces, duplicates = _new_pieces(document, extracted.pieces)
        with INGESTION_SECONDS.labels(stage="embed").time():
            vectors, reused = _embed(document, pieces, provider)
        vector_index.space_ensure(model=provider.model)
        extracted.details["duplicate_chunks_skipped"] = duplicates
        extracted.details["vectors_reused"] = reused
        extracted.details["vectors_embedded"] = len(pieces) - reused
        with INGESTION_SECONDS.labels(stage="store").time():
            _store(document, extracted, pieces, vectors, provider.model)
    except IngestionError as exc:
        document_mark_failed(document_id=document.pk, error=exc)
    except _Forgotten:
        # Forgetting a document stops its ingestion at the next page or stage.
        logger.info("document %s was forgotten during its ingestion: stopped", document_id)
        return None
    return Document.objects.filter(pk=document_id).first()


def _claim(document_id: uuid.UUID | str) -> bool:
    # PROCESSING is claimable too: that is a redelivery after the previous worker died.
    claimed = Document.objects.filter(
        pk=document_id, status__in=[DocumentStatus.QUEUED, DocumentStatus.PROCESSING]
    ).update(
        status=DocumentStatus.PROCESSING,
        stage="extracting",
        progress=2,
        error="",
        error_i18n={},
        started_at=timezone.now(),
        updated_at=timezone.now(),
    )
    return claimed == 1


class _Forgotten(Exception):
    """The document was forgotten (or finished by another run) while this one worked on it."""


def _progress(document: Document, stage: str, progress: int) -> None:
    """Record the stage reached; stop here when the document is no longer ours to finish."""
    updated = Document.objects.filter(pk=document.pk, status=DocumentStatus.PROCESSING).update(
        stage=stage, progress=progress, updated_at=timezone.now()
    )
    if not updated:
        raise _Forgotten


def _still_processing(document: Document) -> None:
    if not Document.objects.filter(pk=document.pk, status=DocumentStatus.PROCESSING).exists():
        raise _Forgotten


def _extract(document: Document, provider: EmbeddingProvider) -> ExtractedDocument:
    return read_document(
        document,
        Path(document.file.path),
        provider,
        budget=ingestion_budget(
            max_seconds=settings.KNOWLEDGE_MAX_EXTRACTION_SECONDS,
            between_pages=lambda: _still_processing(document),
        ),
        on_stage=lambda stage, progress: _progress(document, stage, progress),
    )


def ingestion_budget(
    *, max_seconds: float, between_pages: Callable[[], None] | None = None
) -> Budget:
    """The deployment's limits on reading one document, with the time a reader waits."""
    return Budget(
        max_pages=settings.KNOWLEDGE_MAX_PDF_PAGES,
        max_content_bytes=settings.KNOWLEDGE_MAX_PDF_CONTENT_MB * 1024 * 1024,
        max_seconds=max_seconds,
        between_pages=between_pages,
        max_unpacked_bytes=settings.KNOWLEDGE_MAX_UNPACKED_MB * 1024 * 1024,
    )


def read_document(
    document: Document,
    path: Path,
    provider: EmbeddingProvider,
    *,
    budget: Budget,
    on_stage: Callable[[str, int], None],
) -> ExtractedDocument:
    """Extract → normalise → redact → chunk, as the document's options say (nothing stored:
    the chunk preview runs it on an unsaved document)."""
    extraction = extract(
        path,
        document.kind,
        password=document.pdf_password,
        budget=budget,
        ocr_languages=settings.KNOWLEDGE_OCR_LANGUAGES,
    )
    on_stage("normalising", 12)
    pages = [PageText(p.number, normalize_text(p.text)) for p in extraction.pages]
    if not extraction.markdown:  # structured formats have no page margins: none are read
        pages = remove_repeated_margins(pages)
    full_text = "\n\n".join(page.text for page in pages)
    check_quality(full_text)
    language = (
        document.language
        if document.language != Language.AUTO
        else detect_language(full_text) or Language.OTHER
    )
    on_stage("redacting", 18)
    plan = redaction_plan(license=document.license, choice=document.redaction)
    pages, pii, kept = _redact_pages(pages, plan)
    on_stage("chunking", 24)
    chunker = Chunker(
        count_tokens=provider.count_tokens,
        max_tokens=provider.max_input_tokens,
        size=chunk_size_for(document),
    )
    pieces = chunker.chunk(blocks_from_pages(pages, markdown=extraction.markdown))
    if not pieces:
        raise IngestionError(gettext_noop("No text could be extracted: the document is empty."))
    details = {
        **extraction.details,
        "pii_redacted": dict(pii),
        "pii_kept": dict(kept),  # the organisation's own contact details, left in clear
        "redaction": {"choice": document.redaction, "kinds": list(plan.kinds)},
        "language": language,
    }
    return ExtractedDocument(pieces, extraction.page_count, language, details)


def _redact_pages(
    pages: list[PageText], plan: RedactionPlan
) -> tuple[list[PageText], Counter[str], Counter[str]]:
    replaced: Counter[str] = Counter()
    kept: Counter[str] = Counter()
    redacted = []
    for page in pages:
        result = redact(page.text, kinds=plan.kinds, allow=plan.allow)
        replaced.update(result.counts)
        kept.update(result.kept)
        redacted.append(PageText(page.number, result.text))
    return redacted, replaced, kept


def content_hash(text: str) -> str:
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()


def scope_filter(license_id: object) -> Q:
    return Q(license_id=license_id) if license_id else Q(license__isnull=True)


def _new_pieces(document: Document, pieces: list[Piece]) -> tuple[list[Piece], int]:
    """Drop pieces whose content already exists in this scope (another document, or repeated here)."""
    hashes = [content_hash(piece.text) for piece in pieces]
    taken = set(
        Chunk.objects.filter(scope_filter(document.license_id), content_hash__in=hashes)
        .exclude(document=document)
        .values_list("content_hash", flat=True)
    )
    fresh: list[Piece] = []
    for piece, digest in zip(pieces, hashes, strict=True):
        if digest not in taken:
            taken.add(digest)
            fresh.append(piece)
    return fresh, len(pieces) - len(fresh)


def _embed(
    document: Document, pieces: list[Piece], provider: EmbeddingProvider
) -> tuple[list[list[float]], int]:
    """The pieces' vectors, and how many were reused: a re-ingested document (a changed web
    page, a retry) keeps the vectors of its chunks whose heading and text did not change."""
    _progress(document, "embedding", 30)
    known = _known_vectors(document, provider.model)
    keys = [(p.heading, content_hash(p.text)) for p in pieces]
    missing = [i for i, key in enumerate(keys) if key not in known]
    fresh = (
        embed_in_batches(
            provider,
            [embedding_text(pieces[i].heading, pieces[i].text) for i in missing],
            lambda done: _progress(
                document, "embedding", 30 + int(60 * done / max(len(missing), 1))
            ),
        )
        if missing
        else []
    )
    by_index = dict(zip(missing, fresh, strict=True))
    return [by_index[i] if i in by_index else known[key] for i, key in enumerate(keys)], len(
        pieces
    ) - len(missing)


def _known_vectors(document: Document, model: str) -> dict[tuple[str, str], list[float]]:
    rows = Embedding.objects.filter(chunk__document=document, model=model).values_list(
        "chunk__heading", "chunk__content_hash", "vector"
    )
    return {(heading, digest): list(vector) for heading, digest, vector in rows}


def _store(
    document: Document,
    extracted: ExtractedDocument,
    pieces: list[Piece],
    vectors: list[list[float]],
    model: str,
) -> None:
    _progress(document, "storing", 94)
    with transaction.atomic():
        locked = Document.objects.select_for_update().filter(pk=document.pk).first()
        if locked is None or locked.status != DocumentStatus.PROCESSING:
            return  # forgotten or finished by another run meanwhile
        Chunk.objects.filter(document=locked).delete()  # whatever an interrupted run left
        chunks = Chunk.objects.bulk_create(
            _chunk_rows(locked, pieces, TS_CONFIG.get(extracted.language, "pb_simple"))
        )
        Embedding.objects.bulk_create(
            Embedding(chunk=chunk, license_id=locked.license_id, model=model, vector=vector)
            for chunk, vector in zip(chunks, vectors, strict=True)
        )
        Document.objects.filter(pk=locked.pk).update(
            status=DocumentStatus.READY,
            stage="",
            progress=100,
            chunk_count=len(chunks),
            page_count=extracted.page_count,
            language=extracted.language,
            pdf_password="",
            metadata={**locked.metadata, **extracted.details},
            finished_at=timezone.now(),
            updated_at=timezone.now(),
        )


def _chunk_rows(document: Document, pieces: list[Piece], ts_config: str) -> list[Chunk]:
    return [
        Chunk(
            document=document,
            license_id=document.license_id,
            ordinal=ordinal,
            content=piece.text,
            content_hash=content_hash(piece.text),
            token_count=piece.token_count,
            heading=piece.heading[:2000],
            page_start=piece.page_start,
            page_end=piece.page_end,
            ts_config=ts_config,
            search_vector=search_vector_for(ts_config, piece.heading[:2000], piece.text),
        )
        for ordinal, piece in enumerate(pieces)
    ]


def search_vector_for(ts_config: str, heading: str, content: str) -> CombinedExpression:
    """The chunk's tsvector, computed by PostgreSQL in the INSERT itself: headings (A) and
    body (B), in the chunk's language configuration. Writing it with the row, rather than by
    an UPDATE afterwards, writes each chunk once instead of twice (and leaves no dead row
    versions bloating the table that every keyword search reads)."""
    return SearchVector(Value(heading), config=ts_config, weight="A") + SearchVector(
        Value(content), config=ts_config, weight="B"
    )


def document_mark_crashed(*, document_id: uuid.UUID | str, error: BaseException) -> None:
    """Ingestion stopped by an error no stage expected (a bug, a dependency failing): the
    worker's final failure and the command line's in-process run say it the same way. The
    admin reads a reference to quote; the error itself, which may name internals, goes to
    the log beside it (finding N9)."""
    reference = secrets.token_hex(4)
    logger.error(
        "ingestion of document %s stopped (reference %s)", document_id, reference, exc_info=error
    )
    document_mark_failed(
        document_id=document_id,
        error=IngestionError(
            gettext_noop(
                "Ingestion stopped by an unexpected error (reference %(reference)s: the "
                "worker's log has the details). Press Retry; if it happens again, tell whoever "
                "runs the product."
            ),
            params={"reference": reference},
        ),
    )


def document_mark_failed(*, document_id: uuid.UUID | str, error: ApplicationError) -> None:
    """Record why ingestion failed; nothing of the document stays searchable. The message is
    kept in English (``error``) and as template and parameters (``error_i18n``), so the
    console shows it in each admin's language (Document.error_message)."""
    technical = str(error.extra.get("technical", ""))[:500]  # the reader's own words
    i18n = {"template": error.template, "params": error.params, "technical": technical}
    with transaction.atomic():
        Chunk.objects.filter(document_id=document_id).delete()
        Document.objects.filter(pk=document_id).update(
            status=DocumentStatus.FAILED,
            stage="",
            error=_with_technical(error.english, technical)[:2000],
            error_i18n=i18n,
            chunk_count=0,
            pdf_password="",
            finished_at=timezone.now(),
            updated_at=timezone.now(),
        )


def _with_technical(message: str, technical: str) -> str:
    return f"{message} ({technical})" if technical else message


# -- forgetting and retrying -----------------------------------------------------------------


def document_forget(*, document: Document) -> VectorErasure | None:
    """Delete a document with its chunks and embeddings (one transaction), then its file.
    With a remote vector backend, the receipt that says when its copies are gone there."""
    file_name, document_id = document.file.name, str(document.pk)
    with transaction.atomic():
        chunk_ids = list(document.chunks.values_list("pk", flat=True))
        _lock_embeddings(Embedding.objects.filter(chunk__document=document))
        with vector_sync.erasure(f"document {document.pk} ({document.filename})") as receipt:
            document.delete()
        if file_name:
            transaction.on_commit(lambda: default_storage.delete(file_name))
        _tell_forgotten(chunk_ids)
        transaction.on_commit(lambda: erasure_record("document", [document_id]))
        audit_record(
            "knowledge.forgotten",
            target=f"document:{document_id}",
            details={"filename": _audit_name(document.filename), "chunks": len(chunk_ids)},
        )
    return receipt


def _lock_embeddings(embeddings: QuerySet[Embedding]) -> None:
    """Hold the embeddings the sentence pass locks before it writes (knowledge.search.
    sentence_vectors): a pass that already wrote has committed, and what it wrote is deleted
    with them; one that comes after finds them gone. Without it a pass committing between
    the deletion of a chunk's sentence vectors and that of its embedding left rows pointing
    at nothing, and the forgetting failed at commit."""
    list(embeddings.select_for_update().values_list("pk", flat=True))


def _tell_forgotten(chunk_ids: list[int]) -> None:
    """Once committed, the apps above scrub the copies they keep (session transcripts)."""
    if chunk_ids:
        transaction.on_commit(lambda: passages_forgotten.send(sender=Document, chunk_ids=chunk_ids))


def documents_forget(*, documents: list[Document]) -> int:
    with transaction.atomic():
        for document in documents:
            document_forget(document=document)
    return len(documents)


def chunk_forget(*, chunk: Chunk) -> VectorErasure | None:
    with transaction.atomic():
        document_id, chunk_id = chunk.document_id, chunk.pk
        _lock_embeddings(Embedding.objects.filter(chunk=chunk))
        with vector_sync.erasure(f"chunk {chunk.pk} of document {document_id}") as receipt:
            chunk.delete()
        _tell_forgotten([chunk_id])
        transaction.on_commit(lambda: erasure_record("chunk", [str(chunk_id)]))
        audit_record(
            "knowledge.chunk_forgotten",
            target=f"chunk:{chunk_id}",
            details={"document": str(document_id)},
        )
        Document.objects.filter(pk=document_id).update(
            chunk_count=Chunk.objects.filter(document_id=document_id).count(),
            updated_at=timezone.now(),
        )
    return receipt


def document_is_stuck(document: Document) -> bool:
    limit = timezone.now() - settings.KNOWLEDGE_STUCK_AFTER
    return document.status == DocumentStatus.PROCESSING and document.updated_at < limit


def documents_being_ingested() -> set[str] | None:
    """Ids of the documents Celery workers are ingesting right now, or None when the broker
    cannot be asked. A document "processing" that no worker holds was interrupted (a worker
    killed mid-task): its message comes back only after the visibility timeout, an hour."""
    try:
        replies = celery_app.control.inspect(timeout=1.0).active() or {}
    except Exception as exc:  # kombu raises many transport-specific errors
        logger.warning("cannot ask the workers what they are doing: %s", exc)
        return None
    running = set()
    for tasks in replies.values():
        for task in tasks:
            if task.get("name") == "knowledge.tasks.document_ingest_task":
                args, kwargs = task.get("args") or [], task.get("kwargs") or {}
                running.add(str(kwargs.get("document_id") or (args[0] if args else "")))
    return running


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


def _interrupted(document: Document, running: set[str] | None) -> bool:
    return (
        document.status == DocumentStatus.PROCESSING
        and running is not None
        and str(document.pk) not in running
    )


def document_retry(
    *, document: Document, pdf_password: str | None = None, enqueue: bool = True
) -> Document:
    """Queue a document again: failed, stuck, or ready (re-ingest; its chunks stay searchable
    until the new ones replace them in one transaction)."""
    if (
        document.status == DocumentStatus.PROCESSING
        and not document_is_stuck(document)
        and not _interrupted(document, documents_being_ingested())
    ):
        raise ApplicationError(
            gettext_noop("%(filename)s is still being processed; wait for it to finish."),
            params={"filename": document.filename},
        )
    if document.status == DocumentStatus.QUEUED and not _message_lost(
        document, documents_in_broker()
    ):
        raise ApplicationError(
            gettext_noop("%(filename)s is already queued."), params={"filename": document.filename}
        )
    with transaction.atomic():
        Document.objects.filter(pk=document.pk).update(
            status=DocumentStatus.QUEUED,
            stage="",
            progress=0,
            error="",
            error_i18n={},
            pdf_password=pdf_password if pdf_password is not None else document.pdf_password,
            updated_at=timezone.now(),
        )
        audit_record(
            "knowledge.retried",
            target=f"document:{document.pk}",
            details={"filename": _audit_name(document.filename), "was": document.status},
        )
    if enqueue:
        transaction.on_commit(lambda: _enqueue(document.pk))
    document.refresh_from_db()
    return document


def document_replace_file(*, document: Document, file: IO[bytes], enqueue: bool = True) -> Document:
    """A new version of a document's content (a web page that changed): the file is
    replaced and the document re-ingested in place; its chunks stay searchable until the
    new ones replace them, and those whose text did not change keep their vectors."""
    size = _file_size(file)
    sha256 = _sha256(file)
    if sha256 == document.sha256:
        return document
    old_name = document.file.name or ""
    stored_name = f"{document.pk}-{sha256[:12]}{Path(old_name).suffix}"
    file.seek(0)
    new_name = default_storage.save(f"{Path(old_name).parent}/{stored_name}", File(file))
    try:
        with transaction.atomic():
            Document.objects.filter(pk=document.pk).update(
                file=new_name, sha256=sha256, size_bytes=size, updated_at=timezone.now()
            )
    except IntegrityError as exc:
        default_storage.delete(new_name)
        raise ApplicationError(
            gettext_noop("The new content of %(filename)s is already a document of this scope."),
            params={"filename": document.filename},
        ) from exc
    transaction.on_commit(lambda: default_storage.delete(old_name))
    document.refresh_from_db()
    return document_retry(document=document, enqueue=enqueue)


def documents_requeue_stuck(*, enqueue: bool = True) -> list[Document]:
    """Queue again every document stuck (processing for too long), interrupted (no worker
    holds it) or whose queued message was lost: at make run's start, by `ingest
    --retry-stuck`, and every 15 minutes."""
    processing = list(Document.objects.filter(status=DocumentStatus.PROCESSING))
    lost_limit = timezone.now() - settings.KNOWLEDGE_QUEUED_LOST_AFTER
    queued = list(Document.objects.filter(status=DocumentStatus.QUEUED, updated_at__lt=lost_limit))
    stuck: list[Document] = []
    if processing:
        running = documents_being_ingested()
        stuck += [d for d in processing if document_is_stuck(d) or _interrupted(d, running)]
    if queued:
        waiting = documents_in_broker()
        stuck += [d for d in queued if _message_lost(d, waiting)]
    return [document_retry(document=document, enqueue=enqueue) for document in stuck]


def knowledge_search(
    *,
    principal: Principal,
    query: str,
    options: SearchOptions | None = None,
) -> SearchResponse:
    """The search every entry point runs: hybrid retrieval in the principal's scope, written
    to the access log (seed 004 §7). (The chat logs its search itself, once its answer has
    started: chat.services.)"""
    response = search(principal=principal, query=query, options=options)
    search_log_record(principal=principal, response=response)
    return response


def search_log_record(*, principal: Principal, response: SearchResponse) -> SearchLog:
    """The access log of seed 004 §7: every retrieval, with its scope, results and latency."""
    return SearchLog.objects.create(
        actor=principal.actor[:200],
        license_id=principal.license_id,
        scope_label=principal.scope_label,
        query=redact(response.query).text,
        strategy=response.options.strategy,
        top_k=response.options.top_k,
        min_score=response.options.min_score or 0.0,
        latency_ms=response.latency_ms,
        candidates=response.candidates,
        cut_by_threshold=response.cut_by_threshold,
        result_count=len(response.results),
        chunk_ids=[result.chunk_id for result in response.results],
    )


# -- redaction policy ---------------------------------------------------------------------------


def redaction_policy_set(
    *, license: License | None, kinds: list[str], keep_contacts: bool, allow: list[str]
) -> RedactionPolicy:
    """A scope's redaction from now on (uploads ingested or re-ingested after it)."""
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise ApplicationError(
            gettext_noop("Unknown kind of personal data %(value)s; use %(choices)s."),
            params={"value": ", ".join(unknown), "choices": ", ".join(KINDS)},
        )
    allow = [entry.strip() for entry in allow if entry.strip()]
    if invalid := allow_list_invalid(allow):
        raise ApplicationError(
            gettext_noop("%(value)s is not an e-mail address, an @domain or a phone number."),
            params={"value": invalid[0]},
        )
    with transaction.atomic():
        policy = RedactionPolicy.objects.select_for_update().filter(license=license).first()
        policy = policy or RedactionPolicy(license=license)
        policy.kinds = [k for k in KINDS if k in kinds]
        policy.keep_contacts = keep_contacts
        policy.allow = list(dict.fromkeys(allow))[:200]
        policy.save()
        audit_record(
            "knowledge.redaction_policy_set",
            target=f"scope:{scope_name(license)}",
            details={
                "kinds": policy.kinds,
                "keep_contacts": keep_contacts,
                "allowed_entries": len(policy.allow),
            },
        )
    return policy


def redaction_policy_reset(*, license: License) -> None:
    """A license's redaction becomes global's again."""
    with transaction.atomic():
        RedactionPolicy.objects.filter(license=license).delete()
        audit_record("knowledge.redaction_policy_reset", target=f"scope:{license.machine_id}")
