"""An admin's journey in a real Chromium, against the live server and a real Celery worker.

Screenshots of each screen go to test-results/e2e/ (look at them when changing the pages).
"""

from __future__ import annotations

import base64

import pytest
from playwright.sync_api import expect

from licenses.models import License
from licenses.services import license_forge
from tests.conftest import PDFS, ROOT
from tests.e2e.browser import chromium_page, log_in
from tests.factories import as_owner

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
SHOTS = ROOT / "test-results" / "e2e"
GOOD_PDF = "pdflatex-4-pages.pdf"
PHRASE = "Huardest gefburn"  # a nonsense word in the good PDF: only an exact hit can find it


def drop_files(page, selector: str, names: list[str]) -> None:
    """A real drop event carrying several files, as a drag from the desktop produces."""
    files = [
        {
            "name": name,
            "b64": base64.b64encode((PDFS / name).read_bytes()).decode(),
            "type": "application/pdf",
        }
        for name in names
    ]
    transfer = page.evaluate_handle(
        """(files) => {
            const transfer = new DataTransfer();
            for (const f of files) {
                const bytes = Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0));
                transfer.items.add(new File([bytes], f.name, { type: f.type }));
            }
            return transfer;
        }""",
        files,
    )
    page.dispatch_event(selector, "drop", {"dataTransfer": transfer})


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def make_memory(license: License) -> None:
    from memory.models import MemorySource, MemoryType
    from memory.proposals import Proposal
    from memory.services import memory_consent_set, memory_propose

    memory_consent_set(license=license, user_ref="ana", given=True, actor="user:ana")
    proposal = Proposal(
        MemoryType.PREFERENCE, "Prefiere respuestas cortas", 0.9, MemorySource.USER_EXPLICIT
    )
    memory_propose(license=license, user_ref="ana", proposal=proposal, actor="user:ana")


def search_in_playground(page, base: str, query: str) -> str:
    page.goto(f"{base}/knowledge/search/")
    page.fill("#id_query", query)
    page.select_option("#id_scope", "sala-e2e")
    page.click("form.playground-form button[type=submit]")
    page.wait_for_selector("#results-title")
    return page.inner_text("#results")


