"""Running the team in a real Chromium: an owner invites a colleague as knowledge editor
(the mail caught by a real SMTP server process), the colleague accepts from the mailed link,
sees only what a knowledge editor may use; the owner makes them support and the console
follows. A second colleague joins from the link the owner copies."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from tests.e2e.browser import chromium_page, log_in
from tests.e2e.test_admin_journey import shot
from tests.factories import as_owner
from tests.mail import body_of, smtp_server, use_smtp

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
PASSWORD = "Correct-Horse-Battery-9"


def nav_links(page) -> set[str]:
    return set(page.locator("header nav a").all_inner_texts())


def another_person(page):
    """A page of its own browser context (cookies of its own) in the same Chromium."""
    context = page.context.browser.new_context(locale="en-US")
    context.set_default_timeout(30_000)
    return context.new_page()


def accept(page, url: str) -> None:
    page.goto(url)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r".*/$"))


def test_an_owner_invites_a_knowledge_editor_and_makes_them_support(
    live_server, settings, tmp_path
):
    as_owner(get_user_model().objects.create_user("olga", password=PASSWORD))
    with smtp_server(tmp_path / "mail") as (port, mail), chromium_page() as owner:
        use_smtp(settings, port)
        log_in(owner, f"{live_server.url}/account/members/", "olga", PASSWORD)
        owner.fill("#id_email", "lucia@example.org")
        owner.select_option("#id_role", "knowledge_editor")
        owner.get_by_role("button", name="Invite").click()
        expect(owner.locator("#invitation-url-title")).to_contain_text("lucia@example.org")
        shot(owner, "team-invited")

        (message,) = mail.wait_for(1)
        mailed_url = re.search(r"https?://\S+/accounts/invitation/\S+/", body_of(message)).group(0)
        lucia = another_person(owner)
        accept(lucia, mailed_url)
        links = nav_links(lucia)
        assert {"Knowledge", "Gaps"} <= links
        assert not {"Licenses", "Members", "Memories", "Conversations", "Audit"} & links
        shot(lucia, "team-knowledge-editor")

        owner.goto(f"{live_server.url}/account/members/")
        row = owner.locator("tr", has_text="lucia@example.org")
        row.locator("select").select_option("support")
        row.get_by_role("button", name="Change").click()
        expect(owner.locator("#messages")).to_contain_text("Support")

        lucia.reload()
        links = nav_links(lucia)
        assert {"Licenses", "Conversations"} <= links and "Gaps" not in links

        # A second colleague, from the link the owner copies (the page shows it once).
        owner.fill("#id_email", "ines@example.org")
        owner.select_option("#id_role", "privacy_officer")
        owner.get_by_role("button", name="Invite").click()
        copied = owner.locator("#invitation-url").input_value()
        ines = another_person(owner)
        accept(ines, copied)
        assert "Memories" in nav_links(ines) and "Knowledge" not in nav_links(ines)
