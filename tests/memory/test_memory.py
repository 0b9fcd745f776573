from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from chat.services import chat_answer, chat_prepare
from licenses.principals import principal_for_license
from licenses.services import license_forge
from licenses.widget_tokens import widget_token_issue
from memory import services
from memory.models import Memory, MemoryEvent, MemorySource, MemoryType
from memory.services import MemoryRejected, Proposal

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]
ORIGIN = "https://app.example.com"


@pytest.fixture
def license():
    return license_forge(user_name="Ana", machine_id="sala-m", allowed_origins=[ORIGIN]).license


def consent(license, user="ana"):
    services.memory_consent_set(license=license, user_ref=user, given=True, actor=f"user:{user}")


def propose(
    license, description, user="ana", confidence=0.8, source=MemorySource.CONVERSATION, **extra
):
    proposal = Proposal(MemoryType.PREFERENCE, description, confidence, source, **extra)
    return services.memory_propose(license=license, user_ref=user, proposal=proposal, actor="test")


class TestValidation:
    def test_without_consent_nothing_is_saved_and_the_rejection_is_recorded(self, license):
        with pytest.raises(MemoryRejected, match="not agreed"):
            propose(license, "Prefiere reservas por la mañana")
        event = MemoryEvent.objects.get(kind="rejected")
        assert "not agreed" in event.reason and not Memory.objects.exists()

    def test_confidence_under_0_6_is_rejected(self, license):
        consent(license)
        with pytest.raises(MemoryRejected, match="under 0.6"):
            propose(license, "Prefiere el salón grande", confidence=0.55)

    @pytest.mark.parametrize(
        ("text", "reason"),
        [
            ("Su teléfono es +34 612 345 678", "personal data"),
            ("Mi CPF é 529.982.247-25", "personal data"),
            ("Tiene alergia a la amoxicilina", "medical"),
            ("Su salario es de 3000 euros", "financial"),
            ("El vecino del 3B es un maleducado", "other people"),
            ("Su puntuación como residente es baja", "scores"),
        ],
    )
    def test_forbidden_content_is_rejected_and_its_text_not_kept(self, license, text, reason):
        consent(license)
        with pytest.raises(MemoryRejected, match=reason):
            propose(license, text)
        event = MemoryEvent.objects.get(kind="rejected")
        assert text not in str(event.detail) and text not in event.reason

    def test_a_near_duplicate_updates_the_existing_memory(self, license):
        consent(license)
        first = propose(license, "Prefiere reservas por la mañana", confidence=0.7)
        again = propose(license, "prefiere reservas por la mañana", confidence=0.9)

        assert again.pk == first.pk and Memory.objects.count() == 1
        assert again.confidence == 0.9
        assert MemoryEvent.objects.filter(memory_id=first.pk, kind="updated").exists()

    def test_at_most_50_active_memories(self, license):
        consent(license)
        for n in range(50):
            propose(license, f"Preferencia número {n} sobre el espacio {n * 7919}")
        with pytest.raises(MemoryRejected, match="limit of 50"):
            propose(license, "Una preferencia más sobre el horario de la tarde")


class TestDecayAndExpiry:
    def test_unused_for_90_days_loses_0_1_and_is_deactivated_under_0_3(self, license):
        consent(license)
        with time_machine.travel(timezone.now() - timedelta(days=200), tick=False):
            strong = propose(license, "Prefiere el salón de fiestas", confidence=0.9)
            weak = propose(license, "Reserva con siete días de antelación", confidence=0.65)
            Memory.objects.filter(pk=weak.pk).update(confidence=0.35)  # as after earlier decays
            kept = propose(license, "Quiere respuestas cortas", source=MemorySource.USER_EXPLICIT)

        counts = services.memories_decay()

        strong.refresh_from_db(), weak.refresh_from_db(), kept.refresh_from_db()
        assert counts == {"expired": 0, "decayed": 2, "deactivated": 1}
        assert strong.confidence == 0.8 and strong.active
        assert weak.confidence == 0.25 and not weak.active
        assert kept.confidence == 0.8 and kept.active  # user_explicit never decays
        assert services.memories_decay() == {"expired": 0, "decayed": 0, "deactivated": 0}

    def test_recent_use_prevents_decay(self, license):
        consent(license)
        with time_machine.travel(timezone.now() - timedelta(days=200), tick=False):
            memory = propose(license, "Prefiere el salón de fiestas")
        Memory.objects.filter(pk=memory.pk).update(
            last_accessed_at=timezone.now() - timedelta(days=10)
        )

        assert services.memories_decay()["decayed"] == 0

    def test_expiry_is_honoured(self, license):
        consent(license)
        memory = propose(
            license,
            "Está de vacaciones hasta el 15 de marzo",
            expires_at=timezone.now() + timedelta(days=3),
        )
        with time_machine.travel(timezone.now() + timedelta(days=4)):
            assert services.memories_decay()["expired"] == 1
        memory.refresh_from_db()
        assert not memory.active
        assert MemoryEvent.objects.filter(memory_id=memory.pk, kind="expired").exists()


class TestForgetting:
    def test_forgetting_removes_the_memory_and_scrubs_its_events(self, license):
        consent(license)
        memory = propose(license, "Prefiere reservas por la mañana")
        memory_id = memory.pk
        services.memory_forget(memory=memory, actor="user:ana")

        assert not Memory.objects.exists()
        assert not MemoryEvent.objects.filter(memory_id=memory_id).exists()
        assert all("mañana" not in str(e.detail) for e in MemoryEvent.objects.all())
        assert MemoryEvent.objects.filter(kind="forgotten", actor="user:ana").exists()

    def test_forget_all_and_withdrawal_touch_only_this_user(self, license):
        consent(license, "ana")
        consent(license, "bea")
        propose(license, "Prefiere la piscina", user="ana")
        bea = propose(license, "Prefiere el gimnasio", user="bea")

        services.memory_consent_set(license=license, user_ref="ana", given=False, actor="user:ana")

        assert list(Memory.objects.all()) == [bea]
        with pytest.raises(MemoryRejected, match="not agreed"):
            propose(license, "Prefiere la sauna", user="ana")


