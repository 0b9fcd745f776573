from __future__ import annotations

import io
import time
from datetime import timedelta

import pytest
from django.core.files.storage import default_storage
from django.db import connection
from django.utils import timezone

from datastores.locks import lock_key, locks_held
from knowledge import forgetting, ingestion, reingestion, uploads
from knowledge.extraction import IngestionError
from knowledge.models import Chunk, Document, DocumentStatus, Embedding, EmbeddingSpace
from tests.conftest import PDFS
from tests.factories import make_document, make_license

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fake_embedder", "media_root")]

REGLAMENTO = """# Reglamento del condominio

## Piscina

La piscina abre de 8:00 a 20:00. Los niños menores de 12 años deben estar acompañados.
Para reclamaciones escriba a administracion@condominio.es o llame al +34 612 345 678.

## Medicación

El botiquín guarda la medicación de primeros auxilios. Alergia a Amoxicilina: avise al conserje.
"""


def keyword_hits(query: str, config: str = "pb_spanish") -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT content FROM knowledge_chunk WHERE search_vector @@ websearch_to_tsquery(%s::regconfig, %s)",
            [config, query],
        )
        return [row[0] for row in cursor.fetchall()]


class TestIngest:
    def test_markdown_becomes_ready_chunks_with_embeddings_and_headings(self):
        document = make_document(REGLAMENTO, filename="reglamento.md", source_type="regulation")

        assert document.status == DocumentStatus.READY
        assert document.progress == 100
        assert document.language == "es"
        chunks = list(document.chunks.order_by("ordinal"))
        assert [c.heading for c in chunks] == [
            "Reglamento del condominio > Piscina",
            "Reglamento del condominio > Medicación",
        ]
        assert document.chunk_count == 2
        assert (
            Embedding.objects.filter(chunk__document=document, model="fake-hash@384").count() == 2
        )
        assert EmbeddingSpace.objects.get(model="fake-hash@384").is_active

    def test_pii_never_reaches_chunks_and_is_counted(self):
        document = make_document(REGLAMENTO, filename="reglamento.md")

        text = " ".join(document.chunks.values_list("content", flat=True))
        assert "administracion@condominio.es" not in text
        assert "612 345 678" not in text
        assert "[EMAIL]" in text and "[PHONE]" in text
        assert document.metadata["pii_redacted"] == {"EMAIL": 1, "PHONE": 1}

    def test_redaction_can_be_switched_off(self, settings):
        settings.KNOWLEDGE_REDACT_PII = False
        document = make_document(REGLAMENTO, filename="reglamento.md")

        assert "administracion@condominio.es" in " ".join(
            document.chunks.values_list("content", flat=True)
        )

    def test_keyword_index_folds_accents_and_stems(self):
        make_document(REGLAMENTO, filename="reglamento.md")

        assert len(keyword_hits("medicacion")) == 1
        assert len(keyword_hits("Amoxicilina")) == 1
        assert len(keyword_hits("niño acompañado")) == 1

    def test_chunks_and_embeddings_carry_the_documents_scope(self):
        license = make_license()
        document = make_document(REGLAMENTO, filename="r.md", license=license)

        assert set(Chunk.objects.filter(document=document).values_list("license", flat=True)) == {
            license.pk
        }
        assert set(
            Embedding.objects.filter(chunk__document=document).values_list("license", flat=True)
        ) == {license.pk}

    def test_pdf_keeps_page_spans(self):
        with open(PDFS / "pdflatex-4-pages.pdf", "rb") as handle:
            document = make_document(handle.read(), filename="paper.pdf")

        assert document.page_count == 4
        pages = list(document.chunks.values_list("page_start", "page_end"))
        assert pages[0][0] == 1 and pages[-1][1] == 4


class TestDedupe:
    def test_same_file_in_same_scope_returns_the_existing_document(self):
        first = make_document("Uno. Dos.")
        again = uploads.document_create(
            file=io.BytesIO(b"Uno. Dos."), filename="copy.txt", license=None, enqueue=False
        )

        assert again.created is False
        assert again.document.pk == first.pk
        assert Document.objects.count() == 1

    def test_same_file_in_another_scope_is_a_new_document(self):
        make_document("Uno. Dos.")
        other = make_document("Uno. Dos.", license=make_license())

        assert Document.objects.count() == 2
        assert other.chunk_count == 1

    def test_a_chunk_already_in_the_scope_is_not_stored_twice(self):
        shared = "Este párrafo aparece en dos documentos del mismo ámbito."
        make_document(f"## Común\n\n{shared}\n\n## Uno\n\nPrimero.", filename="uno.md")
        second = make_document(
            f"## Común\n\n{shared}\n\n## Dos\n\nSegundo, distinto.", filename="dos.md"
        )

        assert Chunk.objects.filter(content=shared).count() == 1
        assert second.metadata["duplicate_chunks_skipped"] == 1


