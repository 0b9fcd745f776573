"""make run's widget demo page (chat.views.widget_demo): served at its own origin only, each
visitor their own end user."""

from __future__ import annotations

import re

import pytest

from licenses.models import DEMO_MACHINE_ID
from licenses.services import license_forge
from licenses.widget_tokens import widget_token_read

pytestmark = pytest.mark.django_db
PAGE_ORIGIN = "http://localhost:8000"


@pytest.fixture
def demo(settings):
    settings.WIDGET_DEMO_ORIGIN = PAGE_ORIGIN
    settings.WIDGET_DEMO_API_ORIGIN = "http://127.0.0.1:8000"
    return license_forge(
        user_name="Demo", machine_id=DEMO_MACHINE_ID, allowed_origins=[PAGE_ORIGIN]
    )


def token_on(page: str) -> str:
    return re.search(r'data-token="([^"]+)"', page).group(1)


def test_each_visitor_gets_an_end_user_of_their_own_and_keeps_it(client, demo):
    # Finding N10: the demo page gave every visitor one shared end user (and its memories).
    first = client.get("/chat/widget-demo/", HTTP_HOST="localhost:8000")
    assert first.status_code == 200
    visitor = widget_token_read(token_on(first.content.decode()))
    assert visitor.user_ref.startswith("visitor-") and visitor.origin == PAGE_ORIGIN
    assert visitor.license_id == str(demo.license.pk)
    again = client.get("/chat/widget-demo/", HTTP_HOST="localhost:8000")  # the same browser
    assert widget_token_read(token_on(again.content.decode())).user_ref == visitor.user_ref

    from django.test import Client

    other = Client().get("/chat/widget-demo/", HTTP_HOST="localhost:8000")
    assert widget_token_read(token_on(other.content.decode())).user_ref != visitor.user_ref


def test_the_page_loads_the_widget_from_the_api_origin_under_its_own_policy(client, demo):
    response = client.get("/chat/widget-demo/", HTTP_HOST="localhost:8000")
    page = response.content.decode()
    assert 'src="http://127.0.0.1:8000/widget.js"' in page
    assert "script-src http://127.0.0.1:8000;" in response["Content-Security-Policy"]


def test_a_forged_visitor_cookie_is_not_taken(client, demo):
    client.cookies["portality_demo_visitor"] = "someone-else"
    page = client.get("/chat/widget-demo/", HTTP_HOST="localhost:8000").content.decode()
    assert widget_token_read(token_on(page)).user_ref != "someone-else"


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:9000"])
def test_the_page_is_only_at_its_origin(client, demo, host):
    assert client.get("/chat/widget-demo/", HTTP_HOST=host).status_code == 404


def test_no_page_when_not_configured(client, settings):
    settings.WIDGET_DEMO_ORIGIN = ""
    assert client.get("/chat/widget-demo/", HTTP_HOST="localhost:8000").status_code == 404


def test_new_visitors_from_one_address_are_limited(client, demo, settings):
    """Finding F13: each cookie-less request minted an end user and a token, unthrottled."""
    import redis

    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    settings.DEMO_VISITORS_PER_MINUTE = 3
    from django.test import Client

    statuses = [
        Client(REMOTE_ADDR="192.0.2.50").get("/chat/widget-demo/", HTTP_HOST="localhost:8000")
        for _ in range(4)
    ]
    assert [r.status_code for r in statuses] == [200, 200, 200, 429]
    assert "Too many new visitors" in statuses[-1].content.decode()
    # a returning visitor (their cookie) is not a new one
    returning = client.get("/chat/widget-demo/", HTTP_HOST="localhost:8000")
    assert returning.status_code == 200
