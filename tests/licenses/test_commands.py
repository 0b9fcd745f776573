from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_forge_license_command_json():
    out = StringIO()
    call_command(
        "forge_license",
        "--user-name",
        "Bea",
        "--machine-id",
        "caja-2",
        "--expires",
        "2030-01-31",
        "--json",
        stdout=out,
    )
    payload = json.loads(out.getvalue())

    assert set(payload) == {"machine_id", "user_name", "key", "expires_at"}
    assert payload["machine_id"] == "caja-2" and payload["key"].startswith("pbk_")
    assert payload["expires_at"].startswith("2030-01-31")
