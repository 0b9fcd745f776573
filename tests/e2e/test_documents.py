"""In Chromium: every document format dropped on the DropZone becomes ready through the real
worker, and the chunking options preview a file's chunks and save a scope's default."""

from __future__ import annotations

import base64
import re

from playwright.sync_api import expect

from knowledge.models import ChunkingDefault, Document
from tests.documents import DOCUMENTS, KINDS, build
from tests.e2e.browser import chromium_page, log_in
from tests.factories import as_owner, make_document

# Files of tests/data/documents: formats no library here writes (LibreOffice wrote them),
# and an e-mail carrying real files.
OLDER = (
    ("xls", "cuotas.xls"), ("rtf", "handbook.rtf"), ("doc", "old.doc"), ("ppt", "normas.ppt"),
    ("eml", "aviso.eml"),
)  # fmt: skip


def drop(page, files: dict[str, bytes]) -> None:  # noqa: ANN001
    payload = [{"name": n, "b64": base64.b64encode(data).decode()} for n, data in files.items()]
    transfer = page.evaluate_handle(
        """(files) => {
            const transfer = new DataTransfer();
            for (const f of files) {
                const bytes = Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0));
                transfer.items.add(new File([bytes], f.name));
            }
            return transfer;
        }""",
        payload,
    )
    page.dispatch_event("#dropzone", "drop", {"dataTransfer": transfer})


def contrast(foreground: str, background: str) -> float:
    """WCAG's contrast ratio of two computed colours ("rgb(…)"); a transparent background
    (what the page shows through is unknown) counts as white."""

    def luminance(colour: str) -> float:
        values = [float(v) for v in re.findall(r"[\d.]+", colour)]
        if len(values) == 4 and values[3] == 0:
            values = [255, 255, 255]
        channels = [v / 255 for v in values[:3]]
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    lighter, darker = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def badge_colours(page, selector: str) -> list[str]:  # noqa: ANN001
    """Its text and background colours, once it stays on the page: each finished upload
    reloads the table, and a badge replaced while it was read has no computed style."""
    for _ in range(50):
        colours = page.locator(selector).evaluate(
            "el => el.isConnected ? [getComputedStyle(el).color,"
            " getComputedStyle(el).backgroundColor] : []"
        )
        if colours and all(colours):
            return colours
        page.wait_for_timeout(100)
    raise AssertionError(f"{selector} never stayed on the page")


def test_every_format_uploads_and_chunking_is_previewed_and_saved(
    live_server, celery_worker, django_user_model
):
    as_owner(django_user_model.objects.create_user("admin", password="s3cret-pass", is_staff=True))
    with chromium_page() as page:
        log_in(page, f"{live_server.url}/knowledge/", "admin", "s3cret-pass")

        page.click("#chunking summary")
        expect(page.locator("#chunking-default")).to_contain_text("split by structure")
        page.fill("#upload-chunk-size", "64")
        page.select_option("#upload-split", "fixed")
        page.set_input_files(
            "#preview-file",
            files=[
                {
                    "name": "deck.pptx",
                    "mimeType": "application/octet-stream",
                    "buffer": build("pptx"),
                }
            ],
        )
        preview = page.locator("#chunk-preview")
        expect(preview).to_contain_text("Slide 1: Política de vacaciones", timeout=30_000)
        expect(preview).to_contain_text("deck.pptx")
        assert not Document.objects.exists()  # a preview stores nothing

        page.click("#chunking-save")
        expect(page.locator("#chunking-default")).to_contain_text("64 tokens")
        assert ChunkingDefault.objects.get(license=None).split == "fixed"
        page.fill("#upload-chunk-size", "")
        page.select_option("#upload-split", "")

        files = {f"manual.{kind}": build(kind) for kind in KINDS}
        files |= {f"manual.{kind}": (DOCUMENTS / name).read_bytes() for kind, name in OLDER}
        drop(page, files)
        ready = page.locator(".upload-item[data-status=ready]")
        expect(ready).to_have_count(len(files), timeout=180_000)
        for name in files:
            expect(page.locator("#document-table")).to_contain_text(name)
        # Each kind's badge is legible: white on its colour, WCAG AA (a Word or Excel badge
        # was once white on nothing).
        for kind in (*KINDS, *(kind for kind, _ in OLDER)):
            colours = badge_colours(page, f"#document-table .kind-{kind}")
            assert contrast(*colours) >= 4.5, (kind, colours)
        # The scope's default (saved above) cut every one of them.
        assert set(Document.objects.values_list("split", "chunk_size")) == {("fixed", 64)}


