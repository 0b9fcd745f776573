"""An admin's journey in a real Chromium, against the live server and a real Celery worker.

Screenshots of each screen go to test-results/e2e/ (look at them when changing the pages).
"""

from __future__ import annotations

import base64
import re

import pytest

from licenses.services import license_forge
from tests.conftest import PDFS, ROOT
from tests.e2e.browser import chromium_page

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


def search_in_playground(page, base: str, query: str) -> str:
    page.goto(f"{base}/knowledge/search/")
    page.fill("#id_query", query)
    page.select_option("#id_scope", "sala-e2e")
    page.click("form.playground-form button[type=submit]")
    page.wait_for_selector("#results-title")
    return page.inner_text("#results")


def test_admin_uploads_searches_forges_and_forgets(live_server, celery_worker, django_user_model):
    django_user_model.objects.create_user("admin", password="s3cret-pass", is_staff=True)
    license_forge(user_name="Marta", machine_id="sala-e2e")
    base = live_server.url

    with chromium_page() as page:
        page.on("dialog", lambda dialog: dialog.accept())  # every forget asks for confirmation
        page.goto(f"{base}/knowledge/")
        page.fill("#id_username", "admin")
        page.fill("#id_password", "s3cret-pass")
        page.click("button[type=submit]")
        page.wait_for_url(re.compile(r".*/knowledge/$"))
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

        page.goto(f"{base}/knowledge/")
        page.click(f"tr:has-text('{GOOD_PDF}') >> button:has-text('Forget')")
        page.wait_for_selector(f"#document-table >> text={GOOD_PDF}", state="detached")
        assert GOOD_PDF not in search_in_playground(page, base, PHRASE)

        page.goto(f"{base}/")
        shot(page, "06-dashboard")
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(f"{base}/knowledge/")
        shot(page, "07-knowledge-phone")