class TestInTheChat:
    def test_explicit_statement_becomes_a_memory_used_in_later_prompts_until_forgotten(
        self, license
    ):
        consent(license, "default")
        principal = principal_for_license(license)

        answer = chat_answer(
            principal=principal, question="Recuerda que prefiero respuestas cortas y directas."
        )
        assert answer.answer == "Entendido, lo recordaré: «Prefiero respuestas cortas y directas»."
        memory = Memory.objects.get()
        assert memory.source == "user_explicit" and memory.memory_type == "style"
        assert "respuestas cortas" in memory.source_message

        turn = chat_prepare(
            principal=principal, question="¿Qué horario tiene la piscina?", session_id=None
        )
        assert "Prefiero respuestas cortas y directas" in turn.prompt.system
        memory.refresh_from_db()
        assert memory.last_accessed_at is not None
        assert MemoryEvent.objects.filter(memory_id=memory.pk, kind="used").exists()

        services.memory_forget(memory=memory, actor="user:default")
        turn = chat_prepare(
            principal=principal, question="¿Qué horario tiene la piscina?", session_id=None
        )
        assert "respuestas cortas" not in turn.prompt.as_text()

    def test_without_consent_the_user_is_told_why(self, license):
        answer = chat_answer(
            principal=principal_for_license(license), question="lembre que prefiro respostas curtas"
        )
        assert "not agreed" in answer.answer and not Memory.objects.exists()


def token_client(license, user):
    token, _ = widget_token_issue(license=license, user_ref=user, origin=ORIGIN)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Widget {token}")
    return client


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


class TestAdminPage:
    @pytest.fixture
    def admin_client(self, client, django_user_model):
        django_user_model.objects.create_user("admin", password="pw", is_staff=True)
        client.login(username="admin", password="pw")
        return client

    def test_filter_see_events_deactivate_and_delete(self, admin_client, license):
        consent(license)
        memory = propose(license, "Prefiere <b>la piscina</b>")
        html = admin_client.get("/memories/?license=sala-m&status=active").content.decode()
        assert "Prefiere &lt;b&gt;la piscina&lt;/b&gt;" in html and "Created by test" in html

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
            "1 active</a> of 1 user"
            in admin_client.get(f"/licenses/{license.pk}/").content.decode()
        )


def test_gemini_proposals_are_validated_like_any_memory(license, settings):
    import json as _json

    from memory.models import MemoryEvent as Event
    from memory.proposals import memories_propose_from_conversation
    from tests.fakes import FakeGemini

    consent(license)
    candidates = [
        {
            "memory_type": "preference",
            "description": "Prefiere reservar por la mañana",
            "confidence": 0.8,
            "message": "siempre reservo temprano, por la mañana",
        },
        {
            "memory_type": "preference",
            "description": "Tiene alergia al polen",
            "confidence": 0.9,
            "message": "soy alérgico",
        },
        {"memory_type": "style", "description": "Usa emojis", "confidence": 0.4, "message": "😀"},
    ]
    with FakeGemini() as gemini:
        settings.GEMINI_API_KEY, settings.GEMINI_BASE_URL = "k", gemini.url
        gemini.generate_text = _json.dumps(candidates)
        remembered = memories_propose_from_conversation(
            license=license,
            user_ref="ana",
            session_id="s1",
            messages=["siempre reservo temprano, por la mañana"],
        )

    assert remembered == ["Prefiere reservar por la mañana"]
    memory = Memory.objects.get()
    assert memory.source == "conversation" and memory.source_reference == "s1"
    assert Event.objects.filter(kind="rejected").count() == 2
    config = gemini.requests[0]["body"]["generationConfig"]
    assert config["responseMimeType"] == "application/json" and "responseSchema" in config


def test_with_confirmation_on_a_proposed_memory_waits_for_the_user(license, settings):
    import json as _json

    from memory.proposals import memories_propose_from_conversation
    from tests.fakes import FakeGemini

    settings.MEMORY_CONFIRM_PROPOSALS = True
    consent(license, "default")
    candidate = {
        "memory_type": "style",
        "description": "Prefiere respuestas muy breves",
        "confidence": 0.8,
        "message": "sé breve, por favor",
    }
    with FakeGemini() as gemini:
        settings.GEMINI_API_KEY, settings.GEMINI_BASE_URL = "k", gemini.url
        gemini.generate_text = _json.dumps([candidate])
        memories_propose_from_conversation(
            license=license, user_ref="default", session_id="s", messages=["sé breve"]
        )
    memory = Memory.objects.get()
    assert memory.pending
    principal = principal_for_license(license)
    assert (
        "muy breves"
        not in chat_prepare(
            principal=principal, question="¿horario?", session_id=None
        ).prompt.system
    )

    client = token_client(license, "default")
    listed = client.get("/api/v1/me/memories").json()["memories"][0]
    assert listed["pending"] is True and listed["source_message"] == "sé breve, por favor"
    assert client.post(f"/api/v1/me/memories/{memory.pk}/confirm").json()["pending"] is False
    assert (
        "muy breves"
        in chat_prepare(principal=principal, question="¿horario?", session_id=None).prompt.system
    )