def test_a_new_version_uploaded_on_the_document_page_replaces_it_in_place(
    live_server, celery_worker, django_user_model
):
    as_owner(django_user_model.objects.create_user("admin", password="s3cret-pass", is_staff=True))
    old = "## Piscina\n\nLa piscina abre a las ocho.\n\n## Gimnasio\n\nEl gimnasio cierra los domingos."
    document = make_document(old, filename="manual.md")
    with chromium_page(locale="es-ES") as page:
        log_in(page, f"{live_server.url}/knowledge/{document.pk}/", "admin", "s3cret-pass")
        page.set_input_files(
            "#new-version",
            files=[
                {
                    "name": "manual-v2.md",
                    "mimeType": "text/markdown",
                    "buffer": old.replace("a las ocho", "a las nueve").encode(),
                }
            ],
        )
        page.get_by_role("button", name="Subir nueva versión").click()
        expect(page.locator(".messages")).to_contain_text("la nueva versión está en cola")

        for _ in range(60):
            page.reload()
            if "a las nueve" in page.locator(".chunks").inner_text():
                break
            page.wait_for_timeout(500)
        expect(page.locator("h1")).to_have_text("manual-v2.md")
        expect(page.locator(".chunks")).to_contain_text("La piscina abre a las nueve.")
        expect(page.locator(".chunks")).to_contain_text("El gimnasio cierra los domingos.")
        expect(page.locator(".chunks li")).to_have_count(2)


def test_a_file_dropped_under_a_name_the_scope_has_asks_whether_it_is_its_new_version(
    live_server, celery_worker, django_user_model
):
    as_owner(django_user_model.objects.create_user("admin", password="s3cret-pass", is_staff=True))
    old = "## Piscina\n\nA piscina abre às oito.\n\n## Academia\n\nA academia fecha aos domingos."
    document = make_document(old, filename="manual.md")
    with chromium_page(locale="pt-BR") as page:
        log_in(page, f"{live_server.url}/knowledge/", "admin", "s3cret-pass")

        drop(page, {"manual.md": old.replace("às oito", "às nove").encode()})
        item = page.locator(".upload-item").first
        expect(item).to_contain_text("Global já tem um documento chamado manual.md (pronto)")
        item.get_by_role("button", name="Substituir pela nova versão").click()
        expect(item).to_contain_text("(nova versão de manual.md)")
        expect(item).to_contain_text("pronto · 2 trechos", timeout=30_000)
        assert Document.objects.count() == 1
        chunks = Document.objects.get(pk=document.pk).chunks.values_list("content", flat=True)
        assert "A piscina abre às nove." in chunks

        # Its own bytes again: no question, named a duplicate.
        drop(page, {"manual.md": old.replace("às oito", "às nove").encode()})
        expect(page.locator(".upload-item").first).to_contain_text("duplicata de manual.md")
        expect(page.locator(".upload-item.asking")).to_have_count(0)

        drop(page, {"manual.md": b"Outro manual."})
        item = page.locator(".upload-item").first
        item.get_by_role("button", name="Não enviar").click()
        expect(item).to_contain_text("não enviado")
        drop(page, {"manual.md": b"Outro manual."})
        page.locator(".upload-item").first.get_by_role("button", name="Manter os dois").click()
        expect(page.locator(".upload-item").first).to_contain_text("pronto", timeout=30_000)
        assert Document.objects.filter(filename="manual.md").count() == 2

        # Many files at once: the choice made once, for each of them, no question asked.
        make_document("Normas antigas.", filename="normas.md")
        page.select_option("#upload-namesakes", label="É a nova versão dele")
        drop(page, {"normas.md": b"Normas novas.", "manual.md": b"Manual novo."})
        expect(page.locator(".upload-item.asking")).to_have_count(0)
        expect(
            page.locator(".upload-item", has_text="nova versão de normas.md").first
        ).to_contain_text("pronto", timeout=30_000)
        expect(
            page.locator(".upload-item", has_text="nova versão de manual.md").first
        ).to_contain_text("pronto", timeout=30_000)
        assert Document.objects.filter(filename__in=["manual.md", "normas.md"]).count() == 3


