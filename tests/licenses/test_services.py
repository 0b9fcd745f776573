from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import AuditEntry
from licenses.services import license_forge, license_update, origin_clean, origins_clean
from web.exceptions import ApplicationError


@pytest.mark.parametrize(
    ("value", "origin"),
    [
        ("https://app.example.com", "https://app.example.com"),
        ("https://App.Example.com/", "https://app.example.com"),
        ("http://127.0.0.1:8001", "http://127.0.0.1:8001"),
        ("http://localhost:3000", "http://localhost:3000"),
        ("https://[::1]:8443", "https://[::1]:8443"),
    ],
)
def test_origins_are_normalised(value, origin):
    assert origin_clean(value) == origin


@pytest.mark.parametrize(
    "value",
    [
        'http://x"><img src=x onerror=alert(1)>',
        "https://app.example.com/path",
        "https://app.example.com?q=1",
        "https://user:pw@app.example.com",
        "ftp://app.example.com",
        "app.example.com",
        "https://",
        "https://exa mple.com",
        "https://app.example.com:99999",
        "javascript:alert(1)",
    ],
)
def test_anything_but_an_origin_is_refused(value):
    with pytest.raises(ApplicationError, match="Not an origin"):
        origin_clean(value)


def test_origins_clean_names_every_bad_line_and_drops_duplicates():
    assert origins_clean(["https://a.example", "https://A.example/", ""]) == ["https://a.example"]
    with pytest.raises(ApplicationError, match="nope, https://b.example/x"):
        origins_clean(["https://a.example", "nope", "https://b.example/x"])


@pytest.mark.django_db
class TestLicenseUpdate:
    def test_changes_name_origins_and_expiry_but_not_the_key(self):
        forged = license_forge(user_name="Ana", machine_id="sala-u")
        expires = timezone.now() + timedelta(days=30)

        license = license_update(
            license=forged.license,
            user_name=" Marta ",
            allowed_origins=["https://app.example.com/"],
            expires_at=expires,
        )
        assert license.user_name == "Marta" and license.metadata["user_name"] == "Marta"
        assert license.allowed_origins == ["https://app.example.com"]
        assert license.expires_at == expires
        assert license.key_hash == forged.license.key_hash

    def test_bad_input_changes_nothing(self):
        forged = license_forge(
            user_name="Ana", machine_id="sala-v", allowed_origins=["https://a.b"]
        )
        for bad in ({"user_name": "  "}, {"allowed_origins": ["https://a.b/<script>"]}):
            with pytest.raises(ApplicationError):
                license_update(
                    license=forged.license,
                    **{"user_name": "Ana", "allowed_origins": [], "expires_at": None, **bad},
                )
        forged.license.refresh_from_db()
        assert forged.license.user_name == "Ana" and forged.license.allowed_origins == [
            "https://a.b"
        ]

    def test_saving_it_unchanged_writes_nothing_to_the_audit(self):
        # make run saved the demo license at every start: "changed a license", nothing changed.
        forged = license_forge(
            user_name="Ana", machine_id="sala-w", allowed_origins=["https://a.b"]
        )
        same = {"user_name": " Ana ", "allowed_origins": ["https://A.b/"], "expires_at": None}

        license_update(license=forged.license, **same)
        assert not AuditEntry.objects.filter(action="license.changed").exists()
        license_update(license=forged.license, **{**same, "allowed_origins": []})
        assert AuditEntry.objects.filter(action="license.changed").count() == 1

    def test_forging_validates_origins_too(self):
        with pytest.raises(ApplicationError, match="Not an origin"):
            license_forge(user_name="Ana", allowed_origins=['http://x"><b>'])


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("  Ana\nPérez  ", "Ana Pérez"),  # into the assistant's instructions: one line
        ("Ana\u202e Pérez", "Ana Pérez"),  # a right-to-left override turned it around
        ("José\u200b  Luis", "José Luis"),
    ],
)
def test_a_user_name_is_one_printable_line(given, kept):
    assert license_forge(user_name=given).license.user_name == kept


@pytest.mark.django_db
def test_a_user_name_of_nothing_printable_is_refused():
    with pytest.raises(ApplicationError, match="user_name is required"):
        license_forge(user_name="\u202e\n\u200b")
