from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from django.test import override_settings

from runtime.embedded import EmbeddedServices


@pytest.fixture
def throwaway_redis():
    """A Redis server of its own, so stopping it does not disturb the rest of the session."""
    with tempfile.TemporaryDirectory(prefix="pb-redis-") as tmp:
        services = EmbeddedServices(Path(tmp))
        url = services.acquire(postgres=False, redis=True).redis_url
        yield services, url
        services.stop_all()


@pytest.mark.django_db(transaction=True)
def test_healthz_reports_every_part_up_to_an_admin(admin_client, celery_worker):
    response = admin_client.get("/healthz")

    assert response.status_code == 200
    body = response.json()
    assert body["database"] == "ok"
    assert body["redis"] == "ok"
    assert body["worker"] == "ok"
    assert body["pgvector"].startswith("0.8")


@pytest.mark.django_db(transaction=True)
def test_healthz_tells_anyone_only_whether_the_product_is_up(client, celery_worker):
    response = client.get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.django_db
@pytest.mark.slow
def test_healthz_is_503_naming_redis_when_it_is_stopped(
    admin_client, throwaway_redis, caplog, monkeypatch
):
    from observability import health

    monkeypatch.setattr(health, "_last_unhealthy_warning", 0.0, raising=False)
    services, url = throwaway_redis
    services.stop_all()

    with override_settings(REDIS_URL=url):
        response = admin_client.get("/healthz")
        admin_client.get("/healthz")  # a monitor polling again

    assert response.status_code == 503
    # The 503 is the answer, not a server error: one warning, no ERROR line per poll.
    assert [
        r.levelname for r in caplog.records if r.name in ("django.request", "observability.health")
    ] == ["WARNING"]
    body = response.json()
    assert body["database"] == "ok"
    assert body["redis"].startswith("unreachable")
    assert body["worker"].startswith("unknown")


@pytest.mark.django_db
@pytest.mark.slow
def test_healthz_is_503_when_no_worker_listens(client, admin_client, throwaway_redis):
    _services, url = throwaway_redis

    with override_settings(REDIS_URL=url):
        response = admin_client.get("/healthz")
        anonymous = client.get("/healthz")

    # Anyone learns that the product is down; what is down (and the machine's paths in its
    # message) only an admin (finding N9 of the second outside attack run).
    assert anonymous.status_code == 503 and anonymous.json() == {"status": "unavailable"}
    assert response.status_code == 503
    assert response.json()["redis"] == "ok"
    assert response.json()["worker"] == "no Celery worker answered a ping"


@pytest.mark.django_db
def test_home_needs_a_staff_login(client, django_user_model):
    assert client.get("/").status_code == 302
    django_user_model.objects.create_user("reader", password="pw-reader-123")
    client.force_login(django_user_model.objects.get(username="reader"))
    assert client.get("/").status_code == 302

    response = client.post("/accounts/login/", {"username": "reader", "password": "pw-reader-123"})
    assert "not a Portality admin" in response.content.decode()


@pytest.mark.django_db
def test_login_page_is_served_with_local_htmx(client):
    response = client.get("/accounts/login/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "/static/django_htmx/htmx" in html
    assert "https://" not in html


def test_the_dashboard_names_each_part_in_the_admins_language():
    from django.utils import translation

    from observability.health import health_rows

    report = {
        "database": "ok",
        "pgvector": "0.8.6",
        "redis": "unreachable: refused",
        "worker": "ok",
    }
    with translation.override("es"):
        assert health_rows(report) == [
            ("Base de datos", "funciona"),
            ("pgvector", "0.8.6"),
            ("Redis", "unreachable: refused"),
            ("Proceso de ingesta", "funciona"),
        ]
    with translation.override("pt-br"):
        assert health_rows(report)[0] == ("Banco de dados", "funcionando")
