from __future__ import annotations

import math
import uuid

import pgtrigger
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.db.models import F, Func, Q
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy
from pgvector.django import HalfVectorField

from licenses.models import License
from web.exceptions import translate_message

# The scope of global rows in NOT NULL scope columns: license ids are random UUIDs (never 0).
GLOBAL_SCOPE_KEY = uuid.UUID(int=0)

# The session settings the vector outbox's triggers read (Embedding's docstring says how).
OUTBOX_SESSION_FLAG = "portality.vector_outbox"
ERASURE_SESSION_KEY = "portality.vector_erasure"


class SourceType(models.TextChoices):
    REGULATION = "regulation", _("Regulation")
    POLICY = "policy", _("Policy")
    MINUTES = "minutes", _("Minutes")
    DECISION = "decision", _("Decision")
    RECORD = "record", _("Record")
    MANUAL = "manual", _("Manual")
    NOTE = "note", _("Note")
    OTHER = "other", _("Other")
    # Written in the console to close a knowledge gap (conversations.services.gap_answer):
    # cited as the organisation's own answer.
    ANSWER = "answer", _("Organisation's answer")


class Language(models.TextChoices):
    AUTO = "auto", _("Detect")
    SPANISH = "es", _("Spanish")
    PORTUGUESE = "pt", _("Portuguese")
    ENGLISH = "en", _("English")
    OTHER = "other", _("Other")


# Text-search configuration per language (migration 0001: unaccent, then the stemmer).
# "pb_simple" folds accents but does not stem.
TS_CONFIG = {"es": "pb_spanish", "pt": "pb_portuguese", "en": "pb_english", "other": "pb_simple"}


class DocumentStatus(models.TextChoices):
    QUEUED = "queued", pgettext_lazy("document status", "Queued")
    PROCESSING = "processing", pgettext_lazy("document status", "Processing")
    READY = "ready", pgettext_lazy("document status", "Ready")
    FAILED = "failed", pgettext_lazy("document status", "Failed")


# Document.stage while processing, as the console names it.
STAGE_LABELS = {
    "extracting": _("extracting text"),
    "normalising": _("normalising"),
    "redacting": _("redacting personal data"),
    "chunking": _("splitting into chunks"),
    "embedding": _("embedding"),
    "storing": _("storing"),
}


class FileKind(models.TextChoices):
    PDF = "pdf", _("PDF")
    TXT = "txt", _("Text")
    MD = "md", _("Markdown")
    DOCX = "docx", _("Word")
    PPTX = "pptx", _("PowerPoint")
    XLSX = "xlsx", _("Excel")
    CSV = "csv", _("CSV")
    HTML = "html", _("HTML")
    ODT = "odt", _("OpenDocument text")
    ODS = "ods", _("OpenDocument spreadsheet")
    ODP = "odp", _("OpenDocument presentation")
    XLS = "xls", _("Excel 97–2003")
    DOC = "doc", _("Word 97–2003")
    PPT = "ppt", _("PowerPoint 97–2003")
    RTF = "rtf", _("RTF")
    EPUB = "epub", _("EPUB")
    EML = "eml", _("E-mail")
    IMAGE = "image", _("Image (OCR)")


class Redaction(models.TextChoices):
    """What an upload asks of the redaction of its personal data (knowledge.redaction)."""

    DEFAULT = "default", _("As the scope's policy")
    KEEP_CONTACTS = "keep_contacts", _("Keep our contact details")
    ALL = "all", _("Redact everything")
    NONE = "none", _("Redact nothing")


# Each kind of personal data, for people (the placeholders in the text are "[EMAIL]"…).
PII_LABELS = {
    "EMAIL": _("e-mail addresses"),
    "PHONE": _("phone numbers"),
    "IBAN": _("bank accounts (IBAN, CCC, CBU, CLABE)"),
    "CARD": _("payment cards"),
    "DNI": _("Spanish ID numbers (DNI)"),
    "NIE": _("foreigner ID numbers (NIE)"),
    "CPF": _("Brazilian taxpayer numbers (CPF)"),
    "CNPJ": _("Brazilian company numbers (CNPJ)"),
    "NSS": _("Spanish social security numbers (NSS)"),
    "SSN": _("US social security numbers (SSN)"),
    "ID": _("other identity numbers (passport, RG, RUT, CURP, CUIT, PIS, NINO…)"),
    "SECRET": _("credentials (API keys, access tokens, private keys, passwords in links)"),
}


