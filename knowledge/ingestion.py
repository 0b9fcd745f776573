"""Ingest a document: extract → normalise → redact → chunk → dedupe → embed → store, and
say why when it fails.

Idempotency lives here (STYLE §6): ``document_ingest`` claims the document with a
conditional update and stores its chunks in one transaction that first deletes whatever
an earlier, interrupted run left, so a redelivered task leaves exactly one copy. While it
works, the run holds the document's session advisory lock (datastores.locks): a document
"processing" whose lock nobody holds was interrupted (knowledge.reingestion).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.postgres.search import SearchVector
from django.db import IntegrityError, transaction
from django.db.models import Case, F, Value, When
from django.db.models.expressions import CombinedExpression
from django.db.models.functions import Greatest
from django.utils import timezone
from django.utils.translation import gettext_noop

from datastores.locks import lock_held, lock_key
from knowledge import drafts
from knowledge.chunk_options import chunk_size_for
from knowledge.chunking import Chunker, Piece, blocks_from_pages, embedding_text
from knowledge.embeddings import EmbeddingProvider
from knowledge.extraction import Budget, IngestionError, PageText, extract
from knowledge.models import (
    TS_CONFIG,
    Chunk,
    Document,
    DocumentStatus,
    Embedding,
    FileKind,
    Language,
)
from knowledge.normalize import check_quality, normalize_text, remove_repeated_margins
from knowledge.redaction import redact, redact_filename
from knowledge.search import vector_index
from knowledge.selectors import RedactionPlan, redaction_plan
from knowledge.sharing import in_scope, passages_rehome, scope_lock
from observability.metrics import INGESTION_SECONDS
from text.languages import detect_language
from web.errors import out_of_space
from web.exceptions import ApplicationError

logger = logging.getLogger(__name__)


@dataclass
class ExtractedDocument:
    pieces: list[Piece]
    page_count: int | None
    language: str
    details: dict[str, object] = field(default_factory=dict)


def document_ingest(
    *, document_id: uuid.UUID | str, embed_seconds: float | None = None
) -> Document | None:
    """Run the whole pipeline for one document. Returns None when there was nothing to do
    (gone, finished, or another run on it right now).

    Bad input ends as ``failed`` with its message; transient provider errors propagate so
    the task retries them. With ``embed_seconds``, the run stops embedding once that long
    has passed since it began and returns the document still *processing*: what it
    embedded is kept (knowledge.drafts) for the run that continues it."""
    with lock_held(lock_key(document_id)) as ours:
        if not ours or not _claim(document_id):
            return None
        until = None if embed_seconds is None else time.monotonic() + embed_seconds
        return _ingest_claimed(document_id, embed_until=until)


def _ingest_claimed(document_id: uuid.UUID | str, *, embed_until: float | None) -> Document | None:
    document = Document.objects.select_related("license").get(pk=document_id)
    try:
        provider = vector_index.active_provider()
        with INGESTION_SECONDS.labels(stage="extract").time():
            extracted = _extract(document, provider)
        for _attempt in range(STORE_ATTEMPTS):
            if _embed_and_store(document, extracted, provider, embed_until):
                break
        else:
            raise IngestionError(
                gettext_noop(
                    "Other documents of this scope kept changing while this one was being "
                    "stored. Press Retry."
                )
            )
    except IngestionError as exc:
        document_mark_failed(document_id=document.pk, error=exc)
    except _Forgotten:
        # Forgetting a document stops its ingestion at the next page or stage.
        logger.info("document %s was forgotten during its ingestion: stopped", document_id)
        return None
    except _HandedOver as handed:
        logger.info(
            "document %s: %s of %s passages embedded, handed over to the next run",
            document_id,
            handed.embedded,
            handed.total,
        )
    return Document.objects.filter(pk=document_id).first()


def _claim(document_id: uuid.UUID | str) -> bool:
    # PROCESSING is claimable too: that is a redelivery after the previous worker died, or
    # the continuation of a run that handed over (whose progress the bar keeps showing).
    claimed = Document.objects.filter(
        pk=document_id, status__in=[DocumentStatus.QUEUED, DocumentStatus.PROCESSING]
    ).update(
        status=DocumentStatus.PROCESSING,
        stage="extracting",
        progress=Case(When(status=DocumentStatus.PROCESSING, then=F("progress")), default=Value(2)),
        error="",
        error_i18n={},
        started_at=timezone.now(),
        updated_at=timezone.now(),
    )
    return claimed == 1


class _Forgotten(Exception):
    """The document was forgotten (or finished by another run) while this one worked on it."""


class _HandedOver(Exception):
    """The run's time for embedding is up; its vectors are kept for the next run."""

    def __init__(self, embedded: int, total: int) -> None:
        super().__init__(f"{embedded} of {total} embedded")
        self.embedded, self.total = embedded, total


