"""The one provider client (providers/__init__.py): each error path once, against local
servers speaking Gemini's and the OpenAI chat-completions REST APIs (tests/fakes.py), a
server that accepts and never answers, and a port nobody listens on."""

from __future__ import annotations

import socket
import threading

import pytest

from providers import (
    INTERACTIVE,
    OpenAICompatible,
    ProviderError,
    ProviderUnavailable,
    gemini,
)
from tests.fakes import FakeGemini, FakeOpenAI


def generate() -> object:
    client = gemini()
    return client.generate(
        model="gemini-2.5-flash",
        contents="¿A qué hora abre la piscina?",
        config=client.types.GenerateContentConfig(temperature=0.0),
    )


@pytest.fixture
def fake_gemini(settings):
    with FakeGemini() as fake:
        settings.GEMINI_API_KEY, settings.GEMINI_BASE_URL = "test-key", fake.url
        yield fake


@pytest.fixture
def silent_server():
    """Accepts connections and never answers: a provider that hangs."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(listener.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    listener.close()
    for connection in held:
        connection.close()


def test_a_transient_failure_is_retried_and_the_answer_returned(fake_gemini):
    fake_gemini.fail_next(503, times=INTERACTIVE[0] - 1)

    assert generate().text == fake_gemini.generate_text
    assert len(fake_gemini.requests) == INTERACTIVE[0]


@pytest.mark.parametrize(
    ("status", "message", "transient"),
    [
        (400, r"refused the request \(400\)", False),
        (401, "refused the API key", False),
        (403, "refused the API key", False),
        (404, "does not know the model", False),
        (429, "quota is exhausted", True),
        (500, r"unavailable right now \(500\)", True),
    ],
)
def test_each_answer_becomes_a_sentence_a_person_can_act_on(
    fake_gemini, status, message, transient
):
    fake_gemini.fail_next(status, times=INTERACTIVE[0])

    with pytest.raises(ProviderError, match=message) as raised:
        generate()
    assert raised.value.transient is transient
    assert raised.value.status == 502
    # Only what may pass is tried again.
    assert len(fake_gemini.requests) == (INTERACTIVE[0] if transient else 1)


def test_a_provider_that_does_not_answer_is_given_up_after_the_timeout(settings, silent_server):
    settings.GEMINI_API_KEY, settings.GEMINI_BASE_URL = "test-key", silent_server
    settings.PROVIDER_TIMEOUT_SECONDS = 0.3

    with pytest.raises(ProviderUnavailable, match="unreachable or too slow"):
        generate()


def test_a_provider_nobody_listens_for_is_unreachable(settings):
    settings.GEMINI_API_KEY, settings.GEMINI_BASE_URL = "test-key", "http://127.0.0.1:9"

    with pytest.raises(ProviderUnavailable, match="unreachable"):
        generate()


def test_the_openai_compatible_server_gets_the_same_policy(settings):
    with FakeOpenAI(status=401) as server:
        settings.OPENAI_BASE_URL, settings.OPENAI_MODEL = server.url, "llama3"
        with pytest.raises(ProviderError, match="refused the API key"):
            list(OpenAICompatible().stream_events({"model": "llama3", "messages": []}))
        assert len(server.requests) == 1  # a refused key is not retried


def test_the_openai_compatible_server_times_out_too(settings, silent_server):
    settings.OPENAI_BASE_URL, settings.OPENAI_MODEL = silent_server + "/v1", "llama3"
    settings.PROVIDER_TIMEOUT_SECONDS = 0.3

    with pytest.raises(ProviderUnavailable, match="too slow"):
        list(OpenAICompatible().stream_events({"model": "llama3", "messages": []}))
