from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from knowledge.models import Chunk, Document, DocumentStatus
from tests.conftest import PDFS
from tests.documents import build, with_bad_checksum
from tests.factories import as_owner, make_document, make_license

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]

HOSTILE = '<script>alert("x")</script>'


@pytest.fixture
def admin_client(client, django_user_model):
    as_owner(django_user_model.objects.create_user("admin", password="pw", is_staff=True))
    client.force_login(django_user_model.objects.get(username="admin"))
    return client


def upload(client, name, data, **fields):
    return client.post(
        "/knowledge/upload",
        {
            "file": SimpleUploadedFile(name, data),
            "scope": "global",
            "source_type": "other",
            "language": "auto",
            **fields,
        },
        HTTP_ACCEPT="application/json",
    )


class TestPagesNeedStaff:
    @pytest.mark.parametrize("url", ["/", "/knowledge/", "/knowledge/search/", "/licenses/"])
    def test_anonymous_is_sent_to_login(self, client, url):
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]

    @pytest.mark.parametrize("url", ["/", "/knowledge/", "/knowledge/search/", "/licenses/"])
    def test_every_screen_renders(self, admin_client, url):
        assert admin_client.get(url).status_code == 200


class TestKnowledgePage:
    def test_empty_state_tells_a_new_admin_what_to_do(self, admin_client):
        html = admin_client.get("/knowledge/").content.decode()
        assert "No knowledge yet" in html and "Drop a document above" in html

    def test_upload_queues_a_document_and_reports_its_status(
        self, admin_client, django_capture_on_commit_callbacks
    ):
        response = upload(admin_client, "nota.txt", "El portón se cierra a las 22 h.".encode())

        assert response.status_code == 201
        payload = response.json()
        assert payload["status"] == "queued" and payload["filename"] == "nota.txt"
        status = admin_client.get(f"/knowledge/{payload['id']}/status").json()
        assert status["status"] == "queued"

    def test_an_uploaded_original_is_readable_by_the_service_user_only(self, admin_client):
        # Finding N6 of the second outside attack run: originals were stored 0644.
        response = upload(admin_client, "privado.txt", b"Acta reservada.")

        path = Path(Document.objects.get(pk=response.json()["id"]).file.path)
        assert path.stat().st_mode & 0o777 == 0o600
        assert path.parent.stat().st_mode & 0o077 == 0

    def test_upload_into_a_license_scope(self, admin_client):
        license = make_license(machine_id="sala-1")
        response = upload(admin_client, "n.txt", b"Texto.", scope="license", license="sala-1")

        assert Document.objects.get(pk=response.json()["id"]).license == license

    @pytest.mark.parametrize(
        ("name", "data", "message"),
        [
            ("vacio.txt", b"", "vacio.txt is empty."),
            ("foto.pdf", b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, "image is damaged"),
            # a file damaged in transit answered 500 (zipfile's BadZipFile escaped)
            (
                "roto.docx",
                with_bad_checksum(build("docx"), "[Content_Types].xml"),
                "This file is damaged or incomplete (a part of it cannot be read back).",
            ),
        ],
    )
    def test_bad_uploads_get_a_clear_error_and_store_nothing(
        self, admin_client, name, data, message
    ):
        response = upload(admin_client, name, data)

        assert response.status_code == 400 and message in response.json()["error"]
        assert not Document.objects.exists()

    def test_license_scope_without_a_license_is_refused(self, admin_client):
        response = upload(admin_client, "n.txt", b"Texto.", scope="license", license="")
        assert response.status_code == 400 and "Choose the license" in response.json()["error"]

    def test_the_table_filters_sorts_and_escapes_file_names(self, admin_client):
        make_document("Uno.", filename=f"{HOSTILE}.txt")
        make_document((PDFS / "invalid.pdf").read_bytes(), filename="invalid.pdf")

        html = admin_client.get("/knowledge/?status=failed&sort=filename").content.decode()
        assert "invalid.pdf" in html and "save or export it again as PDF" in html
        assert "startxref" not in html  # the reader's own words are on the document's page
        failed = Document.objects.get(filename="invalid.pdf")
        detail = admin_client.get(f"/knowledge/{failed.pk}/").content.decode()
        assert "Technical detail" in detail and "startxref" in detail
        assert HOSTILE not in html
        assert (
            admin_client.get("/knowledge/?q=nothing-like-this")
            .content.decode()
            .count("No entries match")
            == 1
        )

    def test_htmx_gets_only_the_table(self, admin_client):
        make_document("Uno.", filename="uno.txt")
        html = admin_client.get(
            "/knowledge/", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="document-table"
        ).content.decode()
        assert "uno.txt" in html and "<html" not in html

    def test_forget_one_and_forget_selected(self, admin_client):
        first, second, third = (make_document(f"Texto {n}.", filename=f"{n}.txt") for n in range(3))

        response = admin_client.post(f"/knowledge/{first.pk}/forget", HTTP_HX_REQUEST="true")
        events = json.loads(response["HX-Trigger"])
        assert response.status_code == 204 and events["documentsChanged"] is True
        # Said on the page, and the keyboard's focus goes back to the table (its row is gone).
        assert events["showMessage"] == {
            "text": "Forgot 0.txt: its chunks are no longer searchable.",
            "level": "success",
            "focus": "#table-title",
        }
        admin_client.post("/knowledge/forget", {"documents": [str(second.pk), str(third.pk)]})
        assert not Document.objects.exists() and not Chunk.objects.exists()

    def test_failed_and_stuck_rows_offer_retry_and_bulk_forget_waits_for_a_selection(
        self, admin_client, settings
    ):
        from django.utils import timezone

        failed = make_document(b"%PDF-1.4 broken", filename="roto.pdf")
        ready = make_document("Listo.", filename="listo.txt")
        stuck = make_document("Atascado.", filename="atascado.txt")
        Document.objects.filter(pk=stuck.pk).update(
            status=DocumentStatus.PROCESSING,
            updated_at=timezone.now() - settings.KNOWLEDGE_STUCK_AFTER * 2,
        )
        html = admin_client.get("/knowledge/").content.decode()

        assert f'hx-post="/knowledge/{failed.pk}/retry"' in html
        assert f'hx-post="/knowledge/{stuck.pk}/retry"' in html
        assert f'hx-post="/knowledge/{ready.pk}/retry"' not in html
        assert 'class="select-all"' in html
        assert '<button type="submit" class="danger forget-selected" disabled>' in html
        assert "3 entries" in html

    def test_retry_from_the_table_reloads_it_or_says_why_not(
        self, admin_client, django_capture_on_commit_callbacks
    ):
        import json

        failed = make_document(b"%PDF-1.4 broken", filename="roto.pdf")
        with django_capture_on_commit_callbacks():
            response = admin_client.post(f"/knowledge/{failed.pk}/retry", HTTP_HX_REQUEST="true")
        events = json.loads(response["HX-Trigger"])
        assert response.status_code == 204 and events["documentsChanged"] is True
        assert "roto.pdf is queued" in events["showMessage"]["text"]

        response = admin_client.post(f"/knowledge/{failed.pk}/retry", HTTP_HX_REQUEST="true")
        events = json.loads(response["HX-Trigger"])
        assert "documentsChanged" not in events
        assert events["showMessage"] == {"text": "roto.pdf is already queued.", "level": "error"}

    def test_a_pdf_password_the_column_cannot_keep_is_refused_with_a_sentence(self, admin_client):
        # Each was a 500 (found fuzzing the console): the upload form took any length, the
        # retry and new-version forms anything at all. (A NUL is refused at the door.)
        password = "p" * 256
        refused = upload(admin_client, "acta.pdf", b"%PDF-1.4 broken", pdf_password=password)
        assert refused.status_code == 400 and not Document.objects.exists()
        failed = make_document(b"%PDF-1.4 broken", filename="roto.pdf")

        retried = admin_client.post(
            f"/knowledge/{failed.pk}/retry", {"pdf_password": password}, HTTP_HX_REQUEST="true"
        )
        renewed = admin_client.post(
            f"/knowledge/{failed.pk}/version",
            {"file": SimpleUploadedFile("roto2.pdf", b"%PDF-1.4 new"), "pdf_password": password},
            HTTP_ACCEPT="application/json",
        )

        sentence = "A PDF password is at most 255 characters, with no NUL character."
        assert sentence in retried["HX-Trigger"]
        assert renewed.status_code == 400 and renewed.json()["error"] == sentence
        failed.refresh_from_db()
        assert failed.status == DocumentStatus.FAILED and failed.pdf_password == ""

    def test_a_duplicate_upload_names_the_document_it_repeats(self, admin_client):
        make_document("La piscina abre a las nueve.", filename="normas.txt")
        response = upload(admin_client, "copia.txt", b"La piscina abre a las nueve.")

        payload = response.json()
        assert response.status_code == 200 and payload["duplicate"] is True
        assert payload["filename"] == "normas.txt" and payload["scope"] == "Global"
        assert Document.objects.count() == 1

    def test_forms_need_csrf(self, client, django_user_model):
        from django.test import Client

        as_owner(django_user_model.objects.create_user("strict", password="pw", is_staff=True))
        strict = Client(enforce_csrf_checks=True)
        strict.force_login(django_user_model.objects.get(username="strict"))
        assert strict.post("/knowledge/forget", {"documents": []}).status_code == 403


