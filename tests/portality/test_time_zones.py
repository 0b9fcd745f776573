"""Times in the reader's own time zone: the deployment's TIME_ZONE is UTC, its admins are
in São Paulo and Madrid. The console's script names the browser's zone in a cookie; the
pages, the day charts and the date filters read it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import time_machine
from django.utils import timezone

from knowledge.models import Document
from licenses.services import license_forge
from tests.factories import as_owner, make_document

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]

UPLOADED = datetime(2026, 12, 1, 1, 30, tzinfo=UTC)  # still 30 November in São Paulo


@pytest.fixture
def owner_client(client, django_user_model):
    owner = as_owner(django_user_model.objects.create_user("ana", password="x", is_staff=True))
    client.force_login(owner)
    return client


@pytest.fixture
def uploaded():
    document = make_document("# Horario\n\nAbre a las ocho.", filename="horario.md")
    Document.objects.filter(pk=document.pk).update(created_at=UPLOADED)
    return document


@pytest.mark.parametrize(
    ("zone", "shown"),
    [
        (None, "01/12/2026 01:30"),  # the deployment's UTC
        ("America/Sao_Paulo", "30/11/2026 22:30"),
        ("Europe/Madrid", "01/12/2026 02:30"),
        ("../../../../etc/passwd", "01/12/2026 01:30"),  # not a zone's name: ignored
        ("Not/A_Zone", "01/12/2026 01:30"),
    ],
)
def test_the_knowledge_table_shows_when_in_the_reader_s_zone(owner_client, uploaded, zone, shown):
    if zone:
        owner_client.cookies["tz"] = zone
    page = owner_client.get("/knowledge/", HTTP_ACCEPT_LANGUAGE="es").content.decode()

    assert shown in page
    assert timezone.get_current_timezone_name() == "UTC"  # nothing outlives the request


def test_a_date_filter_is_the_reader_s_day(owner_client):
    with time_machine.travel(UPLOADED, tick=False):
        license_forge(user_name="Rui", machine_id="forjada-de-noche")
    asked = {"since": "2026-12-01", "action": "license.forged"}

    owner_client.cookies["tz"] = "America/Sao_Paulo"
    assert "forjada-de-noche" not in owner_client.get("/account/audit/", asked).content.decode()
    del owner_client.cookies["tz"]  # in UTC it was forged on 1 December
    assert "forjada-de-noche" in owner_client.get("/account/audit/", asked).content.decode()
