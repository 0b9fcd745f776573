"""Staff speaking as a license (the console's chat, the admin API) never reach an end user's
memories unless their role may read memories, and never keep one in the user's name."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from accounts.roles import role_grant
from chat.texts import STAFF_KEEP_NONE
from memory.models import Memory, MemoryEvent, MemoryType
from memory.services import Proposal, memory_propose
from tests.chat.test_trust import widget_client
from tests.memory.support import consent

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]

SECRET = "Prefiere que le llamen Capitana Nemo"


def _staff_client(django_user_model, username: str, role: str) -> APIClient:
    user = django_user_model.objects.create_user(username, password="pw-staff-123", is_staff=True)
    role_grant(username=username, role=role)
    client = APIClient()
    client.force_authenticate(user)
    return client


def _stream_events(client: APIClient, message: str) -> dict[str, list]:
    response = client.post(
        "/api/v1/chat/stream",
        {"message": message, "license": "sala-chat", "user": "victim"},
        format="json",
    )
    assert response.status_code == 200
    events: dict[str, list] = {}
    for block in b"".join(response.streaming_content).decode().strip().split("\n\n"):
        name, data = block.split("\n", 1)
        events.setdefault(name.removeprefix("event: "), []).append(
            json.loads(data.removeprefix("data: "))
        )
    return events


@pytest.fixture
def victim_memory(marta):
    consent(marta.license, user="victim")
    # A style memory goes into every prompt of its user, whatever the question.
    memory_propose(
        license=marta.license,
        user_ref="victim",
        proposal=Proposal(MemoryType.STYLE, SECRET, 0.9, "user_explicit"),
        actor="user:victim",
    )
    return marta


@pytest.mark.parametrize("role", ["support", "knowledge_editor"])
def test_a_role_without_memory_permissions_sees_no_memory_in_the_prompt(
    victim_memory, django_user_model, role
):
    events = _stream_events(
        _staff_client(django_user_model, "staff", role), "¿A qué hora abre la piscina?"
    )
    assert events["prompt"], "staff still see the prompt the answer was built from"
    assert SECRET not in json.dumps(events, ensure_ascii=False)


def test_the_owner_and_privacy_roles_see_the_memories_they_may_read(
    victim_memory, django_user_model
):
    events = _stream_events(
        _staff_client(django_user_model, "boss", "owner"), "¿A qué hora abre la piscina?"
    )
    assert SECRET in events["prompt"][0]["text"]


@pytest.mark.parametrize("role", ["support", "knowledge_editor", "owner"])
def test_no_staff_role_keeps_a_memory_in_a_user_s_name(victim_memory, django_user_model, role):
    client = _staff_client(django_user_model, "staff", role)
    before = set(Memory.objects.values_list("pk", flat=True))

    events = _stream_events(client, "Recuerda que prefiero respuestas en verso.")

    said = "".join(d["text"] for d in events["delta"])
    assert said == STAFF_KEEP_NONE["es"]
    assert set(Memory.objects.values_list("pk", flat=True)) == before
    assert not MemoryEvent.objects.exclude(actor="user:victim").exclude(actor="assistant").exists()


def test_the_end_user_still_keeps_their_own(marta):
    consent(marta.license, user="ana")
    body = (
        widget_client(marta, "ana")
        .post(
            "/api/v1/chat", {"message": "Recuerda que prefiero respuestas cortas."}, format="json"
        )
        .json()
    )
    assert body["answer"].startswith("Entendido")
    assert MemoryEvent.objects.filter(actor="user:ana", kind="created").count() == 1
