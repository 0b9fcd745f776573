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

    @pytest.mark.parametrize(
        ("next_", "lands_on"),
        [
            ("/memories/?status=active", "/memories/?status=active"),
            ("https://evil.example/", "/memories/"),
            ("//evil.example/", "/memories/"),
            ("-1", "/memories/"),  # was a 500: redirect() read it as a URL name
            ("memory:memory-list", "/memories/"),
        ],
    )
    def test_after_an_action_only_a_path_on_this_site_is_followed(
        self, admin_client, license, next_, lands_on
    ):
        consent(license)
        memory = propose(license, "Prefiere la piscina")

        done = admin_client.post(f"/memories/{memory.pk}/toggle", {"next": next_})

        assert done.status_code == 302 and done["Location"] == lands_on

    def test_dashboard_and_license_page_show_memory_figures(self, admin_client, license):
        consent(license)
        propose(license, "Prefiere la piscina")
        dashboard = " ".join(admin_client.get("/").content.decode().split())
        assert '<span class="figure">1</span> active memory' in dashboard
        assert (
            "1 memory in use</a> of 1 user"
            in admin_client.get(f"/licenses/{license.pk}/").content.decode()
        )