def _every_kind() -> list[str]:
    return list(PII_LABELS)


class RedactionPolicy(models.Model):
    """A scope's redaction (license null = global knowledge, the default of every scope):
    which kinds of personal data are replaced, whether uploads keep the organisation's own
    contact details by default, and those details. A license's allow-list adds to global's."""

    license = models.OneToOneField(
        License, null=True, blank=True, on_delete=models.CASCADE, related_name="redaction_policy"
    )
    kinds = ArrayField(models.CharField(max_length=8), default=_every_kind, blank=True)
    keep_contacts = models.BooleanField(default=False)
    allow = ArrayField(models.CharField(max_length=254), default=list, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["license"], nulls_distinct=False, name="one_redaction_policy_per_scope"
            ),
        ]

    def __str__(self) -> str:
        return f"redaction of {self.license.machine_id if self.license else 'global'}"


class SplitMode(models.TextChoices):
    """How a document is cut into chunks (knowledge.chunking)."""

    STRUCTURE = "structure", _("By structure")
    FIXED = "fixed", _("Fixed size")


class ChunkingDefault(models.Model):
    """A scope's chunking for the uploads that do not choose their own (license null =
    global, the default of every license without its own). Empty sizes keep the built-in
    ones of each document type (knowledge.chunking.CHUNK_SIZES)."""

    license = models.OneToOneField(
        License, null=True, blank=True, on_delete=models.CASCADE, related_name="chunking_default"
    )
    chunk_size = models.PositiveSmallIntegerField(null=True, blank=True)
    chunk_overlap = models.PositiveSmallIntegerField(null=True, blank=True)
    split = models.CharField(max_length=10, choices=SplitMode.choices, default=SplitMode.STRUCTURE)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["license"], nulls_distinct=False, name="one_chunking_default_per_scope"
            ),
        ]

    def __str__(self) -> str:
        return f"chunking of {self.license.machine_id if self.license else 'global'}"


