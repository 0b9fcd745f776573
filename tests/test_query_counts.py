"""Pages and the search read a fixed number of queries, however many rows there are: no N+1.

Each check counts the queries once with a few rows and again with many more; the two counts
must be equal and within the stated budget."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from knowledge.search import SearchOptions
from knowledge.search import search as knowledge_search
from licenses.principals import principal_for_license
from licenses.services import license_forge
from tests.factories import as_owner, make_document
from tests.memory.support import consent, propose

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]


def queries(action) -> int:
    with CaptureQueriesContext(connection) as captured:
        action()
    return len(captured)


@pytest.fixture
def admin_client(client, django_user_model):
    as_owner(django_user_model.objects.create_user("admin", password="pw", is_staff=True))
    client.force_login(django_user_model.objects.get(username="admin"))
    client.get("/")  # the session and the user are loaded once per request either way
    return client


@pytest.fixture
def license():
    return license_forge(user_name="Ana", machine_id="sala-q").license


def add_documents(license, start: int, count: int) -> None:
    for n in range(start, start + count):
        make_document(
            f"# Nota {n}\n\nLa piscina abre a las {n} horas.",
            filename=f"{n}.md",
            license=license if n % 2 else None,
        )


def add_memories(license, start: int, count: int) -> None:
    consent(license, "ana")
    for n in range(start, start + count):
        propose(
            license, f"Prefiere la sala número {n} con vistas al jardín", user=f"u{n}"
        ) if consent(license, f"u{n}") is None else None


# Every console page also reads the admin's permissions and roles (3 queries, whatever the
# page lists: accounts/roles.py); the knowledge page reads the scopes' chunking defaults too.
@pytest.mark.slow  # over a second on its own (make test-fast leaves it out)
@pytest.mark.parametrize(("url", "budget"), [("/knowledge/", 10), ("/", 20)])
def test_knowledge_list_and_dashboard(admin_client, license, url, budget):
    add_documents(license, 0, 2)
    few = queries(lambda: admin_client.get(url))
    add_documents(license, 2, 8)
    many = queries(lambda: admin_client.get(url))
    assert few == many <= budget, (few, many)


def test_memory_list(admin_client, license):
    add_memories(license, 0, 2)
    few = queries(lambda: admin_client.get("/memories/"))
    add_memories(license, 2, 8)
    many = queries(lambda: admin_client.get("/memories/"))
    assert few == many <= 16


def test_search(license):
    principal = principal_for_license(license)
    add_documents(license, 0, 2)

    def search():
        knowledge_search(
            principal=principal, query="piscina abre", options=SearchOptions(min_score=-1)
        )

    search()  # the first search of a session prepares its statement
    few = queries(search)
    add_documents(license, 2, 8)
    many = queries(search)
    assert few == many <= 3
