"""Every console page on a 1280 px screen, in a real Chromium, in each language: a select
shows each of its choices whole once chosen. A grid of equal columns cut the assistant's
default answerer to "El predeterminado del ser…" and the upload's "Preguntar cada ve…"."""

from __future__ import annotations

import pytest

from tests.e2e.browser import chromium_page, log_in
from tests.e2e.test_admin_journey import shot
from tests.e2e.test_phone import CUT_CHOICES, furnish_console

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("locale", ["es-ES", "pt-BR", "en-US"])
def test_every_choice_reads_whole_on_a_desktop(live_server, django_user_model, locale):
    urls = furnish_console(django_user_model)
    with chromium_page(locale=locale) as page:
        log_in(page, f"{live_server.url}/", "admin", "s3cret-pass")
        cut = {}
        for url in urls:
            page.goto(f"{live_server.url}{url}")
            page.wait_for_load_state("networkidle")
            if choices := page.evaluate(CUT_CHOICES):
                cut[url] = choices
                shot(page, f"desktop-{locale}-{url.strip('/').replace('/', '-')[:40] or 'home'}")
        assert cut == {}
