"""A new document: the upload checked (not empty, within the limit, its type read from its
content), its name redacted as its text will be, stored once per scope with its audit entry,
and queued for ingestion (knowledge.queue)."""

from __future__ import annotations

import hashlib
import logging
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.utils.translation import gettext_noop

from accounts.audit import audit_record
from knowledge.chunk_options import ChunkOptions, chunk_options_resolve
from knowledge.extraction import IngestionError, detect_kind
from knowledge.models import Document, FileKind, Language, Redaction, SourceType
from knowledge.queue import queue_ingestion
from knowledge.redaction import redact, redact_filename
from knowledge.selectors import redaction_plan
from licenses.models import GLOBAL_SCOPE, License
from text.lines import one_line
from web.errors import NO_ROOM, out_of_space
from web.exceptions import ApplicationError

logger = logging.getLogger(__name__)


@dataclass
class DocumentCreation:
    document: Document
    created: bool


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
    check_pdf_password(pdf_password)
    chunking = chunk_options_resolve(license, chunking or ChunkOptions())
    filename = shown_filename(filename, license, redaction)
    size, kind = upload_checked(file, filename, text_hint=kind_hint)
    sha256 = file_sha256(file)
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
        transaction.on_commit(lambda: queue_ingestion(document.pk))
    return DocumentCreation(document, created=True)


def shown_filename(filename: str, license: License | None, redaction: str) -> str:
    """The name a document is shown and cited by: the upload's own (no client path), its
    personal data redacted as its text will be."""
    return _redacted_filename(_display_name(filename), license, redaction)


def _display_name(filename: str) -> str:
    """An upload's own name (no client path), or a web page's whole URL: its citation.
    Whatever it came through (a browser, the API, ``manage.py ingest``), a name is one
    printable line: no right-to-left override that would show "evil\u202egpj.exe" as
    "evilexe.jpg"."""
    if filename.startswith(("http://", "https://")):
        return filename[:255]
    return one_line(Path(filename).name)[:255] or "document"


def upload_checked(file: IO[bytes], filename: str, *, text_hint: str = "") -> tuple[int, FileKind]:
    """What every file is checked for before anything reads it (an upload, its preview):
    not empty, within the size limit, and a type read from its content."""
    size = file_size(file)
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
    return redact_filename(filename, kinds=plan.kinds, allow=plan.allow)


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


MAX_PDF_PASSWORD_CHARS = 255  # Document.pdf_password's column


def check_pdf_password(password: str | None) -> None:
    """Kept with the document until it is read: a longer one, or one with a NUL (which
    PostgreSQL's text refuses), was a server error on the console's forms."""
    if password and (len(password) > MAX_PDF_PASSWORD_CHARS or "\x00" in password):
        raise ApplicationError(
            gettext_noop("A PDF password is at most %(max)s characters, with no NUL character."),
            params={"max": MAX_PDF_PASSWORD_CHARS},
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


def file_size(file: IO[bytes]) -> int:
    size = getattr(file, "size", None)
    if size is None:
        file.seek(0, 2)
        size = file.tell()
    return int(size)


def file_sha256(file: IO[bytes]) -> str:
    digest = hashlib.sha256()
    file.seek(0)
    for block in iter(lambda: file.read(1024 * 1024), b""):
        digest.update(block)
    file.seek(0)
    return digest.hexdigest()


def _document_save(file: IO[bytes], **fields: object) -> Document:
    document = Document(id=uuid.uuid4(), **fields)
    stored_name = f"{document.id}{Path(str(fields['filename'])).suffix.lower()[:10]}"
    try:
        document.file.save(stored_name, File(file), save=False)
    except OSError as exc:  # what was written of it goes
        default_storage.delete(document.file.field.generate_filename(document, stored_name))
        if not out_of_space(exc):
            raise
        logger.error("uploads: the media storage is full (%s)", exc)
        raise ApplicationError(NO_ROOM, status=507) from None
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


def audit_name(filename: str) -> str:
    """A document as the audit trail names it: every kind of personal data redacted,
    whatever the upload chose, since the trail outlives the document's forgetting."""
    return redact(filename).text


def _audit_upload(document: Document) -> None:
    audit_record(
        "knowledge.uploaded",
        target=f"document:{document.pk}",
        details={
            "filename": audit_name(document.filename),
            "scope": scope_name(document.license),
            "source_type": document.source_type,
            "redaction": document.redaction,
            "bytes": document.size_bytes,
        },
    )
