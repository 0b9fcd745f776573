from __future__ import annotations

import pytest

from licenses.models import License
from licenses.services import license_forge
from tests.factories import as_owner, make_license

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, django_user_model):
    as_owner(django_user_model.objects.create_user("admin", password="pw", is_staff=True))
    client.force_login(django_user_model.objects.get(username="admin"))
    return client


def test_an_admin_edits_name_origins_and_expiry(admin_client):
    license = license_forge(user_name="Ana", machine_id="sala-e").license
    response = admin_client.post(
        f"/licenses/{license.pk}/",
        {
            "user_name": "Ana María",
            "allowed_origins": "https://app.example.com\nhttp://127.0.0.1:8001/",
            "expires_on": "2099-12-31",
        },
    )
    assert response.status_code == 302
    license.refresh_from_db()
    assert license.user_name == "Ana María"
    assert license.allowed_origins == ["https://app.example.com", "http://127.0.0.1:8001"]
    assert license.expires_at.year == 2099

    html = admin_client.get(f"/licenses/{license.pk}/").content.decode()
    assert "License sala-e saved." in html
    assert 'data-copy="#snippet-token"' in html and 'data-copy="#snippet-tag"' in html


def test_markup_in_an_origin_is_refused_and_nothing_changes(admin_client):
    license = license_forge(user_name="Ana", machine_id="sala-f").license
    hostile = 'http://x"><img src=x onerror=alert(1)>'
    response = admin_client.post(
        f"/licenses/{license.pk}/", {"user_name": "Otra", "allowed_origins": hostile}
    )
    html = response.content.decode()
    assert response.status_code == 200 and "Not an origin" in html
    assert "<img src=x" not in html  # shown escaped, never as markup
    license.refresh_from_db()
    assert license.user_name == "Ana" and license.allowed_origins == []


def test_expiry_can_be_cleared_and_an_unchanged_past_expiry_is_kept(admin_client):
    from datetime import timedelta

    from django.utils import timezone

    license = license_forge(user_name="Ana", machine_id="sala-g").license
    past = timezone.now() - timedelta(days=3)
    License.objects.filter(pk=license.pk).update(expires_at=past)
    day = timezone.localtime(past).date().isoformat()

    admin_client.post(f"/licenses/{license.pk}/", {"user_name": "Bea", "expires_on": day})
    license.refresh_from_db()
    assert license.user_name == "Bea" and license.expires_at.date() == past.date()

    admin_client.post(f"/licenses/{license.pk}/", {"user_name": "Bea", "expires_on": ""})
    license.refresh_from_db()
    assert license.expires_at is None


class TestLicenses:
    def test_forge_shows_the_key_once(self, admin_client):
        response = admin_client.post("/licenses/", {"user_name": "Ana", "machine_id": "sala-9"})
        html = response.content.decode()
        license = License.objects.get(machine_id="sala-9")

        assert "only time the key is shown" in html and response["Cache-Control"] == "no-store"
        key = html.split('id="forged-key" readonly value="')[1].split('"')[0]
        assert key.startswith(license.key_prefix) and license.metadata == {"user_name": "Ana"}
        assert key not in admin_client.get("/licenses/").content.decode()
        assert key not in admin_client.get(f"/licenses/{license.pk}/").content.decode()

    def test_forge_errors(self, admin_client):
        make_license(machine_id="taken")
        html = admin_client.post(
            "/licenses/", {"user_name": "Ana", "machine_id": "taken"}
        ).content.decode()
        assert "already exists" in html
        html = admin_client.post(
            "/licenses/", {"user_name": "Ana", "allowed_origins": "not an origin"}
        ).content.decode()
        assert "Not an origin" in html

    def test_revoke_and_reactivate(self, admin_client):
        license = make_license()
        admin_client.post(f"/licenses/{license.pk}/revoke")
        license.refresh_from_db()
        assert license.status == "revoked"
        admin_client.post(f"/licenses/{license.pk}/reactivate")
        license.refresh_from_db()
        assert license.status == "active"


def test_license_detail_shows_the_widget_snippet_without_the_key(admin_client):
    forged = license_forge(
        user_name="Ana", machine_id="sala-x", allowed_origins=["https://app.example.com"]
    )
    html = admin_client.get(f"/licenses/{forged.license.pk}/").content.decode()

    assert "/widget.js" in html and "/api/v1/widget/token" in html
    assert "https://app.example.com" in html and forged.key not in html
    # Copied as is, the commands work: the key comes from a variable, not a shortened key
    # that fails when pasted; the widget follows the page's language, not the admin's.
    assert 'Bearer $PORTALITY_KEY"' in html and '…" -H' not in html
    assert forged.license.key_prefix in html
    tag = html.split('id="snippet-tag"')[1].split(">", 1)[1].split("</pre>")[0]
    assert "data-lang" not in tag
