from __future__ import annotations

import pytest

from memory.models import Memory
from tests.factories import as_owner
from tests.memory.support import consent, propose

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]


class TestAdminPage:
    @pytest.fixture
    def admin_client(self, client, django_user_model):
        as_owner(django_user_model.objects.create_user("admin", password="pw", is_staff=True))
        client.force_login(django_user_model.objects.get(username="admin"))
        return client

    def test_filter_see_events_deactivate_and_delete(self, admin_client, license):
        consent(license)
        memory = propose(license, "Prefiere <b>la piscina</b>")
        html = admin_client.get("/memories/?license=sala-m&status=active").content.decode()
        assert (
            "Prefiere &lt;b&gt;la piscina&lt;/b&gt;" in html
            and "Created by <code>test</code>" in html
        )

        admin_client.post(f"/memories/{memory.pk}/toggle")
        memory.refresh_from_db()
        assert not memory.active
        admin_client.post(f"/memories/{memory.pk}/delete")
        assert not Memory.objects.exists()

    def test_dashboard_and_license_page_show_memory_figures(self, admin_client, license):
        consent(license)
        propose(license, "Prefiere la piscina")
        dashboard = " ".join(admin_client.get("/").content.decode().split())
        assert '<span class="figure">1</span> active memory' in dashboard
        assert (
            "1 memory in use</a> of 1 user"
            in admin_client.get(f"/licenses/{license.pk}/").content.decode()
        )