def _progress(
    document: Document, stage: str, progress: int, embedded_by: datetime | None = None
) -> None:
    """Record the stage reached; stop here when the document is no longer ours to finish.
    The bar never goes back: a continued run reads the document again before it embeds
    what is left."""
    updated = Document.objects.filter(pk=document.pk, status=DocumentStatus.PROCESSING).update(
        stage=stage,
        progress=Greatest(F("progress"), Value(progress)),
        embedded_by=embedded_by,
        updated_at=timezone.now(),
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
    check_quality(full_text, pdf=document.kind == FileKind.PDF)
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
    pieces = chunker.chunk(
        blocks_from_pages(pages, markdown=extraction.markdown, headings=extraction.headings)
    )
    if not pieces:
        raise IngestionError(gettext_noop("No text could be extracted: the document is empty."))
    details = {
        **_attachment_names_redacted(extraction.details, plan),
        "pii_redacted": dict(pii),
        "pii_kept": dict(kept),  # the organisation's own contact details, left in clear
        "redaction": {"choice": document.redaction, "kinds": list(plan.kinds)},
        "language": language,
    }
    return ExtractedDocument(pieces, extraction.page_count, language, details)


def _attachment_names_redacted(
    details: dict[str, object], plan: RedactionPlan
) -> dict[str, object]:
    """An e-mail's attachments are named on the document's page: their names redacted as
    its text is (their headings in the text already are)."""

    def name(text: object) -> str:
        return redact_filename(str(text), kinds=plan.kinds, allow=plan.allow)

    read, unread = details.get("attachments_read"), details.get("attachments_unread")
    named = dict(details)
    if isinstance(read, list):
        named["attachments_read"] = [name(n) for n in read]
    if isinstance(unread, list):
        named["attachments_unread"] = [
            {**entry, "name": name(entry.get("name", ""))}
            for entry in unread
            if isinstance(entry, dict)
        ]
    return named


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


@dataclass
class _Division:
    """Which of a document's pieces it stores, and which it leaves to others."""

    fresh: list[Piece]  # to store: new to the scope (the first of any repeated here)
    elsewhere: set[str]  # content hashes another document of the scope stores


def _new_pieces(document: Document, pieces: list[Piece]) -> _Division:
    """Drop pieces whose content already exists in this scope (another document, or
    repeated here), and those an admin forgot."""
    forgotten = set(document.forgotten_hashes)
    hashes = [content_hash(piece.text) for piece in pieces]
    elsewhere = (
        set(
            Chunk.objects.filter(in_scope(document.license_id), content_hash__in=hashes)
            .exclude(document=document)
            .values_list("content_hash", flat=True)
        )
        - forgotten
    )
    taken = elsewhere | forgotten
    fresh: list[Piece] = []
    for piece, digest in zip(pieces, hashes, strict=True):
        if digest not in taken:
            taken.add(digest)
            fresh.append(piece)
    return _Division(fresh, elsewhere)


# A store finds what it left to other documents gone (they were forgotten meanwhile) only
# when the scope changes under it; this many tries before the document fails with Retry.
STORE_ATTEMPTS = 5


def _embed_and_store(
    document: Document,
    extracted: ExtractedDocument,
    provider: EmbeddingProvider,
    embed_until: float | None,
) -> bool:
    """Divide, embed and store; False when the division no longer held at the store."""
    division = _new_pieces(document, extracted.pieces)
    with INGESTION_SECONDS.labels(stage="embed").time():
        vectors, reused = _embed(document, division.fresh, provider, embed_until)
    vector_index.space_ensure(model=provider.model)
    extracted.details["vectors_reused"] = reused
    extracted.details["vectors_embedded"] = len(division.fresh) - reused
    with INGESTION_SECONDS.labels(stage="store").time():
        return _store(document, extracted, division, vectors, provider.model)


def _embed(
    document: Document,
    pieces: list[Piece],
    provider: EmbeddingProvider,
    until: float | None,
) -> tuple[list[list[float]], int]:
    """The pieces' vectors, and how many were reused: a re-ingested document (a changed web
    page, a retry) keeps the vectors of its chunks whose heading and text did not change,
    and a continued run those its predecessors embedded (knowledge.drafts)."""
    texts = [embedding_text(piece.heading, piece.text) for piece in pieces]
    known = _known_vectors(document, provider.model)
    keys = [(piece.heading, content_hash(piece.text)) for piece in pieces]
    vectors = {i: known[key] for i, key in enumerate(keys) if key in known}
    vectors |= drafts.drafts_read(
        document, provider.model, {i: text for i, text in enumerate(texts) if i not in vectors}
    )
    reused = len(vectors)
    missing = [i for i in range(len(pieces)) if i not in vectors]
    size = settings.EMBEDDING_BATCH_SIZE
    _progress(document, "embedding", _embedding_progress(reused, len(pieces)))
    began = time.monotonic()
    for start in range(0, len(missing), size):
        batch = missing[start : start + size]
        fresh = provider.embed_passages([texts[i] for i in batch])
        vectors |= dict(zip(batch, fresh, strict=True))
        # First: a document forgotten meanwhile stops here, before drafts are written for it.
        _progress(
            document,
            "embedding",
            _embedding_progress(len(vectors), len(pieces)),
            _embedded_by(began, done=start + len(batch), left=len(missing) - start - len(batch)),
        )
        if len(missing) > size:  # one batch has nothing to continue from
            _keep_drafts(document, provider.model, [texts[i] for i in batch], fresh)
        if until is not None and time.monotonic() > until and len(vectors) < len(pieces):
            raise _HandedOver(len(vectors), len(pieces))
    return [vectors[i] for i in range(len(pieces))], reused


def _keep_drafts(
    document: Document, model: str, texts: list[str], vectors: list[list[float]]
) -> None:
    try:
        drafts.drafts_write(document, model, texts, vectors)
    except IntegrityError:  # forgotten between the progress and the write: no document left
        _still_processing(document)
        raise


def _embedded_by(began: float, *, done: int, left: int) -> datetime | None:
    """When the passages ``left`` should be embedded, at the pace of the ``done`` ones
    (None once none are left: storing comes next)."""
    if not left:
        return None
    seconds_each = (time.monotonic() - began) / max(done, 1)
    return timezone.now() + timedelta(seconds=seconds_each * left)


def _embedding_progress(embedded: int, total: int) -> int:
    return 30 + int(60 * embedded / max(total, 1))


def _known_vectors(document: Document, model: str) -> dict[tuple[str, str], list[float]]:
    rows = Embedding.objects.filter(chunk__document=document, model=model).values_list(
        "chunk__heading", "chunk__content_hash", "vector"
    )
    return {(heading, digest): list(vector) for heading, digest, vector in rows}


def _store(
    document: Document,
    extracted: ExtractedDocument,
    division: _Division,
    vectors: list[list[float]],
    model: str,
) -> bool:
    """Replace the document's chunks in one transaction, under its scope's lock
    (knowledge.sharing). The division was made before embedding, so it is checked again
    here: a passage left to another document that has let go of it meanwhile sends the
    document back to be divided again (False); one that another document stored meanwhile
    is left to it. Passages this version no longer has move to a document that holds them."""
    _progress(document, "storing", 94)
    with transaction.atomic():
        scope_lock(document.license_id)
        locked = Document.objects.select_for_update().filter(pk=document.pk).first()
        if locked is None or locked.status != DocumentStatus.PROCESSING:
            return True  # forgotten or finished by another run meanwhile
        digests = [content_hash(piece.text) for piece in division.fresh]
        held = set(
            Chunk.objects.filter(
                in_scope(locked.license_id), content_hash__in=[*digests, *division.elsewhere]
            )
            .exclude(document=locked)
            .values_list("content_hash", flat=True)
        )
        if division.elsewhere - held:
            return False
        kept = [
            (piece, vector)
            for piece, vector, digest in zip(division.fresh, vectors, digests, strict=True)
            if digest not in held and digest not in locked.forgotten_hashes
        ]
        passages_rehome(
            leaving=Chunk.objects.filter(document=locked).exclude(
                content_hash__in=[d for d in digests if d not in held]
            ),
            departing=[locked.pk],
        )
        stored = _write_chunks(locked, kept, TS_CONFIG.get(extracted.language, "pb_simple"), model)
        left_out = sum(
            1 for piece in extracted.pieces if content_hash(piece.text) in locked.forgotten_hashes
        )
        extracted.details["forgotten_passages_left_out"] = left_out
        extracted.details["duplicate_chunks_skipped"] = len(extracted.pieces) - stored - left_out
        drafts.drafts_clear(locked.pk)
        Document.objects.filter(pk=locked.pk).update(
            status=DocumentStatus.READY,
            stage="",
            embedded_by=None,
            progress=100,
            chunk_count=stored,
            page_count=extracted.page_count,
            language=extracted.language,
            pdf_password="",
            metadata={**locked.metadata, **extracted.details},
            shared_hashes=sorted(held),
            finished_at=timezone.now(),
            updated_at=timezone.now(),
        )
    return True


def _write_chunks(
    document: Document, kept: list[tuple[Piece, list[float]]], ts_config: str, model: str
) -> int:
    """The document's chunks become ``kept``, in order. A chunk whose heading and text did
    not change stays the same row with its vector and sentence vectors, so a citation of it
    stays exact and nothing is embedded or sent to a vector backend again; the others are
    replaced (and whatever an interrupted run left goes)."""
    same = {
        (heading, content): pk
        for pk, heading, content in Chunk.objects.filter(
            document=document, ts_config=ts_config, embeddings__model=model
        ).values_list("pk", "heading", "content")
    }
    rows = _chunk_rows(document, [piece for piece, _ in kept], ts_config)
    staying: list[Chunk] = []
    new: list[tuple[Chunk, list[float]]] = []
    for row, (_, vector) in zip(rows, kept, strict=True):
        pk = same.pop((row.heading, row.content), None)
        if pk is None:
            new.append((row, vector))
        else:
            row.pk = pk
            staying.append(row)
    Chunk.objects.filter(document=document).exclude(pk__in=[row.pk for row in staying]).delete()
    Chunk.objects.bulk_update(staying, ["ordinal", "token_count", "page_start", "page_end"])
    created = Chunk.objects.bulk_create([row for row, _ in new])
    Embedding.objects.bulk_create(
        Embedding(chunk=chunk, license_id=document.license_id, model=model, vector=vector)
        for chunk, (_, vector) in zip(created, new, strict=True)
    )
    return len(rows)


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
    if out_of_space(error):  # not the document's fault, nor a bug: say what to do
        logger.error("ingestion of document %s stopped: a disk is full (%s)", document_id, error)
        document_mark_failed(
            document_id=document_id,
            error=IngestionError(
                gettext_noop(
                    "The server ran out of disk space while reading this document. Ask whoever "
                    "runs the product to free space, then press Retry."
                )
            ),
        )
        return
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


def document_mark_over_time(*, document_id: uuid.UUID | str) -> None:
    """The worker's time limit stopped a run outside embedding (which hands over before it:
    document_ingest's ``embed_seconds``): reading or storing this document takes longer."""
    document_mark_failed(
        document_id=document_id,
        error=IngestionError(
            gettext_noop(
                "Reading or storing this document took longer than a worker may spend on "
                "one task (%(limit)s seconds); split it into smaller files, or ask whoever "
                "runs the product to raise CELERY_TASK_TIME_LIMIT."
            ),
            params={"limit": settings.CELERY_TASK_TIME_LIMIT},
        ),
    )


def document_mark_failed(*, document_id: uuid.UUID | str, error: ApplicationError) -> None:
    """Record why ingestion failed; nothing of the document stays searchable. The message is
    kept in English (``error``) and as template and parameters (``error_i18n``), so the
    console shows it in each admin's language (Document.error_message)."""
    technical = str(error.extra.get("technical", ""))[:500]  # the reader's own words
    i18n = {"template": error.template, "params": error.params, "technical": technical}
    with transaction.atomic():
        license_id = Document.objects.filter(pk=document_id).values_list("license_id", flat=True)
        scope_lock(license_id.first())
        passages_rehome(
            leaving=Chunk.objects.filter(document_id=document_id), departing=[document_id]
        )
        Chunk.objects.filter(document_id=document_id).delete()
        Document.objects.filter(pk=document_id).update(
            status=DocumentStatus.FAILED,
            shared_hashes=[],
            stage="",
            embedded_by=None,
            error=_with_technical(error.english, technical)[:2000],
            error_i18n=i18n,
            chunk_count=0,
            pdf_password="",
            finished_at=timezone.now(),
            updated_at=timezone.now(),
        )


def _with_technical(message: str, technical: str) -> str:
    return f"{message} ({technical})" if technical else message