# A browser on plain http to an address other than this machine (the console reached by
# its address on the office network) has no crypto.subtle: it cannot hash a file to compare
# it. Taken away here, on loopback, where the browser would have it.
NO_SUBTLE_CRYPTO = "Object.defineProperty(window.crypto, 'subtle', {get: () => undefined})"


def test_where_the_browser_cannot_hash_the_server_tells_a_copy_from_a_new_version(
    live_server, celery_worker, django_user_model
):
    as_owner(django_user_model.objects.create_user("admin", password="s3cret-pass", is_staff=True))
    text = "## Horario\n\nLa conserjería abre a las ocho."
    document = make_document(text, filename="horario.md")
    with chromium_page(locale="es-ES") as page:
        page.add_init_script(NO_SUBTLE_CRYPTO)
        log_in(page, f"{live_server.url}/knowledge/", "admin", "s3cret-pass")
        assert page.evaluate("() => window.crypto.subtle") is None

        # The same bytes: no question, a duplicate (it asked "is this its new version?")
        drop(page, {"horario.md": text.encode()})
        expect(page.locator(".upload-item").first).to_contain_text("duplicado de horario.md")
        expect(page.locator(".upload-item.asking")).to_have_count(0)

        # Changed, the same size: asked, and nothing stored until answered
        drop(page, {"horario.md": text.replace("ocho", "diez").encode()})
        item = page.locator(".upload-item").first
        expect(item).to_contain_text("Global ya tiene un documento llamado horario.md")
        assert Document.objects.count() == 1
        item.get_by_role("button", name="Reemplazarlo por esta versión").click()
        expect(item).to_contain_text("(nueva versión de horario.md)")
        expect(item).to_contain_text("listo", timeout=30_000)
        assert Document.objects.count() == 1
        chunks = Document.objects.get(pk=document.pk).chunks.values_list("content", flat=True)
        assert any("a las diez" in chunk for chunk in chunks)


def test_the_table_shows_times_in_the_browser_s_zone(live_server, django_user_model, media_root):
    """A deployment in UTC, an admin in São Paulo: the sign-in page tells the server the
    browser's zone, and the table says when a file arrived by the admin's own clock."""
    from datetime import UTC, datetime

    as_owner(django_user_model.objects.create_user("ana", password="s3cret-pass", is_staff=True))
    document = make_document("# Horario\n\nAbre a las ocho.", filename="horario.md", ingest=False)
    uploaded = datetime(2026, 12, 1, 1, 30, tzinfo=UTC)
    Document.objects.filter(pk=document.pk).update(created_at=uploaded)

    with chromium_page(locale="pt-BR", time_zone="America/Sao_Paulo") as page:
        log_in(page, f"{live_server.url}/knowledge/", "ana", "s3cret-pass")
        shown = page.locator("td time").first
        expect(shown).to_have_text("30/11/2026 22:30")
        assert shown.get_attribute("datetime").startswith("2026-11-30T22:30:00-03:00")
