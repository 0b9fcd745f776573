"""memory_search as a tool: the model asks, the orchestrator searches in the caller's scope
only, and the answer may cite what the tool found. Against local servers speaking the
Gemini and the OpenAI-compatible REST APIs."""

from __future__ import annotations

import json

import pytest

from chat.llm import GeminiLLM, OpenAICompatibleLLM
from chat.services import MAX_TOOL_CALLS, chat_answer
from licenses.principals import principal_for_license
from licenses.services import license_forge
from tests.factories import make_document
from tests.fakes import FakeGemini, FakeOpenAI

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]
SECRET = "La clave del portón de la otra sala es 4321."


@pytest.fixture
def two_licenses(marta):
    make_document(
        "# Sauna\n\nLa sauna se reserva en conserjería.", filename="sauna.md", license=marta.license
    )
    other = license_forge(user_name="Otro", machine_id="otra-sala")
    make_document(f"# Portón\n\n{SECRET}", filename="secreto.md", license=other.license)
    return marta


def searched_in(requests_bodies: list[str]) -> str:
    return " ".join(requests_bodies)


def test_gemini_calls_memory_search_and_gets_only_its_own_scope(two_licenses, settings):
    with FakeGemini() as gemini:
        settings.GEMINI_API_KEY, settings.GEMINI_BASE_URL = "test-key", gemini.url
        gemini.tool_calls.extend(
            [  # another license's words, naming its scope; then a word of its own
                {
                    "name": "memory_search",
                    "args": {"query": "portón clave", "license": "otra-sala", "scope": "otra-sala"},
                },
                {"name": "memory_search", "args": {"query": "sauna"}},
            ]
        )
        gemini.stream_pieces = ["La sauna se reserva en conserjería [2]."]
        answer = chat_answer(
            principal=principal_for_license(two_licenses.license),
            question="piscina abre",  # finds the pool; the sauna comes from the tool as [2]
            llm=GeminiLLM(),
        )

    streamed = [r for r in gemini.requests if ":streamGenerateContent" in r["path"]]
    assert len(streamed) == 3  # two calls, then the answer
    assert streamed[0]["body"]["tools"][0]["functionDeclarations"][0]["name"] == "memory_search"
    sent = [
        json.dumps(
            r["body"]["contents"][-1]["parts"][0]["functionResponse"]["response"],
            ensure_ascii=False,
        )
        for r in streamed[1:]
    ]
    assert "4321" not in sent[0] and "secreto.md" not in sent[0]  # never the other scope
    assert "sauna" in sent[1]
    assert answer.answer == "La sauna se reserva en conserjería [1]."
    assert [c.document for c in answer.citations] == ["sauna.md"]


@pytest.fixture
def openai_server(settings):
    with FakeOpenAI() as server:
        settings.LLM_PROVIDER = "openai"
        settings.OPENAI_BASE_URL, settings.OPENAI_MODEL = server.url, "llama3"
        yield server


def test_openai_tools_round_trip_with_arguments_in_pieces(two_licenses, openai_server):
    openai_server.pieces = ["Se reserva en conserjería [2]."]
    openai_server.tool_calls.append(
        {"name": "memory_search", "args": {"query": "sauna", "license": "otra-sala"}}
    )
    answer = chat_answer(
        principal=principal_for_license(two_licenses.license),
        question="piscina abre",  # finds the pool; the sauna comes from the tool as [2]
        llm=OpenAICompatibleLLM(),
    )

    first, second = (r["body"] for r in openai_server.requests)
    assert first["tools"][0]["function"]["name"] == "memory_search"
    tool_message = second["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_1"
    assert second["messages"][-2]["tool_calls"][0]["function"]["name"] == "memory_search"
    assert "sauna" in tool_message["content"] and "4321" not in tool_message["content"]
    assert [c.document for c in answer.citations] == ["sauna.md"]


def test_searches_per_answer_are_capped(two_licenses, openai_server):
    openai_server.pieces = ["Nada más [1]."]
    for _ in range(MAX_TOOL_CALLS + 1):
        openai_server.tool_calls.append({"name": "memory_search", "args": {"query": "sauna"}})
    chat_answer(
        principal=principal_for_license(two_licenses.license),
        question="piscina abre",
        llm=OpenAICompatibleLLM(),
    )

    last = openai_server.requests[-1]["body"]
    tool_answers = [json.loads(m["content"]) for m in last["messages"] if m["role"] == "tool"]
    assert len(tool_answers) == MAX_TOOL_CALLS
    assert "tools" not in last  # the last round must answer
