"""The newcomer's finding: the support role saw the upload box, Forget, Forge license and
Revoke, and each ended in 403. A page shows only what the signed-in role may use."""

from __future__ import annotations

import pytest

from accounts.roles import role_grant
from licenses.services import license_forge
from tests.factories import make_document

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]


def _signed_in(client, django_user_model, role):
    user = django_user_model.objects.create_user(role, password="pw", is_staff=True)
    role_grant(username=role, role=role)
    client.force_login(user)
    return client


def _pages(client):
    license = license_forge(user_name="Ana", machine_id="sala-roles").license
    document = make_document("# Piscina\n\nLa piscina abre a las ocho.", filename="p.md")
    return {
        "knowledge": client.get("/knowledge/").content.decode(),
        "document": client.get(f"/knowledge/{document.pk}/").content.decode(),
        "licenses": client.get("/licenses/").content.decode(),
        "license": client.get(f"/licenses/{license.pk}/").content.decode(),
    }


def test_support_sees_no_control_it_may_not_use(client, django_user_model):
    pages = _pages(_signed_in(client, django_user_model, "support"))
    assert 'id="upload-form"' not in pages["knowledge"]
    for button in (">Forget<", "Forget selected", "Forget document", "Forget chunk", ">Retry<"):
        assert button not in pages["knowledge"] + pages["document"], button
    assert "Forge license" not in pages["licenses"]
    assert "Revoke" not in pages["license"] and "Save changes" not in pages["license"]
    assert "p.md" in pages["knowledge"] and "sala-roles" in pages["licenses"]  # still reads


def test_the_owner_sees_them_all(client, django_user_model):
    pages = _pages(_signed_in(client, django_user_model, "owner"))
    assert 'id="upload-form"' in pages["knowledge"] and "Forget document" in pages["document"]
    assert ">Forget<" in pages["knowledge"] and "Forget chunk" in pages["document"]
    assert "Forge license" in pages["licenses"] and "Revoke" in pages["license"]
