"""Every console page, the sign-in page and the widget, furnished with data, checked by Deque's
axe-core (tests/a11y, from npm) in a real Chromium, in Spanish, in a light and a dark system
theme: no violation of WCAG 2.1 A/AA
that axe rates serious or critical (labels, contrast, names of controls, nested controls).
Moderate and minor ones are printed, not failed: axe marks some of them as best practice."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.utils.timezone import now
from playwright.sync_api import expect

from accounts.members import invitation_create
from accounts.services import token_create
from conversations.models import Exchange
from licenses.services import license_forge
from tests.e2e.browser import chromium_page, log_in
from tests.e2e.test_admin_journey import make_memory
from tests.e2e.test_conversations import _some_conversations
from tests.e2e.test_phone import WIDE, console_urls, long_source
from tests.e2e.test_widget import demo_page
from tests.factories import as_owner, make_document

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).resolve().parents[1] / "a11y" / "node_modules" / "axe-core" / "axe.min.js"
# Run in the page through the driver (not a <script>: the console's CSP allows none inline).
RUN_AXE = """async () => {
  const result = await axe.run(document, {
    runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']},
    resultTypes: ['violations'],
  });
  return result.violations.map(v => ({
    id: v.id, impact: v.impact,
    nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ': ' + (n.failureSummary || '').slice(0, 200)),
  }));
}"""
FAILING = {"serious", "critical"}


@pytest.mark.parametrize("scheme", ["light", "dark"])  # the console follows the system theme
def test_no_page_has_a_serious_accessibility_violation(
    live_server, settings, django_user_model, scheme
):
    if not AXE.exists():
        pytest.fail("axe-core is missing: make axe (make test installs it).")
    owner = django_user_model.objects.create_user("admin", password="s3cret-pass", is_staff=True)
    as_owner(owner)
    forged, widget_url = demo_page(live_server, settings)
    license = license_forge(
        user_name="Marta Fernández", machine_id="sala-norte-07", allowed_origins=[WIDE]
    ).license
    make_memory(license)
    ready = make_document(
        "# Horario\n\nLa piscina comunitaria abre a las ocho de la mañana.",
        filename="horario-piscina.md",
        license=license,
    )
    failed = make_document("  \n\t  ", filename="vacio.txt")
    source = long_source(ready)
    _some_conversations(forged.license)
    invitation_create(email="privacidad@example.com", role="privacy_officer", base_url="http://x")
    token_create(user=owner, name="ci", expires_at=now() + timedelta(days=30))
    conversation = Exchange.objects.first().conversation
    urls = [
        *console_urls(license, ready, failed, source),
        "/conversations/",
        f"/conversations/{conversation.pk}/",
        "/conversations/gaps/",
        "/conversations/insights/",
        "/account/members/",
        "/account/audit/",
        "/account/tokens/",
        "/accounts/two-factor/",
        "/accounts/password_change/",
    ]
    urls.remove("/api/docs/")  # Swagger UI's own page, not the product's markup

    found: dict[str, list[dict]] = {}
    axe = AXE.read_text()
    with chromium_page(locale="es-ES", color_scheme=scheme) as page:

        def check(name: str) -> None:
            page.evaluate(axe)
            found[name] = page.evaluate(RUN_AXE)

        page.goto(f"{live_server.url}/accounts/login/")
        check("/accounts/login/")
        log_in(page, f"{live_server.url}/", "admin", "s3cret-pass")
        for url in urls:
            page.goto(f"{live_server.url}{url}")
            page.wait_for_load_state("networkidle")
            check(url)
        page.goto(f"{live_server.url}/conversations/{conversation.pk}/")
        again = page.locator("a[hx-get$='/search']")
        for n in range(again.count()):  # every answer's search again, open at once
            again.nth(n).click()
            expect(page.locator("[id^=found-] .card")).to_have_count(n + 1)
        assert again.count() >= 2
        check("a transcript with its searches again")
        # none at all: each result list is a landmark of its own name (ids unique per answer)
        assert found["a transcript with its searches again"] == []
        page.goto(f"{live_server.url}/knowledge/")
        page.click("#chunking summary")  # the chunking options, closed until asked for
        check("/knowledge/ with chunking open")
        page.goto(f"{live_server.url}/chat/")  # with an answer, its sources and its prompt
        page.fill("#chat-message", "¿A qué hora abre la piscina?")
        page.press("#chat-message", "Enter")
        expect(page.locator("#chat-prompt")).not_to_have_text("—", timeout=60_000)
        check("/chat/ answered")
        page.goto(widget_url)
        page.click(".fab")
        page.wait_for_selector(".msg")
        check("widget")
        page.click(".memtoggle")
        check("widget: my memories")

    for name, violations in found.items():
        for violation in violations:
            print(name, violation["impact"], violation["id"], violation["nodes"])
    serious = {
        name: [(v["id"], v["nodes"]) for v in violations if v["impact"] in FAILING]
        for name, violations in found.items()
    }
    assert {name: v for name, v in serious.items() if v} == {}
