"""License key rotation, from the command, the API and the console: the new key works at
once; the old one works for the grace period the owner chose and then answers 401."""

from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO

import pytest
import time_machine
from django.core.management import CommandError, call_command
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import AuditEntry
from licenses.models import License
from licenses.services import license_forge

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fake_embedder")]


def search_status(key: str) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client.post("/api/v1/search", {"query": "horario"}, format="json").status_code


def rotate(machine_id: str, *args: str) -> dict[str, str]:
    out = StringIO()
    call_command("rotate_license_key", machine_id, *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def test_the_old_key_works_during_the_grace_period_only():
    old_key = license_forge(user_name="Ana", machine_id="sala-1").key

    rotated = rotate("sala-1", "--grace", "60")

    new_key = rotated["key"]
    assert new_key.startswith("pbk_") and new_key != old_key
    assert search_status(new_key) == 200
    assert search_status(old_key) == 200
    with time_machine.travel(timezone.now() + timedelta(seconds=61)):
        assert search_status(old_key) == 401
        assert search_status(new_key) == 200
    entry = AuditEntry.objects.get(action="license.key_rotated")
    assert entry.details["grace_seconds"] == 60 and new_key not in json.dumps(entry.details)
    assert entry.actor.startswith("command rotate_license_key") or entry.actor == "system"


def test_without_grace_the_old_key_stops_at_once():
    old_key = license_forge(user_name="Ana", machine_id="sala-1").key

    new_key = rotate("sala-1")["key"]

    assert search_status(old_key) == 401 and search_status(new_key) == 200


def test_a_second_rotation_ends_the_first_keys_grace():
    first = license_forge(user_name="Ana", machine_id="sala-1").key
    second = rotate("sala-1", "--grace", "3600")["key"]
    third = rotate("sala-1", "--grace", "3600")["key"]

    assert [search_status(key) for key in (first, second, third)] == [401, 200, 200]


def test_the_command_refuses_what_it_cannot_do():
    license_forge(user_name="Ana", machine_id="sala-1")
    with pytest.raises(CommandError, match="No license"):
        rotate("nope")
    with pytest.raises(CommandError, match="grace period"):
        rotate("sala-1", "--grace", "-5")


def test_the_api_rotates_for_those_who_manage_licenses(admin_user):
    old_key = license_forge(user_name="Ana", machine_id="sala-1").key
    client = APIClient()
    client.force_login(admin_user)

    response = client.post("/api/v1/licenses/sala-1/rotate", {"grace_seconds": 0}, format="json")

    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    assert search_status(response.json()["key"]) == 200 and search_status(old_key) == 401
    assert client.post("/api/v1/licenses/none/rotate", {}, format="json").status_code == 404
    # A license key is not an admin.
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Bearer {response.json()['key']}")
    assert other.post("/api/v1/licenses/sala-1/rotate", {}, format="json").status_code in (401, 403)


def test_the_console_shows_the_new_key_once(admin_client):
    license = license_forge(user_name="Ana", machine_id="sala-1").license

    page = admin_client.post(f"/licenses/{license.pk}/rotate", {"grace": "3600"})

    html = page.content.decode()
    key = html.split('id="forged-key" readonly value="')[1].split('"')[0]
    assert page["Cache-Control"] == "no-store" and search_status(key) == 200
    detail = admin_client.get(f"/licenses/{license.pk}/").content.decode()
    assert key not in detail and License.objects.get().previous_key_prefix in detail