class TestDashboard:
    def test_memory_figures_and_plurals(self, admin_client):
        from memory.models import MemoryType
        from memory.proposals import Proposal
        from memory.services import memory_consent_set, memory_propose

        license = make_license(machine_id="sala-d")
        make_document("Uno.", filename="uno.txt")
        memory_consent_set(license=license, user_ref="ana", given=True, actor="user:ana")
        proposal = Proposal(MemoryType.PREFERENCE, "Prefiere respuestas cortas", 0.9, "explicit")
        memory_propose(license=license, user_ref="ana", proposal=proposal, actor="user:ana")

        html = " ".join(admin_client.get("/").content.decode().split())
        assert '<span class="figure">1</span> document</a>' in html
        assert '<span class="figure">1</span> chunk</div>' in html
        assert '<span class="figure">1</span> active memory</a>' in html
        assert "1 written" in html and "sala-d 1" in html

    def test_one_day_of_searches_draws_dots_with_the_day(self, admin_client):
        from knowledge.models import SearchLog

        SearchLog.objects.create(
            actor="admin",
            scope_label="Global",
            query="q",
            strategy="weighted",
            top_k=5,
            min_score=0.8,
            latency_ms=4.2,
            candidates=10,
            cut_by_threshold=2,
            result_count=1,
        )
        html = admin_client.get("/").content.decode()
        assert html.count("<circle") == 3  # p50, p95 and p99 of the one day
        assert "<polyline" in html and "ms per day" in html