class Document(models.Model):
    """An uploaded file and its ingestion state. ``license`` null means global knowledge."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    license = models.ForeignKey(
        License, null=True, blank=True, on_delete=models.PROTECT, related_name="documents"
    )
    file = models.FileField(upload_to="documents/%Y/%m/", max_length=255)
    filename = models.CharField(max_length=255)
    kind = models.CharField(max_length=8, choices=FileKind.choices)
    size_bytes = models.BigIntegerField()
    sha256 = models.CharField(max_length=64)
    source_type = models.CharField(
        max_length=20, choices=SourceType.choices, default=SourceType.OTHER
    )
    language = models.CharField(max_length=8, choices=Language.choices, default=Language.AUTO)
    redaction = models.CharField(
        max_length=16, choices=Redaction.choices, default=Redaction.DEFAULT
    )
    status = models.CharField(
        max_length=16, choices=DocumentStatus.choices, default=DocumentStatus.QUEUED
    )
    stage = models.CharField(max_length=32, blank=True)
    progress = models.PositiveSmallIntegerField(default=0)
    # While its passages are embedded: when they should all be, at the pace of this run.
    embedded_by = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)
    # The error as an English template and its parameters, shown in the admin's language.
    error_i18n = models.JSONField(default=dict, blank=True)
    chunk_count = models.PositiveIntegerField(default=0)
    page_count = models.PositiveIntegerField(null=True, blank=True)
    # Only for encrypted PDFs, and cleared as soon as ingestion ends either way.
    pdf_password = models.CharField(max_length=255, blank=True)
    # Chunking chosen at upload (or the scope's default then); empty sizes = the type's.
    chunk_size = models.PositiveSmallIntegerField(null=True, blank=True)
    chunk_overlap = models.PositiveSmallIntegerField(null=True, blank=True)
    split = models.CharField(max_length=10, choices=SplitMode.choices, default=SplitMode.STRUCTURE)
    metadata = models.JSONField(default=dict, blank=True)
    # The content hashes of this document's passages that another document of its scope
    # had stored first (a scope stores a passage once, seed 004): when that document lets
    # go of one, the passage moves here instead of leaving the scope (knowledge.sharing).
    shared_hashes = ArrayField(models.CharField(max_length=64), default=list, blank=True)
    # Passages an admin forgot one by one: reading the document again (Retry, a web page's
    # new version, a shared passage handed over) leaves them out.
    forgotten_hashes = ArrayField(models.CharField(max_length=64), default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        # Console permissions beside Django's own (accounts/roles.py hands them out).
        permissions = [
            ("view_dashboard", "Can see the dashboard"),
            ("use_playground", "Can search and chat as an admin"),
        ]
        constraints = [
            # Same bytes in the same scope are one document (NULL license = the global scope).
            models.UniqueConstraint(
                fields=["license", "sha256"],
                name="document_unique_file_per_scope",
                nulls_distinct=False,
            ),
        ]
        indexes = [
            models.Index(fields=["status", "updated_at"]),
            GinIndex(fields=["shared_hashes"], name="document_shared_hashes_gin"),
        ]

    def __str__(self) -> str:
        return self.filename

    @property
    def scope_display(self) -> str:
        """Where the document lives, for people: its license's machine_id, or "Global" in
        the reader's language (the scope's identifier is licenses.models.GLOBAL_SCOPE)."""
        return self.license.machine_id if self.license else str(_("Global"))

    @property
    def minutes_left(self) -> int | None:
        """Whole minutes until its passages should all be embedded (at least one), or None
        outside embedding and once the estimate is a minute past (a run that stopped)."""
        if self.stage != "embedding" or self.embedded_by is None:
            return None
        seconds = (self.embedded_by - timezone.now()).total_seconds()
        return max(1, math.ceil(seconds / 60)) if seconds > -60 else None

    @property
    def stage_label(self) -> str:
        """The processing stage in the active language."""
        return str(STAGE_LABELS.get(self.stage, self.stage))

    @property
    def error_message(self) -> str:
        """Why ingestion failed, in the active language (``error`` is the English text)."""
        if not self.error_i18n.get("template"):
            return self.error
        return translate_message(self.error_i18n["template"], self.error_i18n.get("params"))

    @property
    def unread_attachments(self) -> list[tuple[str, str]]:
        """An e-mail's attachments that were not read: (name, why) in the active language."""
        unread = self.metadata.get("attachments_unread") or []
        return [
            (str(entry.get("name", "")), translate_message(entry["template"], entry.get("params")))
            for entry in unread
            if isinstance(entry, dict) and isinstance(entry.get("template"), str)
        ]

    @property
    def error_technical(self) -> str:
        """What the file's reader itself said (English, for whoever debugs the file)."""
        return str(self.error_i18n.get("technical", ""))

    @property
    def is_finished(self) -> bool:
        return self.status in {DocumentStatus.READY, DocumentStatus.FAILED}