class TestBadInput:
    @pytest.mark.parametrize(
        ("data", "filename", "message"),
        [
            (b"", "empty.txt", "empty"),
            (b"\x89PNG\r\n\x1a\n" + b"\x00" * 50, "photo.pdf", "image is damaged"),
            (b"PK\x03\x04" + b"\x00" * 50, "report.docx", "damaged or incomplete"),
        ],
    )
    def test_refused_at_upload_with_nothing_stored(self, data, filename, message):
        with pytest.raises(IngestionError, match=message):
            uploads.document_create(
                file=io.BytesIO(data), filename=filename, license=None, enqueue=False
            )

        assert Document.objects.count() == 0

    def test_over_the_size_limit(self, settings):
        settings.KNOWLEDGE_MAX_UPLOAD_BYTES = 10
        with pytest.raises(IngestionError, match="the limit is 0 MB"):
            uploads.document_create(
                file=io.BytesIO(b"x" * 11), filename="big.txt", license=None, enqueue=False
            )

    @pytest.mark.parametrize(
        ("name", "message"),
        [
            ("invalid.pdf", "damaged or incomplete"),
            ("encryption_openpassword.pdf", "encrypted"),
            ("truetype_font_nomapping.pdf", "unreadable"),
            ("T02-02_002_page-tree-kids-links-recursive.pdf", "loops back"),
        ],
    )
    def test_bad_pdf_fails_with_its_message_and_nothing_searchable(self, name, message):
        document = make_document((PDFS / name).read_bytes(), filename=name)

        assert document.status == DocumentStatus.FAILED
        assert message in document.error
        assert not Chunk.objects.filter(document=document).exists()

    def test_password_is_used_then_forgotten(self):
        document = make_document(
            (PDFS / "libreoffice-writer-password.pdf").read_bytes(),
            filename="locked.pdf",
            pdf_password="openpassword",
        )

        assert document.status == DocumentStatus.READY
        assert document.pdf_password == ""


class TestForgetAndRetry:
    def test_forget_removes_document_chunks_embeddings_and_file(
        self, django_capture_on_commit_callbacks
    ):
        document = make_document(REGLAMENTO, filename="r.md")
        stored = document.file.name
        assert default_storage.exists(stored)

        with django_capture_on_commit_callbacks(execute=True):
            forgetting.document_forget(document=document)

        assert not Document.objects.exists()
        assert not Chunk.objects.exists()
        assert not Embedding.objects.exists()
        assert not default_storage.exists(stored)
        assert keyword_hits("Amoxicilina") == []

    def test_redelivered_ingest_leaves_exactly_one_copy(self):
        document = make_document(REGLAMENTO, filename="r.md", ingest=False)
        ingestion.document_ingest(document_id=document.pk)
        # A redelivery after a killed worker finds the document still "processing".
        Document.objects.filter(pk=document.pk).update(status=DocumentStatus.PROCESSING)

        ingestion.document_ingest(document_id=document.pk)

        assert Chunk.objects.filter(document=document).count() == 2
        assert Embedding.objects.filter(chunk__document=document).count() == 2

    def test_a_finished_document_is_not_ingested_again_by_a_stray_task(self, fake_embedder):
        document = make_document(REGLAMENTO, filename="r.md")
        calls = fake_embedder.calls

        assert ingestion.document_ingest(document_id=document.pk) is None
        assert fake_embedder.calls == calls

    def test_stuck_documents_are_requeued(self, settings):
        document = make_document(REGLAMENTO, filename="r.md", ingest=False)
        Document.objects.filter(pk=document.pk).update(
            status=DocumentStatus.PROCESSING, updated_at=timezone.now() - timedelta(hours=2)
        )

        requeued = reingestion.documents_requeue_stuck(enqueue=False)

        assert [d.pk for d in requeued] == [document.pk]
        assert Document.objects.get(pk=document.pk).status == DocumentStatus.QUEUED

    def test_a_document_another_run_is_ingesting_cannot_be_retried(self, other_session):
        document = make_document(REGLAMENTO, filename="r.md", ingest=False)
        Document.objects.filter(pk=document.pk).update(status=DocumentStatus.PROCESSING)
        document.refresh_from_db()
        # A worker's session holds the document's lock while it ingests (as ingestion does).
        other_session.execute("SELECT pg_advisory_lock(%s)", [lock_key(document.pk)])

        with pytest.raises(Exception, match="still being processed"):
            reingestion.document_retry(document=document, enqueue=False)
        assert reingestion.documents_requeue_stuck(enqueue=False) == []
        # Nor does a second delivery of its message ingest it beside the live run.
        assert ingestion.document_ingest(document_id=document.pk) is None

    def test_a_processing_document_no_session_holds_is_interrupted(self, other_session):
        document = make_document(REGLAMENTO, filename="r.md", ingest=False)
        Document.objects.filter(pk=document.pk).update(status=DocumentStatus.PROCESSING)
        other_session.execute("SELECT pg_advisory_lock(%s)", [lock_key(document.pk)])
        pid = other_session.execute("SELECT pg_backend_pid()").fetchone()[0]
        other_session.close()  # the worker killed: PostgreSQL frees its locks
        gone_within(5, pid)  # when its backend has exited, not when the client hangs up

        assert [d.pk for d in reingestion.documents_requeue_stuck(enqueue=False)] == [document.pk]
        assert Document.objects.get(pk=document.pk).status == DocumentStatus.QUEUED

    def test_an_ingestion_holds_its_document_s_lock_only_while_it_runs(self, monkeypatch):
        document = make_document(REGLAMENTO, filename="r.md", ingest=False)
        seen = []
        extract = ingestion._extract

        def watched(doc, provider):
            seen.append(locks_held([lock_key(doc.pk)]))
            return extract(doc, provider)

        monkeypatch.setattr(ingestion, "_extract", watched)

        assert ingestion.document_ingest(document_id=document.pk).status == DocumentStatus.READY
        assert seen == [{lock_key(document.pk)}]
        assert locks_held([lock_key(document.pk)]) == set()

    def test_failed_encrypted_pdf_retried_with_its_password(self):
        document = make_document(
            (PDFS / "libreoffice-writer-password.pdf").read_bytes(), filename="locked.pdf"
        )
        assert document.status == DocumentStatus.FAILED

        reingestion.document_retry(document=document, pdf_password="openpassword", enqueue=False)
        ingestion.document_ingest(document_id=document.pk)

        document.refresh_from_db()
        assert document.status == DocumentStatus.READY
        assert document.chunk_count >= 1


