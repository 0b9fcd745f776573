"""Plain ``make_<model>`` helpers (STYLE §10)."""

from __future__ import annotations

import hashlib
import io
import itertools
from pathlib import Path

from django.conf import settings

from knowledge import ingestion, uploads
from knowledge.models import Document
from knowledge.search import sentence_vectors
from licenses.models import License

_counter = itertools.count(1)


def make_license(**overrides) -> License:
    n = next(_counter)
    fields = {
        "machine_id": f"machine-{n}",
        "user_name": f"User {n}",
        "key_prefix": f"pbk_{n:06d}",
        "key_hash": hashlib.sha256(f"key-{n}".encode()).hexdigest(),
    }
    fields.update(overrides)
    return License.objects.create(**fields)


def make_document(
    text: str | bytes = "Texto de prueba.",
    *,
    filename: str = "note.txt",
    license: License | None = None,
    ingest: bool = True,
    **options,
) -> Document:
    data = text.encode() if isinstance(text, str) else text
    creation = uploads.document_create(
        file=io.BytesIO(data), filename=filename, license=license, enqueue=False, **options
    )
    if ingest:  # as the worker does: the document, then its sentence vectors
        ingestion.document_ingest(document_id=creation.document.pk)
        sentence_vectors.document_embed_sentences(document_id=creation.document.pk)
    return Document.objects.get(pk=creation.document.pk)


def as_owner(user):
    """A console account with the owner role (a bare staff account has no console access)."""
    from accounts.roles import role_grant

    role_grant(username=user.get_username(), role="owner")
    return user


def make_unanswered_exchange(license: License, user_ref: str = "ana"):
    """An end user's question the knowledge did not answer, kept (and counted in a gap)."""
    from conversations.services import Said, exchange_record

    return exchange_record(
        Said(
            license=license, user_ref=user_ref, session_id="s1", by_staff=False,
            question="¿Hay wifi?", answer="No tengo información.", language="es",
            answerer="extractive", citations=[], no_information=True, best_score=None,
            min_score=0.8, latency_ms=5.0, vector=[1.0, 0.0, 0.0], model="fake@3",
        )
    )  # fmt: skip


def make_license_holding(*names: str) -> License:
    """A license holding the files ``names`` of tests/data/documents."""
    from tests.documents import DOCUMENTS

    license = make_license()
    for name in names:
        make_document((DOCUMENTS / name).read_bytes(), filename=name, license=license)
    return license


def make_sample_handbook_license() -> License:
    """A license holding make run's sample handbook (docs/sample), in es, pt and en."""
    license = make_license()
    handbook = Path(settings.BASE_DIR, "docs", "sample", "sample-handbook.md").read_text()
    make_document(handbook, filename="sample-handbook.md", license=license)
    return license
