"""A widget user's memory, end to end in Chromium: consent, "recuerda que…", review, forget,
and the admin chat view's prompt with and without it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from memory.models import Memory
from tests.e2e.browser import chromium_page
from tests.e2e.test_admin_journey import shot
from tests.e2e.test_widget import demo_page
from tests.factories import as_owner

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
MEMORY = "Prefiero respuestas cortas y directas"


def admin_prompt(page, base: str, user: str) -> str:
    page.goto(f"{base}/chat/")
    page.select_option("#chat-license", "demo")
    page.fill("#chat-user", user)
    page.fill("#chat-message", "¿Qué horario tiene la piscina?")
    page.click("#admin-chat button[type=submit]")
    # Not wait_for_function: the page's CSP forbids the eval Playwright would use for it.
    expect(page.locator("#chat-prompt")).not_to_have_text("—", timeout=30_000)
    return page.inner_text("#chat-prompt")


def test_widget_user_remembers_reviews_and_forgets(
    live_server, settings, django_user_model, celery_worker
):
    _forged, url = demo_page(live_server, settings)
    as_owner(django_user_model.objects.create_user("admin", password="s3cret-pass", is_staff=True))
    with chromium_page("es-ES") as widget:
        widget.on("dialog", lambda dialog: dialog.accept())
        widget.goto(url)
        visitor = widget.inner_text("#demo-visitor")  # this visitor's own end user
        widget.click(".fab")
        widget.click(".memtoggle")
        widget.check(".mem input[type=checkbox]")
        widget.wait_for_timeout(300)
        widget.click(".memtoggle")
        widget.fill("#pb-input", f"Recuerda que {MEMORY[0].lower() + MEMORY[1:]}.")
        widget.press("#pb-input", "Enter")
        widget.wait_for_selector(f".msg.bot:has-text('{MEMORY}')", timeout=30_000)
        widget.click(".memtoggle")
        widget.wait_for_selector(f".mem li:has-text('{MEMORY}')")
        assert "Recuerda que" in widget.inner_text(".mem li")  # where it came from
        shot(widget, "11-widget-my-memories")

        admin = widget.context.new_page()
        admin.goto(f"{live_server.url}/accounts/login/?next=/chat/")
        admin.fill("#id_username", "admin")
        admin.fill("#id_password", "s3cret-pass")
        admin.click("button[type=submit]")
        assert MEMORY in admin_prompt(admin, live_server.url, visitor)

        widget.click(f".mem li:has-text('{MEMORY}') >> button:has-text('Olvidar')")
        widget.wait_for_selector(f".mem li:has-text('{MEMORY}')", state="detached")
        assert not Memory.objects.exists()
        assert MEMORY not in admin_prompt(admin, live_server.url, visitor)
        shot(admin, "12-admin-chat-after-forget")