class TestDocumentDetail:
    def test_shows_metadata_pii_and_escaped_chunks(self, admin_client):
        document = make_document(
            f"# Título\n\nEscriba a ana@example.com. {HOSTILE}", filename="d.md"
        )
        html = admin_client.get(f"/knowledge/{document.pk}/").content.decode()

        assert "e-mail addresses: 1" in html and "Título" in html  # the kind as people say it
        assert HOSTILE not in html and "&lt;script&gt;" in html

    def test_says_what_was_left_out_and_how_a_page_was_decoded(self, admin_client):
        """Why slide 2 is not found: a hidden slide is not read, and the page says so."""
        deck = make_document("# Slide 1\n\nCuotas.", filename="cuotas.pptx")
        Document.objects.filter(pk=deck.pk).update(metadata={"hidden_slides": 2})
        page = make_document("<p>Señal</p>".encode("iso-8859-15"), filename="precios.html")
        Document.objects.filter(pk=page.pk).update(
            metadata={"encoding": "iso8859-15", "encoding_declared": True}
        )

        admin_client.cookies["django_language"] = "es"
        html = admin_client.get(f"/knowledge/{deck.pk}/").content.decode()
        assert "2 diapositivas ocultas" in html and "no se leen" in html
        html = admin_client.get(f"/knowledge/{page.pk}/").content.decode()
        assert "iso8859-15 (como declara la página)" in html
        Document.objects.filter(pk=page.pk).update(metadata={"unreadable_pages": [2, 7]})
        html = admin_client.get(f"/knowledge/{page.pk}/").content.decode()
        assert "Las páginas 2, 7 están dañadas" in html and "sus otras páginas" in html
        Document.objects.filter(pk=deck.pk).update(
            metadata={"pictures_read": 3, "pictures_unread": 1}
        )
        html = admin_client.get(f"/knowledge/{deck.pk}/").content.decode()
        assert "texto leído de 3 imágenes junto al texto" in html
        assert "1 imagen no leída por OCR" in html and "todo lo demás se leyó" in html
        Document.objects.filter(pk=page.pk).update(
            metadata={"pictures_read": 2, "scanned_pages": [4, 5]}
        )
        html = admin_client.get(f"/knowledge/{page.pk}/").content.decode()
        assert "Las páginas 4, 5 son escaneos: su texto se leyó por OCR" in html
        Document.objects.filter(pk=deck.pk).update(metadata={"converted_by": "LibreOffice"})
        html = admin_client.get(f"/knowledge/{deck.pk}/").content.decode()
        assert "(convertido por LibreOffice)" in html

    def test_forget_a_chunk(self, admin_client):
        document = make_document("# A\n\nUno.\n\n# B\n\nDos.", filename="d.md")
        chunk = document.chunks.first()

        assert (
            admin_client.post(
                f"/knowledge/chunks/{chunk.pk}/forget", HTTP_HX_REQUEST="true"
            ).status_code
            == 200
        )
        document.refresh_from_db()
        assert document.chunk_count == 1 and not Chunk.objects.filter(pk=chunk.pk).exists()

    def test_retry_a_failed_document(self, admin_client):
        document = make_document(
            (PDFS / "libreoffice-writer-password.pdf").read_bytes(), filename="p.pdf"
        )
        assert document.status == DocumentStatus.FAILED

        response = admin_client.post(
            f"/knowledge/{document.pk}/retry",
            {"pdf_password": "openpassword"},
            HTTP_ACCEPT="application/json",
        )
        assert response.json()["status"] == "queued"


