"""The chat widget embedded in a page of another origin, in a real Chromium.

The host page is the product's widget demo page (what `make run` links to), served at another
origin than the API: it plays a customer's backend, minting a widget token server-side for
the visitor's own end user.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from licenses.models import DEMO_MACHINE_ID
from licenses.services import license_forge, license_revoke
from tests.e2e.browser import chromium_page, log_in
from tests.e2e.test_admin_journey import shot
from tests.factories import as_owner, make_document

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

RULE = (
    "# Salón de fiestas\n\nEl salón de fiestas del condominio se reserva con siete días de "
    "antelación en la conserjería. La reserva cuesta veinte euros."
)


def demo_page(live_server, settings):
    """The demo page at http://127.0.0.1:PORT while the API is live_server's
    http://localhost:PORT: two origins, as make run's localhost and 127.0.0.1 are."""
    origin = live_server.url.replace("localhost", "127.0.0.1")
    settings.WIDGET_DEMO_ORIGIN = origin
    settings.WIDGET_DEMO_API_ORIGIN = live_server.url
    forged = license_forge(user_name="Lucía", machine_id=DEMO_MACHINE_ID, allowed_origins=[origin])
    return forged, f"{origin}/chat/widget-demo/"


@pytest.fixture
def host_page(live_server, settings):
    forged, url = demo_page(live_server, settings)
    make_document(RULE, filename="reglamento-salon.md", license=forged.license)
    return forged, url


def ask(page, question: str):
    page.fill("#pb-input", question)
    page.press("#pb-input", "Enter")


def test_widget_on_another_origin_streams_an_answer_with_its_source(host_page, celery_worker):
    forged, url = host_page
    with chromium_page("es-ES") as page:
        page.goto(url)
        page.click(".fab")  # Playwright's CSS pierces the widget's open shadow root
        assert page.get_attribute(".fab", "aria-expanded") == "true"
        greeting = page.locator(".msg.bot").first
        # the license's user, by the assistant shipped (Savara)
        expect(greeting).to_have_text("Hola, Lucía. Soy Savara. ¿En qué puedo ayudarte?")
        ask(page, "¿Con cuánta antelación se reserva el salón de fiestas?")
        page.wait_for_selector(".msg.bot .sources", timeout=60_000)
        answer = page.inner_text(".msg.bot >> nth=1")
        assert "siete días de antelación" in answer
        assert "reglamento-salon.md" in page.inner_text(".sources")
        assert page.evaluate(
            "() => localStorage.getItem('portality-chat-session:' + document.querySelector('script[data-token]').dataset.api)"
        )
        page.click(".sources summary")  # a source opens to the passage it quotes
        assert "siete días" in page.inner_text(".sources details p")
        assert "siete días" in page.inner_text(".sources details mark")  # the sentence used
        shot(page, "08-widget-answer")

        # A reload keeps the conversation: the page keeps the session id, the server the turns.
        page.reload()
        page.click(".fab")
        page.wait_for_selector(".msg.user:has-text('salón de fiestas')", timeout=30_000)
        assert "siete días de antelación" in page.inner_text(".msg.bot >> nth=-1")
        assert "reglamento-salon.md" in page.inner_text(".sources")
        assert "Hola, Lucía" not in page.inner_text(".log")  # no greeting over a conversation
        shot(page, "08b-widget-after-reload")

        license_revoke(license=forged.license)
        ask(page, "¿Cuánto cuesta la reserva?")
        page.wait_for_selector(".msg.error", timeout=30_000)
        # No CORS for a revoked license: the browser hides the 401, the widget says so plainly.
        assert "no está disponible" in page.inner_text(".msg.error")
        shot(page, "09-widget-revoked")


def test_admin_chat_view_streams_and_explains(live_server, django_user_model, celery_worker):
    as_owner(django_user_model.objects.create_user("admin", password="s3cret-pass", is_staff=True))
    forged = license_forge(user_name="Lucía", machine_id="alamos")
    make_document(RULE, filename="reglamento-salon.md", license=forged.license)
    with chromium_page() as page:
        page.goto(f"{live_server.url}/chat/")
        page.fill("#id_username", "admin")
        page.fill("#id_password", "s3cret-pass")
        page.click("button[type=submit]")
        page.select_option("#chat-license", "alamos")
        page.fill("#chat-message", "¿Con cuánta antelación se reserva el salón de fiestas?")
        page.click("#admin-chat button[type=submit]")
        page.wait_for_selector(".chat-turn .chat-citations", timeout=60_000)
        assert "reglamento-salon.md" in page.text_content(".chat-turn .chat-citations")
        assert "siete días" in page.inner_text("#chat-log")
        # A source opens its document at the passage, with the sentence the answer used marked.
        page.click(".chat-citations summary")
        with page.expect_popup() as opened:
            page.click(".chat-citations a")
        passage = opened.value
        passage.wait_for_selector("mark.quote")
        assert "siete días" in passage.inner_text("mark.quote")
        assert "reglamento-salon.md" in page.inner_text("#chat-sources")
        assert "Lucía" in page.inner_text("#chat-prompt")
        shot(page, "10-admin-chat")


def test_the_admin_chat_s_fields_show_their_choices_whole(live_server, django_user_model):
    """In Spanish the "Speak as" list read "Solo conocimiento glol": three equal columns."""
    as_owner(django_user_model.objects.create_user("admin", password="s3cret-pass", is_staff=True))
    license_forge(user_name="Lucía Fernández", machine_id="condominio-los-alamos")
    with chromium_page("es-ES") as page:
        log_in(page, f"{live_server.url}/chat/", "admin", "s3cret-pass")
        widest, room = page.eval_on_selector(
            "#chat-license",
            """select => {
                const style = getComputedStyle(select);
                const pen = document.createElement("canvas").getContext("2d");
                pen.font = style.font;
                const widths = [...select.options].map((o) => pen.measureText(o.text).width);
                const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
                return [Math.max(...widths), select.clientWidth - padding - 20];  // its arrow
            }""",
        )
        assert widest <= room, (widest, room)


def test_the_widget_asks_again_when_the_database_was_restarting(
    host_page, celery_worker, monkeypatch
):
    """A question caught by a database restart gets a 503 with Retry-After; the widget waits
    and sends it once more, so the visitor sees an answer, not an error."""
    from django.db import connection

    from chat import apis

    prepared = apis.chat_prepare
    calls = []

    def prepare_as_the_database_restarts(**arguments):
        calls.append(arguments["question"])
        if len(calls) == 1:  # the server goes away under the first one, as a restart does
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")
        return prepared(**arguments)

    monkeypatch.setattr(apis, "chat_prepare", prepare_as_the_database_restarts)
    forged, url = host_page
    with chromium_page("es-ES") as page:
        page.goto(url)
        page.click(".fab")
        ask(page, "¿Cuánto cuesta la reserva del salón de fiestas?")
        page.wait_for_selector(".msg.bot .sources", timeout=60_000)
        assert "veinte euros" in page.inner_text(".msg.bot >> nth=1")
        assert page.locator(".msg.error").count() == 0
    assert len(calls) == 2
