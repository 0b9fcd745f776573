"""The answerer and its provider's key from the console: sealed at rest (not in a database
dump), never shown again, used by the chat, tested against local fakes that refuse a bad key
as the real APIs do, and the environment's variables winning when set."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import AuditEntry
from accounts.roles import role_grant
from chat.answerers import answerer_config, get_llm
from chat.models import ProviderSettings
from knowledge.backup import _pg
from tests.fakes import FakeGemini, FakeOpenAI

KEY = "AIzaSy-the-owners-real-looking-key-0123456789"


@pytest.fixture
def owner_client():
    get_user_model().objects.create_user("olga", password="Correct-Horse-Battery-9")
    role_grant(username="olga", role="owner")
    client = Client()
    client.force_login(get_user_model().objects.get(username="olga"))
    return client


@pytest.fixture
def gemini(settings):
    with FakeGemini() as fake:
        settings.GEMINI_API_KEY, settings.GEMINI_BASE_URL = "", fake.url
        settings.LLM_PROVIDER = "extractive"
        fake.valid_keys = {KEY}
        yield fake


def save(client: Client, **fields):
    body = {"answerer": "gemini", "gemini_model": "", "openai_base_url": "", "openai_model": ""}
    return client.post("/chat/providers/", {**body, **fields})


@pytest.mark.django_db(transaction=True)
def test_a_saved_key_is_sealed_used_and_never_shown(owner_client, gemini, tmp_path):
    response = save(owner_client, gemini_key=KEY)

    assert response.status_code == 302
    row = ProviderSettings.objects.get()
    assert row.gemini_key_sealed and KEY not in row.gemini_key_sealed
    dump = tmp_path / "plain.sql"
    _pg("pg_dump", "--format=plain", f"--file={dump}")
    assert KEY not in dump.read_text() and "gemini_key_sealed" in dump.read_text()
    page = owner_client.get("/chat/providers/").content.decode()
    assert KEY not in page and "A key is saved" in page
    entry = AuditEntry.objects.get(action="providers.changed")
    assert entry.actor == "olga" and entry.details["gemini_key"] == "changed"
    assert KEY not in str(entry.details)
    save(owner_client)  # the same settings again, the key left blank: no change to record
    assert AuditEntry.objects.filter(action="providers.changed").count() == 1

    config = answerer_config()
    assert (config.provider, config.gemini_key) == ("gemini", KEY)
    assert "".join(get_llm().stream(_prompt())) and gemini.requests[-1]["key"] == KEY


@pytest.mark.django_db
@pytest.mark.slow  # over a second: two clients of google-genai
def test_test_connection_reports_success_and_a_refused_key_in_the_admins_language(
    owner_client, gemini
):
    ok = owner_client.post(
        "/chat/providers/", {"answerer": "gemini", "gemini_key": KEY, "test": "1"}
    ).content.decode()
    assert "the connection works" in ok
    assert not ProviderSettings.objects.exists()  # testing saves nothing

    refused = owner_client.post(
        "/chat/providers/",
        {"answerer": "gemini", "gemini_key": "AIza-wrong", "test": "1"},
        HTTP_ACCEPT_LANGUAGE="es",
    ).content.decode()
    assert "rechazó la clave de API" in refused and "API key not valid" in refused


@pytest.mark.django_db
def test_an_openai_compatible_server_is_tested_with_its_key(owner_client):
    with FakeOpenAI() as server:
        server.api_key = "sk-local"
        fields = {"answerer": "openai", "openai_base_url": server.url, "openai_model": "llama3"}
        refused = owner_client.post(
            "/chat/providers/", {**fields, "openai_key": "sk-wrong", "test": "1"},
            HTTP_ACCEPT_LANGUAGE="pt-BR",
        ).content.decode()  # fmt: skip
        ok = owner_client.post(
            "/chat/providers/", {**fields, "openai_key": "sk-local", "test": "1"}
        ).content.decode()
        save(owner_client, **fields, openai_key="sk-local")
        answer = "".join(get_llm().stream(_prompt()))

    assert "recusou a chave de API" in refused
    assert "the connection works" in ok
    assert answer and server.requests[-1]["auth"] == "Bearer sk-local"


@pytest.mark.django_db
def test_the_environment_wins_and_the_page_says_so(owner_client, gemini, settings):
    settings.GEMINI_API_KEY = "from-the-environment"
    settings.PROVIDER_SETTINGS_FROM_ENV = frozenset({"GEMINI_API_KEY"})
    save(owner_client, gemini_key=KEY)

    page = owner_client.get("/chat/providers/").content.decode()

    assert answerer_config().gemini_key == "from-the-environment"
    assert "Set by GEMINI_API_KEY in the environment" in page


@pytest.mark.django_db
def test_a_key_sealed_under_another_secret_is_asked_for_again(owner_client, gemini, settings):
    save(owner_client, gemini_key=KEY)
    settings.SECRET_KEY = "another-secret-key-" * 3

    config = answerer_config()

    assert config.unreadable_keys == ("GEMINI_API_KEY",) and config.gemini_key == ""
    owner_client.force_login(get_user_model().objects.get(username="olga"))  # sessions too
    assert "cannot be opened" in owner_client.get("/chat/providers/").content.decode()


@pytest.mark.django_db
def test_removing_a_key_and_roles_without_the_permission(owner_client, gemini):
    save(owner_client, gemini_key=KEY)
    save(owner_client, answerer="", forget_gemini_key="on")
    assert ProviderSettings.objects.get().gemini_key_sealed == ""
    assert AuditEntry.objects.filter(details__gemini_key="removed").exists()

    get_user_model().objects.create_user("kim", password="x")
    role_grant(username="kim", role="knowledge_editor")
    kim = Client()
    kim.force_login(get_user_model().objects.get(username="kim"))
    assert kim.get("/chat/providers/").status_code == 403


def _prompt():
    from chat.llm import Prompt

    return Prompt(
        system="Responde.",
        messages=[{"role": "user", "text": "¿Horario?"}],
        question="¿Horario?",
        language="es",
    )