class TestPlayground:
    def test_what_was_cut_is_shown_with_why(self, admin_client):
        make_document("# Piscina\n\nLa piscina abre a las ocho.", filename="p.md")
        make_document("# Gimnasio\n\nEl gimnasio cierra tarde.", filename="g.md")
        html = admin_client.get(
            "/knowledge/search/",
            {"query": "piscina", "scope": "global", "min_score": "0.99", "relative_cut": "0"},
        ).content.decode()
        assert "Retrieved but not kept" in html and "under the threshold" in html
        assert "g.md" in html.split("Retrieved but not kept")[1]

    def test_results_show_scores_latency_and_highlighted_terms(self, admin_client):
        make_document("# Piscina\n\nLa piscina abre a las ocho.", filename="p.md")
        html = admin_client.get(
            "/knowledge/search/", {"query": "piscina", "scope": "global", "min_score": "-1"}
        ).content.decode()

        assert "<mark>piscina</mark>" in html and "fused" in html and " ms" in html
        assert "p.md" in html and "What the scores mean" in html

    def test_only_words_the_keyword_search_weighs_are_marked(self, admin_client):
        make_document("# Piscina\n\nLa piscina abre a las ocho de la mañana.", filename="p.md")
        html = admin_client.get(
            "/knowledge/search/",
            {"query": "¿a qué hora abre la piscina?", "scope": "global", "min_score": "-1"},
        ).content.decode()

        assert "<mark>piscina</mark>" in html and "<mark>abre</mark>" in html
        for stopword in ("la", "las", "de", "a"):  # stopwords in Spanish, Portuguese or English
            assert f"<mark>{stopword}</mark>" not in html.lower()

    def test_the_query_log_names_who_searched_in_the_readers_language(self, admin_client):
        license = make_license(machine_id="sala-07")
        admin_client.get("/knowledge/search/", {"query": "piscina", "scope": "sala-07"})
        html = admin_client.get(
            "/knowledge/search/",
            {"query": "piscina", "scope": "global"},
            HTTP_ACCEPT_LANGUAGE="es",
        ).content.decode()
        assert "Administrador admin" in html and "admin:admin" not in html
        assert license.machine_id in html

    def test_bad_parameters_show_an_error(self, admin_client):
        html = admin_client.get(
            "/knowledge/search/", {"query": "x", "scope": "nope"}
        ).content.decode()
        assert "scope" in html and 'role="alert"' in html


@pytest.mark.usefixtures("fake_embedder")
def test_the_playground_says_what_it_searched_for_and_marks_its_words(admin_client):
    make_document("# Gimnasio\n\nEl gimnasio requiere reserva previa.", filename="gym.md")
    page = admin_client.get(
        "/knowledge/search/", {"query": "reserva del gimnsio", "scope": "global"}
    ).content.decode()
    assert "«reserva del gimnasio»" in page
    assert "<mark>gimnasio</mark>" in page
    page = admin_client.get(
        "/knowledge/search/", {"query": "reserva del gimnasio", "scope": "global"}
    ).content.decode()
    assert "searched-as" not in page
