"""The console in a Chromium whose language is Brazilian Portuguese: the admin's whole round
(upload, table, detail, playground, licenses, memories, chat, dashboard) shows no English.
Screenshots go to test-results/e2e/pt-BR-*.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from licenses.models import License
from licenses.services import license_forge
from tests.e2e.browser import chromium_page, log_in
from tests.e2e.test_admin_journey import GOOD_PDF, PHRASE, drop_files, make_memory, shot
from tests.factories import as_owner
from tests.portality.i18n_support import english_left, english_phrases

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def no_english(page, phrases: set[str]) -> None:
    assert english_left(page.content(), phrases) == set(), page.url


def test_the_console_in_brazilian_portuguese(live_server, celery_worker, django_user_model):
    as_owner(django_user_model.objects.create_user("admin", password="s3cret-pass", is_staff=True))
    license = license_forge(
        user_name="Marta", machine_id="sala-pt", allowed_origins=["https://app.example.com"]
    ).license
    make_memory(license)
    phrases = english_phrases()
    base = live_server.url

    with chromium_page(locale="pt-BR") as page:
        page.on("dialog", lambda dialog: dialog.accept())
        page.goto(f"{base}/knowledge/")
        expect(page.locator("button[type=submit]")).to_have_text("Entrar")  # the login page
        log_in(page, f"{base}/knowledge/", "admin", "s3cret-pass")
        assert page.locator("html").get_attribute("lang") == "pt-br"
        no_english(page, phrases)

        page.check("input[name=scope][value=license]")
        page.select_option("#upload-license", "sala-pt")
        drop_files(page, "#dropzone", [GOOD_PDF, "invalid.pdf"])
        ready = page.locator(".upload-item[data-status=ready]")
        failed = page.locator(".upload-item[data-status=failed]")
        ready.wait_for(timeout=120_000)
        failed.wait_for(timeout=120_000)
        assert re.search(r"pronto · \d+ trechos", ready.inner_text())
        assert "falhou: Este PDF está danificado" in failed.inner_text()
        row = page.locator(f"tr:has-text('{GOOD_PDF}')")
        # A finished upload reloads the table (htmx) after the upload list says so: wait for
        # that reload (networkidle only waits for navigations, already over).
        expect(row.locator("td.status")).to_contain_text("Pronto")
        assert re.search(r"\d{2}/\d{2}/\d{4}", row.locator("time").inner_text())  # dd/mm/aaaa
        assert re.search(r"\d+,\d\s[KM]B", row.inner_text())  # a decimal comma
        page.check("#document-table .select-all")
        expect(page.locator("button.forget-selected")).to_have_text("Esquecer selecionados (2)")
        page.uncheck("#document-table .select-all")
        no_english(page, phrases)
        shot(page, "pt-BR-01-knowledge")

        page.click("#document-table a:has-text('invalid.pdf')")
        page.wait_for_selector("#chunks-title")
        assert "Este PDF está danificado" in page.inner_text("dl.meta")
        no_english(page, phrases)
        shot(page, "pt-BR-02-document-failed")

        page.goto(f"{base}/knowledge/search/")
        page.fill("#id_query", PHRASE)
        page.select_option("#id_scope", "sala-pt")
        page.click("form.playground-form button[type=submit]")
        page.wait_for_selector("#results-title")
        assert "termos exatos" in page.inner_text("#results")
        no_english(page, phrases)
        shot(page, "pt-BR-03-playground")

        for path, name in (
            ("/licenses/", "licenses"),
            ("/memories/", "memories"),
            ("/", "dashboard"),
        ):
            page.goto(f"{base}{path}")
            no_english(page, phrases)
            shot(page, f"pt-BR-04-{name}")
        page.goto(f"{base}/licenses/{license.pk}/")
        assert "data-lang" not in page.inner_text("#snippet-tag")  # the page's language
        no_english(page, phrases)
        shot(page, "pt-BR-05-license")

        page.goto(f"{base}/chat/")
        page.select_option("#chat-license", "sala-pt")
        page.fill("#chat-message", f"O que é {PHRASE}?")
        page.keyboard.press("Enter")
        page.wait_for_selector(".chat-turn .chat-citations", timeout=60_000)
        assert re.search(r"\d+ fontes?", page.inner_text(".chat-citations summary"))
        assert "Por que esta resposta" in page.text_content(".chat-turn")
        no_english(page, phrases)
        shot(page, "pt-BR-06-chat")

        # The switcher: Spanish from here on, remembered across pages.
        with page.expect_navigation():
            page.select_option("#language-switcher", "es")
        expect(page.locator("h1")).to_have_text("Chat")
        page.goto(f"{base}/knowledge/")
        expect(page.locator("h1")).to_have_text("Conocimiento")
    assert License.objects.filter(machine_id="sala-pt").exists()
