from __future__ import annotations

import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from licenses.services import license_forge
from memory import services
from memory.models import Memory
from tests.memory.support import consent, propose, token_client

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]


class TestApi:
    def test_list_edit_export_forget_one_and_all(self, license):
        consent(license, "ana")
        first = propose(license, "Prefiere la piscina")
        propose(license, "Prefiere el gimnasio por la tarde")
        client = token_client(license, "ana")

        listing = client.get("/api/v1/me/memories").json()
        assert listing["consent"] is True and len(listing["memories"]) == 2
        edited = client.patch(
            f"/api/v1/me/memories/{first.pk}",
            {"description": "Prefiere la piscina climatizada"},
            format="json",
        )
        assert edited.json()["description"] == "Prefiere la piscina climatizada"
        refused = client.patch(
            f"/api/v1/me/memories/{first.pk}",
            {"description": "Mi teléfono es 612 345 678"},
            format="json",
        )
        assert refused.status_code == 400 and "personal data" in refused.json()["detail"]
        # An edit is screened as a new memory is, on the text as its reader sees it.
        hidden = client.patch(
            f"/api/v1/me/memories/{first.pk}",
            {"description": "Tomo antidepre\u200bsivos"},
            format="json",
            HTTP_ACCEPT_LANGUAGE="es",
        )
        assert hidden.status_code == 400 and "salud" in hidden.json()["detail"]
        export = client.get("/api/v1/me/memories/export")
        assert (
            export["Content-Disposition"].startswith("attachment")
            and b"climatizada" in export.content
        )
        assert client.delete(f"/api/v1/me/memories/{first.pk}").status_code == 204
        assert client.delete("/api/v1/me/memories").json() == {"forgotten": 1}
        assert not Memory.objects.exists()

    def test_consent_through_the_api(self, license):
        client = token_client(license, "carla")
        assert client.post("/api/v1/me/consent", {"given": True}, format="json").json() == {
            "consent": True
        }
        assert services.consent_given(license=license, user_ref="carla")

    def test_license_key_backends_must_name_the_user(self, license):
        forged = license_forge(user_name="X", machine_id="sala-k")
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {forged.key}")
        assert client.get("/api/v1/me/memories").status_code == 400
        assert client.get("/api/v1/me/memories?user=ana").status_code == 200

    def test_an_end_user_reference_too_long_to_store_is_a_clear_400(self, license):
        # Finding F5 of the second outside attack run: 121 characters answered 500.
        forged = license_forge(user_name="X", machine_id="sala-long")
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {forged.key}")
        long = "u" * 121
        for response in (
            client.get(f"/api/v1/me/memories?user={long}"),
            client.get(f"/api/v1/me/memories/export?user={long}"),
            client.post(f"/api/v1/me/consent?user={long}", {"given": True}, format="json"),
        ):
            assert response.status_code == 400
            assert "at most 120 characters" in response.json()["detail"]


OPERATIONS = st.lists(
    st.one_of(
        st.just(("list", None)),
        st.just(("export", None)),
        st.just(("delete_all", None)),
        st.tuples(st.just("patch"), st.integers(0, 5)),
        st.tuples(st.just("delete"), st.integers(0, 5)),
    ),
    max_size=8,
)


@pytest.fixture
def no_memory_rate_limit(settings):
    # Every example is A's calls within one minute: their rate limit is not under test here.
    settings.MEMORY_RATE_PER_USER_PER_MINUTE = 10**6


@pytest.mark.slow
@pytest.mark.usefixtures("no_memory_rate_limit")
@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(operations=OPERATIONS)
def test_no_sequence_of_calls_by_one_user_reveals_or_changes_anothers_memories(license, operations):
    """Property: user A (token for A) can never see or touch B's (same license) or C's
    (another license) memories, whatever A asks and whichever ids A tries."""
    Memory.objects.all().delete()
    # A fresh machine_id per example: hypothesis runs them all in one test transaction, and
    # id(operations) could repeat once an earlier list was freed (a flaky IntegrityError).
    other_license = license_forge(
        user_name="Otro", machine_id=f"otra-{uuid.uuid4().hex[:12]}"
    ).license
    for who, lic in (("ana", license), ("bea", license), ("carla", other_license)):
        consent(lic, who)
    propose(license, "Prefiere la piscina por la mañana", user="ana")
    theirs = [
        propose(license, "Prefiere el gimnasio por la tarde", user="bea"),
        propose(license, "Quiere avisos por correo postal", user="bea"),
        propose(other_license, "Reserva siempre el salón grande", user="carla"),
    ]
    before = {(m.pk, m.description, m.active) for m in theirs}
    ids = [str(m.pk) for m in Memory.objects.order_by("pk")]
    client = token_client(license, "ana")
    for name, index in operations:
        target = ids[index % len(ids)] if index is not None else None
        if name == "list":
            seen = {m["id"] for m in client.get("/api/v1/me/memories").json()["memories"]}
            assert not seen & {str(m.pk) for m in theirs}
        elif name == "export":
            assert not any(
                str(m.pk) in client.get("/api/v1/me/memories/export").content.decode()
                for m in theirs
            )
        elif name == "delete_all":
            client.delete("/api/v1/me/memories")
        elif name == "patch":
            client.patch(
                f"/api/v1/me/memories/{target}", {"description": "Cambiado por Ana"}, format="json"
            )
        else:
            client.delete(f"/api/v1/me/memories/{target}")
    after = {
        (m.pk, m.description, m.active)
        for m in Memory.objects.filter(pk__in=[m.pk for m in theirs])
    }
    assert after == before
