"""The console as a hostile owner would use it: every page reachable from the dashboard is
crawled, then every form on them is sent with one field at a time replaced by a hostile
value (a NUL, 20,000 letters, numbers past any column, a bidi override…), and every page's
filters too; a filter is also applied as a person would, so the forms it reveals (an
erasure's, once a license and a user are chosen) are sent too. Found: a form's ``next`` of
"-1", a PDF password longer than its column, a NUL in an erasure's user (500s).
An upload form is sent a real file, so its other fields get past the file's checks. No answer is a server error. Schemathesis does this for the API
(test_fuzz.py); the console's forms and filters are not in its schema.

Each form's sends are rolled back (a savepoint), so a form that forgets or revokes does not
empty the pages of the forms after it."""

from __future__ import annotations

import itertools
from collections import deque
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

import lxml.html
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import Client

from licenses.services import license_forge
from memory.models import MemoryType
from memory.proposals import Proposal
from memory.services import memory_consent_set, memory_propose
from tests.factories import as_owner, make_document, make_unanswered_exchange

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db,
    pytest.mark.usefixtures("media_root", "fake_embedder"),
]

HOSTILE = ["\x00", "a" * 20_000, "-1", "99999999999999999999999", "\u202e<script>", " "]
A_FILE = "<a small text file>"  # a file input: sent a real file, its other fields fuzzed
FILTERS = {"page", "sort", "order", "q", "as", "status", "license", "days", "language"}
NOT_CRAWLED = ("/static/", "/widget.js", "/account/logout", "/jsi18n", "/api/", "/i18n/")


def _same_site(url: str) -> bool:
    return url.startswith("/") and not urlsplit(url).netloc and not url.startswith(NOT_CRAWLED)


def _fields(form: lxml.html.HtmlElement) -> dict[str, str]:
    """The form as a person would send it unchanged (a select's first real option)."""
    fields: dict[str, str] = {}
    for element in form.xpath(".//input[@name]|.//select[@name]|.//textarea[@name]"):
        name, kind = element.get("name"), element.get("type")
        if name == "csrfmiddlewaretoken":
            continue
        if kind == "file":
            fields.setdefault(name, A_FILE)
        elif element.tag == "select":
            options = [o.get("value", o.text or "") for o in element.xpath(".//option")]
            chosen = [option for option in options if option.strip()]  # past "choose one"
            fields.setdefault(name, chosen[0] if chosen else "")
        elif kind in ("checkbox", "radio"):
            fields.setdefault(name, element.get("value") or "on")
        elif kind in ("number", "password", "date", "email", "url"):
            fields.setdefault(name, element.get("value") or "")  # as left blank
        else:
            fields.setdefault(name, element.get("value") or element.text or "x")
    return fields


def crawl(client: Client, limit: int = 200) -> tuple[list[str], dict[tuple[str, str], dict]]:
    seen: set[str] = set()
    queue, pages, forms = deque(["/"]), [], {}
    while queue and len(seen) < limit:
        url = queue.popleft()
        if url in seen:
            continue
        seen.add(url)
        response = client.get(url)
        assert response.status_code < 500, url
        if "html" not in response.get("Content-Type", ""):
            continue
        pages.append(url)
        page = lxml.html.fromstring(response.content)
        for link in page.xpath("//a[@href]"):
            href = urljoin(url, link.get("href")).split("#")[0]
            if _same_site(href):
                queue.append(href)
        for form in page.xpath("//form"):
            action = urljoin(url, form.get("action") or url)
            if _same_site(action):
                method = (form.get("method") or "get").lower()
                fields = forms.setdefault((method, action.split("?")[0]), _fields(form))
                if method == "get":  # a filter, applied: its page may offer more forms
                    queue.append(f"{action.split('?')[0]}?{urlencode(fields)}")
    return pages, forms


def _send(client: Client, method: str, path: str, data: dict[str, str]) -> int:
    point = transaction.savepoint()
    try:
        if method == "post":
            data = {
                name: SimpleUploadedFile("normas.txt", b"La piscina abre a las ocho.")
                if value == A_FILE
                else value
                for name, value in data.items()
            }
            return client.post(path, data).status_code
        return client.get(f"{path}?{urlencode(data)}").status_code
    finally:
        transaction.savepoint_rollback(point)


@pytest.mark.timeout(600)  # some two minutes here; CI's machine is up to half as fast again
def test_no_hostile_form_or_filter_makes_the_console_fail(django_user_model):
    forged = license_forge(user_name="Ana", machine_id="sala-fuzz", allowed_origins=[])
    make_document("# Piscina\n\nAbre a las ocho.", filename="p.md", license=forged.license)
    make_document("# Gimnasio\n\nAbre a las siete.", filename="g.md")
    make_document(b"%PDF-1.4 broken", filename="roto.pdf")  # failed: its retry is offered
    make_unanswered_exchange(forged.license)
    memory_consent_set(license=forged.license, user_ref="ana", given=True, actor="user:ana")
    memory_propose(
        license=forged.license,
        user_ref="ana",
        proposal=Proposal(MemoryType.PREFERENCE, "Prefiere el turno de mañana", 0.9, "explicit"),
        actor="user:ana",
    )
    django_user_model.objects.create_user("kim", password="pw", is_staff=True)
    owner = as_owner(django_user_model.objects.create_user("owner", password="pw", is_staff=True))
    client = Client()
    client.force_login(owner)

    pages, forms = crawl(client)
    assert len(pages) > 25 and len(forms) > 30  # the crawl reached the console, not one page

    failures = []
    for (method, path), fields in forms.items():
        for name, value in itertools.product(list(fields) or [""], HOSTILE):
            status = _send(client, method, path, {**fields, name: value} if name else fields)
            if status >= 500:
                failures.append((method, path, name, value[:12], status))
            client.force_login(owner)  # a form may have signed the owner out
    with_filters = {url.partition("?")[0]: url for url in pages}  # one query per page
    for url in with_filters.values():
        path, _, query = url.partition("?")
        params = dict(parse_qsl(query, keep_blank_values=True))
        for name, value in itertools.product(sorted(set(params) | FILTERS), HOSTILE):
            if (status := _send(client, "get", path, {**params, name: value})) >= 500:
                failures.append(("get", path, name, value[:12], status))
    assert failures == []