class Chunk(models.Model):
    """A piece of a document, already redacted. Carries the document's scope for direct filtering."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="chunks")
    license = models.ForeignKey(License, null=True, on_delete=models.CASCADE, related_name="+")
    ordinal = models.PositiveIntegerField()
    content = models.TextField()
    content_hash = models.CharField(max_length=64)
    token_count = models.PositiveIntegerField()
    heading = models.TextField(blank=True)
    page_start = models.PositiveIntegerField(null=True)
    page_end = models.PositiveIntegerField(null=True)
    ts_config = models.CharField(max_length=16, default="pb_simple")
    # Filled in SQL at insert: to_tsvector(ts_config, heading + content).
    search_vector = SearchVectorField(null=True)
    # The license, or GLOBAL_SCOPE_KEY for global chunks: a NOT NULL copy of the scope that
    # keys the keyword GIN index (see Meta.indexes).
    scope_key = models.GeneratedField(
        expression=Coalesce("license", models.Value(GLOBAL_SCOPE_KEY)),
        output_field=models.UUIDField(),
        db_persist=True,
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["document", "ordinal"]
        constraints = [
            models.UniqueConstraint(
                fields=["license", "content_hash"],
                name="chunk_unique_content_per_scope",
                nulls_distinct=False,
            ),
        ]
        indexes = [
            # Keys are (scope, lexeme) pairs, so a keyword search reads only the posting lists
            # of its own scope (migration 0007; BENCHMARKS.md's history, "Retrieval latency at scale").
            GinIndex(
                Func(
                    F("scope_key"),
                    F("search_vector"),
                    function="pb_scoped_lexemes",
                    output_field=SearchVectorField(),
                ),
                name="chunk_scoped_lexemes_gin",
            ),
            models.Index(fields=["license"], name="chunk_license_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.document_id}#{self.ordinal}"


class Embedding(models.Model):
    """One vector per chunk and model (``model`` = ``name@dimensions``).

    The column is an untyped ``halfvec`` so several models can live side by side while a
    re-embedding runs; each model gets its own partial HNSW index over a cast to its
    dimension (see knowledge.search.vector_index). Half precision, because the search compares
    half-precision vectors anyway (the index's own), and the heap every kNN search reads
    is half as big (migration 0008).

    **The vector outbox.** With a remote vector backend (``SEARCH_VECTOR_BACKEND=vertex``),
    every statement that adds or removes embeddings also writes ``VectorOutbox`` rows, in
    the same transaction, whatever the path (ingestion, re-embedding, a document's, chunk's
    or license's deletion cascading): the two statement-level triggers in ``Meta.triggers``
    (django-pgtrigger). They write only in sessions where ``portality.vector_outbox`` is
    ``on`` — set per connection from the setting (knowledge.apps.search_session_settings),
    so a deployment whose vectors live only in PostgreSQL writes nothing. A forgetting
    names its erasure receipt in ``portality.vector_erasure`` (transaction-local;
    knowledge.vector_sync.erasure). knowledge.vector_sync drains the outbox."""

    chunk = models.ForeignKey(Chunk, on_delete=models.CASCADE, related_name="embeddings")
    license = models.ForeignKey(License, null=True, on_delete=models.CASCADE, related_name="+")
    model = models.CharField(max_length=100)
    vector = HalfVectorField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["chunk", "model"], name="embedding_unique_per_model"),
        ]
        indexes = [
            # Covering: an exact comparison of a scope's vectors reads them from this index
            # alone (an index-only scan), not from the heap row by row (migration 0012).
            models.Index(
                fields=["model", "license"],
                include=["id", "chunk", "vector"],
                name="embedding_scope_vectors",
            )
        ]
        triggers = [
            pgtrigger.Trigger(
                name="vector_outbox_upsert",
                level=pgtrigger.Statement,
                when=pgtrigger.After,
                operation=pgtrigger.Insert,
                referencing=pgtrigger.Referencing(new="added"),
                func=f"""
                    IF current_setting('{OUTBOX_SESSION_FLAG}', true) = 'on' THEN
                        INSERT INTO knowledge_vectoroutbox (datapoint_id, operation)
                        SELECT id, 'upsert' FROM added ORDER BY id;
                    END IF;
                    RETURN NULL;
                """,
            ),
            pgtrigger.Trigger(
                name="vector_outbox_remove",
                level=pgtrigger.Statement,
                when=pgtrigger.After,
                operation=pgtrigger.Delete,
                referencing=pgtrigger.Referencing(old="removed"),
                func=f"""
                    IF current_setting('{OUTBOX_SESSION_FLAG}', true) = 'on' THEN
                        INSERT INTO knowledge_vectoroutbox (datapoint_id, operation, erasure_id)
                        SELECT id, 'remove',
                               NULLIF(current_setting('{ERASURE_SESSION_KEY}', true), '')::bigint
                          FROM removed ORDER BY id;
                    END IF;
                    RETURN NULL;
                """,
            ),
        ]

    def __str__(self) -> str:
        return f"{self.model} of chunk {self.chunk_id}"


class SentenceEmbedding(models.Model):
    """A vector per group of sentences of a chunk (knowledge.chunking.sentence_groups).

    A question usually paraphrases one sentence of the passage that answers it, and one
    vector for a whole chunk blurs that sentence with its neighbours; the search mixes the
    best sentence's similarity into each kNN candidate's (BENCHMARKS.md's history, "Sentence
    vectors"). These rows are never searched on their own: they are read only through the
    embeddings the scoped kNN has already chosen, so they carry no scope of their own.

    Every embedding the pass has seen has at least one row: a chunk that is a single
    sentence group gets its own vector again. Whether the pass has run is thus read here,
    not marked on the embedding: updating an embedding row would add a second entry for it
    to the HNSW graph."""

    embedding = models.ForeignKey(Embedding, on_delete=models.CASCADE, related_name="sentences")
    vector = HalfVectorField()

    def __str__(self) -> str:
        return f"sentence of embedding {self.embedding_id}"


class DraftVector(models.Model):
    """A passage vector embedded for a document that is not stored yet.

    Embedding is the slow part of an ingestion (a 20,000-row sheet is half an hour on two
    cores), and the chunks are stored in one transaction at its end. Each batch's vectors
    are written here as they come, so a run that stops before the end — a worker killed by
    a deploy, a run handing over before the task's time limit, a provider down for longer
    than the retries — is continued by the next one instead of started again. Never
    searched; removed when the document is stored, and with the document."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    model = models.CharField(max_length=100)
    text_hash = models.CharField(max_length=64)  # sha256 of the exact text embedded
    vector = HalfVectorField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["document", "model", "text_hash"], name="draft_vector_unique_text"
            ),
        ]

    def __str__(self) -> str:
        return f"draft {self.model} vector of document {self.document_id}"


class EmbeddingSpace(models.Model):
    """A model's vectors in the database: whether its index is built and whether search uses it."""

    model = models.CharField(max_length=100, unique=True)
    dimensions = models.PositiveIntegerField()
    is_active = models.BooleanField(default=False)
    index_ready = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    activated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["is_active"],
                condition=models.Q(is_active=True),
                name="embedding_space_one_active",
            ),
        ]

    def __str__(self) -> str:
        return self.model


