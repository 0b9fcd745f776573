"""A server the product needs stops answering mid-request (PostgreSQL killed and started
again, a failover, Redis restarting): the caller is told to send the request again in a
few seconds (503 with Retry-After), not that the product is broken (500). A bug stays a 500.

The database's connection is really cut here: the request's own backend is terminated by
PostgreSQL (pg_terminate_backend), as a restart or failover does."""

from __future__ import annotations

import pytest
import redis
from django.db import connection
from django.test import Client
from kombu.exceptions import OperationalError as KombuOperationalError
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from knowledge import selectors
from tests.factories import as_owner, make_document
from tests.ports import free_port
from web.errors import unavailable_server

pytestmark = [
    # transaction=True: the request's connection dies, which would take a test transaction
    # with it.
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("media_root", "fake_embedder"),
]


@pytest.fixture
def owner(django_user_model):
    return as_owner(django_user_model.objects.create_user("ops", password="pw", is_staff=True))


@pytest.fixture
def cut_connection(monkeypatch):
    """The documents' list loses its database connection as it is read."""
    listed = selectors.document_list

    def list_after_the_server_went_away(**filters):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")
        return listed(**filters)

    monkeypatch.setattr(selectors, "document_list", list_after_the_server_went_away)
    yield
    connection.close()  # the test client keeps the dead connection; the teardown needs one


@pytest.fixture
def buggy_query(monkeypatch):
    def list_with_a_bug(**filters):
        with connection.cursor() as cursor:
            cursor.execute("SELECT no_such_column FROM knowledge_document")
        return []

    monkeypatch.setattr(selectors, "document_list", list_with_a_bug)


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("en", "send the request again in a few seconds"),
        ("es", "vuelve a enviar la petición en unos segundos"),
        ("pt-BR", "envie a requisição de novo em alguns segundos"),
    ],
)
def test_an_api_call_whose_database_went_away_is_told_to_retry(
    owner, cut_connection, language, sentence
):
    make_document("La piscina abre a las ocho.", filename="p.txt")
    api = APIClient(raise_request_exception=False)
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=owner).key}")

    response = api.get("/api/v1/documents", HTTP_ACCEPT_LANGUAGE=language)

    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.json()["code"] == "unavailable"
    assert sentence in response.json()["detail"]


def test_a_console_page_whose_database_went_away_asks_to_reload(owner, cut_connection):
    client = Client(raise_request_exception=False)
    client.force_login(owner)

    response = client.get("/knowledge/", HTTP_ACCEPT_LANGUAGE="es")

    assert response.status_code == 503 and response["Retry-After"] == "5"
    page = response.content.decode()
    assert "Volvemos enseguida" in page and "Traceback" not in page


def test_a_bug_is_still_a_500(owner, buggy_query):
    api = APIClient(raise_request_exception=False)
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=owner).key}")

    response = api.get("/api/v1/documents")

    assert response.status_code == 500 and response.json()["code"] == "server_error"
    assert "Retry-After" not in response


def test_a_redis_that_does_not_answer_is_an_outage_too():
    with pytest.raises(redis.ConnectionError) as refused:
        redis.Redis(port=free_port(), socket_connect_timeout=1).ping()
    assert unavailable_server(refused.value) == "redis"
    assert unavailable_server(KombuOperationalError("Timeout reading from socket")) == "redis"
    assert unavailable_server(ValueError("a bug")) == ""


def test_a_database_taking_no_more_connections_is_an_outage_too():
    """PostgreSQL at its max_connections refuses new connections ("too many clients"): the
    request can be sent again in a moment, as after a restart. The same refusal comes here
    for real, from a role allowed no connection."""
    import psycopg  # noqa: PLC0415
    from django.db import OperationalError  # noqa: PLC0415

    with connection.cursor() as cursor:
        cursor.execute("DROP ROLE IF EXISTS crowded")
        cursor.execute("CREATE ROLE crowded LOGIN CONNECTION LIMIT 0")
    params = connection.settings_dict
    try:
        with pytest.raises(psycopg.OperationalError) as refused:
            psycopg.connect(
                host=params["HOST"], port=params["PORT"], dbname=params["NAME"], user="crowded"
            )
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP ROLE crowded")
    failure = OperationalError(str(refused.value))
    failure.__cause__ = refused.value

    assert "too many connections" in str(refused.value)
    assert unavailable_server(failure) == "database"
