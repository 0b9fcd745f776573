"""An owner shapes a license's assistant in the console and its users meet it in the
widget, in a real Chromium: name, greeting, colour, position, launcher icon, suggested
questions, and the persona and answerer in the answers (an OpenAI-compatible fake model,
so the system instruction it receives can be read)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.browser import chromium_page, log_in
from tests.e2e.test_admin_journey import shot
from tests.e2e.test_widget import RULE, demo_page
from tests.factories import as_owner, make_document
from tests.fakes import FakeOpenAI

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

TEAL = "rgb(15, 118, 110)"  # #0f766e


@pytest.fixture
def model(settings):
    with FakeOpenAI(pieces=["Se reserva con siete días ", "de antelación [1]."]) as fake:
        settings.OPENAI_BASE_URL, settings.OPENAI_MODEL = fake.url, "modelo-local"
        yield fake


def test_a_licenses_assistant_set_in_the_console_greets_answers_and_looks_as_set(
    live_server, settings, django_user_model, model
):
    forged, widget_url = demo_page(live_server, settings)
    make_document(RULE, filename="reglamento-salon.md", license=forged.license)
    as_owner(django_user_model.objects.create_user("owner", password="pw-owner-1", is_staff=True))

    with chromium_page("es-ES") as page:
        log_in(page, f"{live_server.url}/licenses/{forged.license.pk}/", "owner", "pw-owner-1")
        page.click("text=Ajustar el asistente de esta licencia")
        expect(page.locator(".wp-title")).to_have_text("Savara")  # as shipped, before anything
        page.fill("#id_name", "Lumen")
        page.fill("#id_instructions", "Habla de tú, con calidez, y ve al grano.")
        page.fill("#id_greeting_es", "¡Bienvenida, {user_name}! Soy Lumen, del condominio.")
        page.fill("#id_suggestions", "¿Con cuánta antelación se reserva el salón?\n¿Cuánto cuesta?")
        page.fill("#id_widget_color", "#0f766e")
        page.select_option("#id_widget_position", "left")
        page.select_option("#id_launcher_icon", "help")
        page.select_option("#id_answerer", "openai")
        # The preview follows the form as it is typed.
        expect(page.locator(".wp-title")).to_have_text("Lumen")
        expect(page.locator(".wp-greeting")).to_have_text(
            "¡Bienvenida, Lucía! Soy Lumen, del condominio."
        )
        expect(page.locator(".wp-chip")).to_have_count(2)
        assert page.eval_on_selector(".wp-fab", "e => getComputedStyle(e).backgroundColor") == TEAL
        shot(page, "20-assistant-settings")
        page.click("#assistant-form button[type=submit]")
        expect(page.locator("#messages")).to_contain_text("Guardado")

        page.goto(widget_url)
        fab = page.locator(".fab")
        expect(fab).to_be_visible()
        assert page.eval_on_selector(".fab", "e => getComputedStyle(e).backgroundColor") == TEAL
        assert fab.bounding_box()["x"] < 100  # bottom left
        assert page.locator(".fab svg circle").count() == 1  # the question-mark icon
        fab.click()
        expect(page.locator(".title")).to_have_text("Lumen")
        expect(page.locator(".msg.bot").first).to_have_text(
            "¡Bienvenida, Lucía! Soy Lumen, del condominio."
        )
        page.click(".chips button >> nth=0")  # a suggested question is asked as is
        expect(page.locator(".msg.user")).to_have_text(
            "¿Con cuánta antelación se reserva el salón?"
        )
        page.wait_for_selector(".msg.bot .sources", timeout=60_000)
        assert "siete días de antelación" in page.inner_text(".msg.bot >> nth=1")
        assert page.locator(".chips").count() == 0
        shot(page, "21-widget-shaped")

    system = model.requests[0]["body"]["messages"][0]["content"]
    assert system.startswith("You are Lumen, the assistant of this organisation.")
    assert "Habla de tú, con calidez, y ve al grano." in system
    assert system.index("Habla de tú") < system.index("Use only the facts inside the DOCUMENTS")