class SearchLog(models.Model):
    """One retrieval (seed 004 §7 ai_data_access_logs): who, in which scope, what came back, how fast.

    The query is stored redacted, like everything else that is kept."""

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.CharField(max_length=200)
    license = models.ForeignKey(
        License, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    scope_label = models.CharField(max_length=64)
    query = models.TextField()
    strategy = models.CharField(max_length=16)
    top_k = models.PositiveSmallIntegerField()
    min_score = models.FloatField()
    latency_ms = models.FloatField()
    candidates = models.PositiveIntegerField()
    cut_by_threshold = models.PositiveIntegerField()
    result_count = models.PositiveSmallIntegerField()
    chunk_ids = ArrayField(models.BigIntegerField(), default=list)
    # The chat answer this search was for (a conversations Exchange): the question's words
    # here are what its end user wrote, so they go when the answer's do (retention 0, the
    # person's erasure, a forgotten memory). Not a foreign key: conversations sit above.
    exchange_id = models.UUIDField(null=True, blank=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["license", "created_at"], name="searchlog_license_time_idx"),
            # The daily purge finds the words still kept without reading every older row.
            models.Index(
                fields=["created_at"], condition=~Q(query=""), name="searchlog_words_kept_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.actor}: {self.query[:40]}"

    @property
    def actor_display(self) -> str:
        """Who searched, in the reader's language ("license:sala-07" → "License sala-07")."""
        kind, _sep, name = self.actor.partition(":")
        if kind == "license":
            return str(_("License %(machine_id)s")) % {"machine_id": name}
        if kind == "admin":
            return str(_("Admin %(username)s")) % {"username": name}
        return self.actor


class VectorErasure(models.Model):
    """A receipt for forgetting, when a remote vector backend holds copies of the vectors:
    what was forgotten, how many of its datapoints the engine had to remove, and when it
    confirmed the last (knowledge/vector_sync.py). Search never waited for it: PostgreSQL
    re-checks every neighbour, so a forgotten passage is gone from answers at once; the
    receipt is about the engine's copy."""

    subject = models.CharField(max_length=300)
    requested_at = models.DateTimeField(auto_now_add=True)
    datapoints = models.PositiveIntegerField(default=0)
    confirmed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-requested_at"]

    def __str__(self) -> str:
        return self.subject


class VectorOutbox(models.Model):
    """A vector change a remote backend has yet to confirm. Rows are written by the triggers
    declared on ``Embedding`` in the transaction that changes it, whatever the path
    (ingestion, re-embedding, forgetting, a license's cascade), and only in sessions where
    ``portality.vector_outbox`` is on (knowledge.apps sets it for remote backends)."""

    class Operation(models.TextChoices):
        UPSERT = "upsert"
        REMOVE = "remove"

    datapoint_id = models.BigIntegerField()  # an embedding's id; removals outlive the row
    operation = models.CharField(max_length=6, choices=Operation.choices)
    erasure = models.ForeignKey(
        VectorErasure, null=True, blank=True, on_delete=models.SET_NULL, related_name="removals"
    )
    created_at = models.DateTimeField(db_default=models.functions.Now())
    available_at = models.DateTimeField(db_default=models.functions.Now())
    attempts = models.PositiveIntegerField(db_default=0)
    last_error = models.TextField(db_default="", blank=True)

    class Meta:
        indexes = [models.Index(fields=["available_at", "id"], name="vector_outbox_due_idx")]

    def __str__(self) -> str:
        return f"{self.operation} {self.datapoint_id}"


class SourceMode(models.TextChoices):
    PAGE = "page", _("One page")
    SITEMAP = "sitemap", _("The pages of a sitemap")
    SITE = "site", _("A whole site")


class Source(models.Model):
    """A web address whose pages are kept as documents and re-checked on a schedule
    (knowledge.sources). ``license`` null means global knowledge, as for an upload."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    license = models.ForeignKey(
        License, null=True, blank=True, on_delete=models.PROTECT, related_name="sources"
    )
    url = models.URLField(max_length=2000)
    mode = models.CharField(max_length=8, choices=SourceMode.choices, default=SourceMode.PAGE)
    every_hours = models.PositiveIntegerField(default=24)
    max_pages = models.PositiveIntegerField(default=50)
    max_depth = models.PositiveSmallIntegerField(default=2)
    last_checked_at = models.DateTimeField(null=True, blank=True)
    next_check_at = models.DateTimeField(null=True, blank=True, db_index=True)
    checking = models.BooleanField(default=False)
    # When the pass a check left unfinished (out of time) began; null when the last was whole.
    pass_started_at = models.DateTimeField(null=True, blank=True)
    # The last check's failure (template and params, read in each admin's language), and
    # what it did: {"new": 1, "changed": 0, "unchanged": 4, "removed": 1, "errors": 0}.
    error = models.TextField(blank=True)
    error_i18n = models.JSONField(default=dict, blank=True)
    last_result = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["license", "url"], nulls_distinct=False, name="one_source_per_url_and_scope"
            ),
        ]

    def __str__(self) -> str:
        return self.url

    @property
    def error_message(self) -> str:
        """The last check's failure in the active language (``error`` is the English)."""
        return _message(self.error, self.error_i18n)


class SourcePage(models.Model):
    """A page of a source, the document its content became, and what the next check sends
    to learn cheaply whether it changed (ETag, Last-Modified, the main text's hash)."""

    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="pages")
    url = models.URLField(max_length=2000)
    document = models.ForeignKey(
        Document, null=True, blank=True, on_delete=models.SET_NULL, related_name="source_pages"
    )
    etag = models.CharField(max_length=255, blank=True)
    last_modified = models.CharField(max_length=64, blank=True)
    text_hash = models.CharField(max_length=64, blank=True)
    links = models.JSONField(default=list, blank=True)  # for a site: where it leads
    depth = models.PositiveSmallIntegerField(default=0)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.TextField(blank=True)
    error_i18n = models.JSONField(default=dict, blank=True)
    last_checked_at = models.DateTimeField(null=True, blank=True)
    last_changed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["url"]
        constraints = [
            models.UniqueConstraint(fields=["source", "url"], name="one_page_per_url_and_source"),
        ]

    def __str__(self) -> str:
        return self.url

    @property
    def error_message(self) -> str:
        return _message(self.error, self.error_i18n)


def _message(english: str, i18n: dict[str, object]) -> str:
    template = i18n.get("template")
    if not isinstance(template, str) or not template:
        return english
    params = i18n.get("params")
    return translate_message(template, params if isinstance(params, dict) else None)
