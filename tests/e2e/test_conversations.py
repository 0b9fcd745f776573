"""What users asked, in a real Chromium: the widget's 👍/👎 and "new conversation", answers
rendered as Markdown without running HTML planted in a document, and the insights charts,
the review queue and the gaps in es, pt-BR and en (no English left, nothing wider than a
390 px phone). Screenshots go to test-results/e2e/."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from conversations.models import Exchange, Gap
from conversations.services import Said, exchange_record
from licenses.models import DEMO_MACHINE_ID, License
from tests.e2e.browser import chromium_page, log_in
from tests.e2e.test_admin_journey import shot
from tests.e2e.test_widget import ask, demo_page
from tests.factories import as_owner, make_document
from tests.portality.i18n_support import english_left, english_phrases

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PLANTED = (
    "# Salón de fiestas\n\nEl salón de fiestas se reserva con **siete días** de antelación "
    '<img src=x onerror="window.__pwned=1"> en la conserjería <script>window.__pwned=2</script>.'
)


def test_widget_feedback_markdown_and_a_new_conversation(live_server, settings, celery_worker):
    forged, url = demo_page(live_server, settings)
    make_document(PLANTED, filename="salon.md", license=forged.license)
    with chromium_page("es-ES") as page:
        page.on("dialog", lambda dialog: dialog.accept())
        page.goto(url)
        page.click(".fab")
        ask(page, "¿Con cuánta antelación se reserva el salón de fiestas?")
        answer = page.locator(".msg.bot").nth(1)
        expect(answer.locator(".fb button").first).to_be_visible(timeout=60_000)
        # Markdown rendered, the planted HTML shown as text and never run
        expect(answer.locator(".md strong")).to_have_text("siete días")
        assert "<img" in answer.locator(".md").inner_text()
        assert answer.locator(".md img, .md script").count() == 0
        assert page.evaluate("() => window.__pwned") is None
        shot(page, "conversations-widget-answer")

        # drawn, not emoji (a machine without an emoji font showed empty boxes)
        helpful = answer.get_by_role("button", name="Útil", exact=True)
        expect(helpful.locator("svg")).to_be_visible()
        assert helpful.inner_text() == "" and helpful.get_attribute("title") == "Útil"
        helpful.click()
        expect(answer.locator(".fb")).to_have_text("¡Gracias por tu opinión!")
        exchange = Exchange.objects.get()
        assert exchange.rating == "up"

        ask(page, "¿Dónde se reserva el salón de fiestas?")
        second = page.locator(".msg.bot").nth(2)
        second.get_by_role("button", name="No útil").click(timeout=60_000)
        second.get_by_role("button", name="Desactualizada").click()
        second.locator(".fb input").fill("Ahora se reserva por la web.")
        shot(page, "conversations-widget-thumbs-down")
        second.get_by_role("button", name="Enviar").click()
        expect(second.locator(".fb")).to_have_text("¡Gracias por tu opinión!")
        rated = Exchange.objects.get(rating="down")
        assert (rated.reason, rated.comment) == ("outdated", "Ahora se reserva por la web.")

        page.get_by_role("button", name="Nueva conversación").click()
        expect(page.locator(".msg")).to_have_count(1)  # the greeting only
        ask(page, "¿Con cuánta antelación se reserva el salón de fiestas?")
        expect(page.locator(".msg.bot").nth(1).locator(".fb button").first).to_be_visible(
            timeout=60_000
        )
        sessions = set(Exchange.objects.values_list("conversation__session_id", flat=True))
        assert len(sessions) == 2


def _some_conversations(license: License) -> None:
    long_file = "Reglamento_interno_del_condominio_de_las_palmeras_version_2026.pdf"
    for question, rating, no_information in (
        ("¿A qué hora abre la piscina comunitaria del edificio norte?", "up", False),
        ("Qual é a senha do wi-fi da sala de reuniões do edifício?", "down", True),
        ("What is the wifi password in the meeting room?", "", True),
    ):
        exchange = exchange_record(
            Said(
                license=license, user_ref="visitante-con-un-nombre-larguisimo@example.com",
                session_id="s1", by_staff=False, question=question,
                answer="La piscina abre a las ocho. [1]" if not no_information else "…",
                language="es", answerer="extractive",
                citations=[] if no_information else [
                    {"number": 1, "document": long_file, "document_id": "x", "page": 3,
                     "chunk_id": 1, "score": 0.9, "section": "Piscina", "quote": "abre a las ocho",
                     "curated": False}
                ],
                no_information=no_information, best_score=0.9, min_score=0.82, latency_ms=40,
                vector=[1.0, 0.0, 0.0] if no_information else None, model="e2e@3",
            )
        )  # fmt: skip
        if rating:
            Exchange.objects.filter(pk=exchange.pk).update(rating=rating)


@pytest.mark.parametrize("locale", ["es-ES", "pt-BR", "en-US"])
def test_insights_queue_and_gaps_in_each_language(live_server, django_user_model, locale):
    as_owner(django_user_model.objects.create_user("admin", password="s3cret-pass", is_staff=True))
    license = License.objects.create(
        machine_id=DEMO_MACHINE_ID, user_name="Demo", key_prefix="pbk_e2e", key_hash="x"
    )
    _some_conversations(license)
    gap = Gap.objects.get()
    conversation = Exchange.objects.first().conversation
    phrases = english_phrases()
    pages = [
        "/conversations/insights/",
        "/conversations/",
        f"/conversations/{conversation.pk}/",
        "/conversations/gaps/",
    ]
    with chromium_page(locale=locale) as page:
        log_in(page, f"{live_server.url}/conversations/insights/", "admin", "s3cret-pass")
        expect(page.locator("svg.bars")).to_have_count(2)
        expect(page.locator("#satisfaction .figure")).to_have_text("50 %")
        assert gap.count == 2
        shot(page, f"conversations-insights-{locale}")
        page.set_viewport_size({"width": 390, "height": 844})
        for url in pages:
            page.goto(f"{live_server.url}{url}")
            if again := page.locator("a[hx-get$='/search']").first.count():
                # what a search for the question finds now, loaded under it by htmx
                page.locator("a[hx-get$='/search']").first.click()
                expect(page.locator("[id^=found-] .card")).to_contain_text(DEMO_MACHINE_ID)
            if locale != "en-US":
                assert english_left(page.content(), phrases) == set(), url
            wide = page.evaluate(
                "() => [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 391).slice(0, 5).map(e => e.tagName + '.' + e.className + '#' + e.id)"
            )
            assert page.evaluate("document.documentElement.scrollWidth") <= 390, (url, wide)
        assert again, "the gaps page offers to search a question again"
        shot(page, f"conversations-gaps-phone-{locale}")
        _dismiss_and_reopen(page, phrases, locale)
        gap.refresh_from_db()
        assert (gap.status, gap.dismissed_by) == ("open", "")


def _dismiss_and_reopen(page, phrases, locale: str) -> None:
    """The gap set aside (a test question, off topic): out of the open ones, under
    Dismissed with who did it, then open again — each page in the reader's language."""
    page.locator("form.dismiss-gap button").click()
    expect(page.locator("section.gap")).to_have_count(0)
    expect(page.locator("#messages .message-success")).to_be_visible()
    checked = [page.content()]
    shot(page, f"conversations-gaps-dismissed-message-{locale}")
    page.locator("nav.tabs a[href='?status=dismissed']").click()
    expect(page.locator("section.gap")).to_have_count(1)
    expect(page.locator("section.gap")).to_contain_text("admin")
    checked.append(page.content())
    shot(page, f"conversations-gaps-dismissed-{locale}")
    page.locator("section.gap form[action$='/reopen'] button").click()
    expect(page.locator("section.gap")).to_have_count(1)
    checked.append(page.content())
    if locale != "en-US":
        assert [english_left(html, phrases) for html in checked] == [set()] * 3
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
