"""Roles (finding N7 of the second outside attack run: every staff account had the whole
console). Each role against every console page and the admin API."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from accounts.roles import ROLES, role_grant
from licenses.services import license_forge
from memory.models import Memory
from tests.factories import make_document, make_unanswered_exchange
from tests.memory.support import consent, propose

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]

# (method, url, allowed roles); None in a url is filled by the fixture's objects.
PAGES = [
    ("get", "/", {"owner", "knowledge_editor", "support", "privacy_officer"}),
    ("get", "/knowledge/", {"owner", "knowledge_editor", "support"}),
    ("get", "/knowledge/{document}/", {"owner", "knowledge_editor", "support"}),
    ("post", "/knowledge/{document}/retry", {"owner", "knowledge_editor"}),
    ("get", "/knowledge/search/", {"owner", "knowledge_editor", "support"}),
    ("get", "/chat/", {"owner", "knowledge_editor", "support"}),
    ("get", "/licenses/", {"owner", "support"}),
    ("post", "/licenses/", {"owner"}),
    ("get", "/licenses/{license}/", {"owner", "support"}),
    ("post", "/licenses/{license}/revoke", {"owner"}),
    ("get", "/memories/", {"owner", "privacy_officer"}),
    ("post", "/memories/{memory}/toggle", {"owner", "privacy_officer"}),
    ("get", "/conversations/", {"owner", "support", "privacy_officer"}),
    ("get", "/conversations/?as=csv", {"owner", "support", "privacy_officer"}),
    ("get", "/conversations/{conversation}/", {"owner", "support", "privacy_officer"}),
    ("post", "/conversations/answers/{answer}/review", {"owner", "support"}),
    ("get", "/conversations/export?license=sala-roles&user=ana", {"owner", "privacy_officer"}),
    ("post", "/conversations/retention", {"owner", "privacy_officer"}),
    ("get", "/conversations/gaps/", {"owner", "knowledge_editor"}),
    ("post", "/conversations/gaps/{gap}/dismiss", {"owner", "knowledge_editor"}),
    ("post", "/conversations/gaps/{gap}/reopen", {"owner", "knowledge_editor"}),
    ("post", "/conversations/gaps/{gap}/answer", {"owner", "knowledge_editor"}),
    (
        "get",
        "/conversations/insights/",
        {"owner", "knowledge_editor", "support", "privacy_officer"},
    ),
    ("post", "/conversations/erase", {"owner", "privacy_officer"}),
    ("post", "/knowledge/{document}/forget", {"owner", "knowledge_editor"}),
]
# The same for the API (a console account's session; tokens are checked the same way).
APIS = [
    ("get", "/api/v1/conversations", {"owner", "support", "privacy_officer"}),
    ("get", "/api/v1/conversations/export?as=json", {"owner", "support", "privacy_officer"}),
    ("get", "/api/v1/conversations/{conversation}", {"owner", "support", "privacy_officer"}),
    ("post", "/api/v1/answers/{answer}/review", {"owner", "support"}),
    ("post", "/api/v1/conversations/erase", {"owner", "privacy_officer"}),
    ("get", "/api/v1/knowledge-gaps", {"owner", "knowledge_editor"}),
    ("get", "/api/v1/knowledge-gaps/export", {"owner", "knowledge_editor"}),
    ("post", "/api/v1/knowledge-gaps/{gap}/dismiss", {"owner", "knowledge_editor"}),
    ("post", "/api/v1/knowledge-gaps/{gap}/reopen", {"owner", "knowledge_editor"}),
    ("post", "/api/v1/knowledge-gaps/{gap}/answer", {"owner", "knowledge_editor"}),
]


@pytest.fixture
def world():
    forged = license_forge(user_name="Ana", machine_id="sala-roles")
    document = make_document("La piscina abre a las ocho.", filename="p.txt")
    consent(forged.license, "ana")
    memory = propose(forged.license, "Prefiere la piscina", user="ana")
    exchange = make_unanswered_exchange(forged.license)
    return {
        "license": forged.license.pk,
        "document": document.pk,
        "memory": memory.pk,
        "conversation": exchange.conversation_id,
        "answer": exchange.pk,
        "gap": exchange.gap_id,
    }


def client_with(django_user_model, role):
    user = django_user_model.objects.create_user(f"u-{role}", password="pw", is_staff=True)
    if role:
        role_grant(username=user.username, role=role)
    client = APIClient()
    client.force_login(user)
    return client


@pytest.mark.parametrize("role", [*ROLES, None])
def test_each_role_reaches_exactly_its_pages(django_user_model, world, role):
    client = client_with(django_user_model, role)
    for method, url, allowed in PAGES:
        response = getattr(client, method)(url.format(**world))
        if role in allowed:
            assert response.status_code in (200, 201, 204, 302), (role, method, url)
        else:
            assert response.status_code == 403, (role, method, url, response.status_code)


# Bodies a role that may call them gets past validation with (so the answer is not a 400).
API_BODIES = {
    "review": {"verdict": "correct"},
    "erase": {"license": "sala-roles", "user": "nobody"},
    "answer": {"answer": "Sí, la red es Invitados.", "license": ""},
}


@pytest.mark.parametrize("role", [*ROLES, None])
def test_each_role_reaches_exactly_its_api(django_user_model, world, role):
    client = client_with(django_user_model, role)
    for method, url, allowed in APIS:
        body = next((b for key, b in API_BODIES.items() if url.endswith(key)), None)
        response = getattr(client, method)(url.format(**world), body, format="json")
        if role in allowed:
            assert response.status_code in (200, 201, 204, 409), (role, url, response.content)
        else:
            assert response.status_code == 403, (role, method, url, response.status_code)


def test_the_console_shows_only_what_a_role_may_use(django_user_model, world):
    html = client_with(django_user_model, "privacy_officer").get("/").content.decode()
    assert "/memories/" in html and "/licenses/" not in html and "/knowledge/search/" not in html


def test_the_query_log_is_for_support_not_for_editors(django_user_model, world):
    title = "Recent searches"
    assert (
        title
        in client_with(django_user_model, "support").get("/knowledge/search/").content.decode()
    )
    editor = client_with(django_user_model, "knowledge_editor")
    assert title not in editor.get("/knowledge/search/").content.decode()


def test_the_admin_api_needs_a_role_that_searches(django_user_model, world):
    officer = client_with(django_user_model, "privacy_officer")
    assert officer.post("/api/v1/search", {"query": "piscina"}, format="json").status_code == 403
    support = client_with(django_user_model, "support")
    assert support.post("/api/v1/search", {"query": "piscina"}, format="json").status_code == 200


def test_memories_stay_as_they_were_after_a_refused_change(django_user_model, world):
    client_with(django_user_model, "support").post(f"/memories/{world['memory']}/delete")
    assert Memory.objects.filter(pk=world["memory"]).exists()


def test_grant_role_command(django_user_model):
    django_user_model.objects.create_user("ana", password="pw")
    out = StringIO()

    call_command("grant_role", "ana", "support", stdout=out)
    call_command("grant_role", "--list", stdout=out)
    assert "ana now has the role support" in out.getvalue()
    assert "ana: support" in out.getvalue()
    ana = django_user_model.objects.get(username="ana")
    assert ana.is_staff and ana.has_perm("knowledge.view_searchlog")
    assert not ana.has_perm("memory.view_memory")

    call_command("grant_role", "ana", "support", "--revoke", stdout=out)
    assert not django_user_model.objects.get(username="ana").has_perm("knowledge.view_searchlog")
    with pytest.raises(CommandError, match="No account"):
        call_command("grant_role", "nobody", "owner", stdout=out)