class TestIngestionBudget:
    def test_a_pdf_that_would_take_hours_to_read_fails_at_once_with_its_reason(self, tmp_path):
        from tests.knowledge.test_extraction import shared_stream_pdf

        data = shared_stream_pdf(tmp_path / "bomb.pdf", pages=40, megabytes=5).read_bytes()
        document = make_document(data, filename="bomb.pdf")

        assert document.status == DocumentStatus.FAILED
        assert "drawing instructions" in document.error_message
        assert not Chunk.objects.filter(document=document).exists()

    def test_forgetting_a_document_being_read_stops_its_ingestion(self, monkeypatch):
        # Finding N4: forgetting a document while it was processing did not stop the work.
        document = make_document(
            (PDFS / "pdflatex-4-pages.pdf").read_bytes(), filename="a.pdf", ingest=False
        )
        pages_read = []
        still_processing = ingestion._still_processing

        def forget_after_the_first_page(doc):
            pages_read.append(doc.pk)
            if len(pages_read) == 1:
                forgetting.document_forget(document=Document.objects.get(pk=doc.pk))
            still_processing(doc)

        monkeypatch.setattr(ingestion, "_still_processing", forget_after_the_first_page)

        assert ingestion.document_ingest(document_id=document.pk) is None
        assert len(pages_read) == 1  # the other three pages were never read
        assert not Document.objects.filter(pk=document.pk).exists()
        assert not Chunk.objects.exists()


def test_an_unexpected_crash_shows_a_reference_not_the_internals(caplog):
    # Finding N9: failures showed exception class names and their internals to the admin.
    document = make_document("Texto.", filename="t.txt", ingest=False)

    ingestion.document_mark_crashed(document_id=document.pk, error=KeyError("/Root-internal"))

    document.refresh_from_db()
    assert document.status == DocumentStatus.FAILED
    message = document.error_message
    assert "reference" in message and "KeyError" not in message and "internal" not in message
    reference = message.split("reference ")[1].split(":")[0]
    logged = [r for r in caplog.records if reference in r.getMessage()]
    assert logged and logged[0].exc_info[0] is KeyError  # the details are in the log


def test_a_full_disk_during_ingestion_says_what_to_do(caplog):
    """It read as a bug to report ("unexpected error… tell whoever runs the product")."""
    import errno  # noqa: PLC0415

    document = make_document("Texto.", filename="t.txt", ingest=False)

    ingestion.document_mark_crashed(
        document_id=document.pk, error=OSError(errno.ENOSPC, "No space left on device")
    )

    document.refresh_from_db()
    assert document.status == DocumentStatus.FAILED
    assert document.error_message.startswith("The server ran out of disk space")
    assert "a disk is full" in caplog.text


def gone_within(seconds: float, pid: int) -> None:
    deadline = time.monotonic() + seconds
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute("SELECT pg_stat_clear_snapshot()")  # fresh inside a transaction
            cursor.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", [pid])
            if cursor.fetchone() is None:
                return
            time.sleep(0.05)
    raise AssertionError(f"PostgreSQL backend {pid} still running after {seconds} s")