def test_admin_uploads_searches_forges_and_forgets(live_server, celery_worker, django_user_model):
    as_owner(django_user_model.objects.create_user("admin", password="s3cret-pass", is_staff=True))
    license_forge(user_name="Marta", machine_id="sala-e2e")
    base = live_server.url

    with chromium_page() as page:
        page.on("dialog", lambda dialog: dialog.accept())  # every forget asks for confirmation
        log_in(page, f"{base}/knowledge/", "admin", "s3cret-pass")
        shot(page, "01-knowledge-empty")

        page.check("input[name=scope][value=license]")
        page.select_option("#upload-license", "sala-e2e")
        drop_files(page, "#dropzone", [GOOD_PDF, "invalid.pdf"])
        ready = page.locator(".upload-item[data-status=ready]")
        failed = page.locator(".upload-item[data-status=failed]")
        ready.wait_for(timeout=120_000)
        failed.wait_for(timeout=120_000)
        assert GOOD_PDF in ready.inner_text() and "chunks" in ready.inner_text()
        assert "invalid.pdf" in failed.inner_text() and "damaged" in failed.inner_text()
        page.wait_for_selector(f"#document-table >> text={GOOD_PDF}")
        assert "→ sala-e2e" in ready.inner_text()  # each file says where it went

        # The same file again, same scope: named as a duplicate, not a second ready document.
        drop_files(page, "#dropzone", [GOOD_PDF])
        duplicate = page.locator(".upload-item[data-duplicate]")
        duplicate.wait_for()
        expect(duplicate).to_contain_text("ready")  # (the page's CSP forbids wait_for_function)
        assert f"duplicate of {GOOD_PDF}" in duplicate.inner_text()

        # The table: Retry where it helps, Forget selected only once something is selected.
        # A finished upload reloads the table (htmx): the expectations wait for it to land.
        expect(page.locator("tr:has-text('invalid.pdf') button:has-text('Retry')")).to_have_count(1)
        expect(page.locator(f"tr:has-text('{GOOD_PDF}') td.status")).to_contain_text("Ready")
        assert page.locator(f"tr:has-text('{GOOD_PDF}') button:has-text('Retry')").count() == 0
        forget_selected = page.locator("button.forget-selected")
        assert forget_selected.is_disabled()
        page.check("#document-table .select-all")
        expect(forget_selected).to_be_enabled()
        expect(forget_selected).to_contain_text("(2)")
        page.uncheck("#document-table .select-all")
        assert forget_selected.is_disabled()
        shot(page, "02-knowledge-uploaded")

        page.click(f"#document-table a:has-text('{GOOD_PDF}')")
        page.wait_for_selector("#chunks-title")
        assert "sala-e2e" in page.inner_text("main")
        shot(page, "03-document-detail")

        results = search_in_playground(page, base, PHRASE)
        assert GOOD_PDF in results and "fused" in results and "exact terms" in results
        assert page.locator("mark").count() > 0
        shot(page, "04-playground")

        page.goto(f"{base}/licenses/")
        page.fill("#id_user_name", "Nuevo Usuario")
        page.click("form.forge-form button[type=submit]")
        key = page.input_value("#forged-key")
        assert key.startswith("pbk_")
        shot(page, "05-license-forged")
        page.goto(f"{base}/licenses/")
        assert key not in page.content()

        # Edit a license's widget origins after forging: a bad one is refused, a good one saved.
        page.click("a:has-text('sala-e2e')")
        page.fill("#edit_allowed_origins", 'http://x"><img src=x>')
        page.click("form.license-form button[type=submit]")
        assert "Not an origin" in page.inner_text("#edit-title ~ form")
        page.fill("#edit_allowed_origins", "https://app.example.com\nhttp://localhost:3000")
        page.click("form.license-form button[type=submit]")
        page.wait_for_selector("text=License sala-e2e saved.")
        assert "https://app.example.com" in page.inner_text("dl.meta")
        assert "http://localhost:3000" in page.inner_text("dl.meta")
        assert page.locator("[data-copy='#snippet-tag']").count() == 1
        shot(page, "05b-license-edited")

        # The admin chat: Shift+Enter adds a line, Enter sends; the answer cites its sources.
        page.goto(f"{base}/chat/")
        page.select_option("#chat-license", "sala-e2e")
        page.click("#chat-message")
        page.keyboard.type("What is Huardest")
        page.keyboard.press("Shift+Enter")
        page.keyboard.type("gefburn?")
        assert page.input_value("#chat-message") == "What is Huardest\ngefburn?"
        page.keyboard.press("Enter")
        page.wait_for_selector(".chat-turn .chat-citations", timeout=60_000)
        assert page.input_value("#chat-message") == ""
        assert GOOD_PDF in page.text_content(".chat-turn .chat-citations")
        assert GOOD_PDF in page.inner_text("#chat-sources")
        shot(page, "05c-admin-chat")

        page.goto(f"{base}/knowledge/")
        page.click(f"tr:has-text('{GOOD_PDF}') >> button:has-text('Forget')")
        page.wait_for_selector(f"#document-table >> text={GOOD_PDF}", state="detached")
        assert GOOD_PDF not in search_in_playground(page, base, PHRASE)

        # A user memory exists: the dashboard counts it.
        make_memory(License.objects.get(machine_id="sala-e2e"))
        page.goto(f"{base}/")
        assert " ".join(page.inner_text("#memory-tile").split()) == "1 active memory"
        shot(page, "06-dashboard")

        # A phone: each knowledge entry is a card whose status, scope and Forget are visible.
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(f"{base}/knowledge/")
        row = page.locator("tr:has-text('invalid.pdf')")
        for part in ("td.status", "td[data-label=Scope]", "button:has-text('Forget')"):
            box = row.locator(part).bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, part
        assert "Failed" in row.locator("td.status").inner_text()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        shot(page, "07-knowledge-phone")
