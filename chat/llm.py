"""LLM providers behind one small streaming interface: the one place tests replace.

* ``GeminiLLM`` — google-genai, streaming, system instruction; safety blocks become clear
  messages.
* ``OpenAICompatibleLLM`` — any ``/v1/chat/completions`` server (Ollama, vLLM, LM Studio).
* ``ExtractiveLLM`` (chat.extractive) — the offline default, same interface, no model.

Both remote models are reached through providers (timeouts, retries, errors a
person understands).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from django.conf import settings

from providers import OpenAICompatible, ProviderError, gemini

logger = logging.getLogger(__name__)

# About how many words an answer may take, by the assistant's answer length
# (chat.models.AnswerLength): what the model is told, and what the offline answerer quotes.
ANSWER_WORDS = {"short": 60, "normal": 150, "detailed": 400}

# Rounds of tool calls before the model must answer with what it has (the orchestrator
# also caps the searches themselves).
MAX_TOOL_ROUNDS = 3


class LLMError(ProviderError):
    """The model would not answer (its safety filters); the message says why. Failures to
    reach it are providers' ``ProviderError``s, of which this is one."""


@dataclass(frozen=True)
class Source:
    number: int
    label: str  # "manual.pdf, p. 3"
    text: str  # heading path and body: what the model reads
    body: str = ""  # the passage without its heading path: what may be quoted
    # How close each of its sentence groups (knowledge.chunking.sentence_groups) is to the
    # question, from the stored sentence vectors: () when it has none.
    group_scores: tuple[float, ...] = ()
    score: float = 0.0  # the passage's own similarity to the question
    # The share of the question's words it holds, each weighted by its rarity in the
    # caller's scope (knowledge.search.word_shares): None when not measured.
    word_share: float | None = None
    # The document it comes from: a handbook's translations are one document's passages.
    document: str = ""


@dataclass
class Prompt:
    system: str
    messages: list[
        dict[str, str]
    ]  # {"role": "user" | "model", "text": ...}, last one is the question
    question: str
    language: str
    sources: list[Source] = field(default_factory=list)
    # Tools the model may call (seed 003 "Tools para LLM"): their declarations, and the
    # orchestrator's runner, which keeps every call inside the caller's scope and counts.
    tools: list[dict[str, Any]] = field(default_factory=list)
    run_tool: Callable[[str, dict[str, Any]], dict[str, Any]] | None = None
    # The question as the search read it, for the offline answerer's "no information" rule:
    # a misspelt word as the passages spell it, a short follow-up after the questions it
    # follows ("" when as asked). Sentences are still ranked by the question as asked.
    asked: str = ""
    max_words: int = 150  # about how long the answer may be (the assistant's answer length)
    min_score: float = 0.0  # the search's calibrated floor the sources passed (their model's)
    # What a question asking whether something is there names that no page of the scope
    # holds, when the pages hold the rest ("wifi" in "¿hay wifi en el gimnasio?"):
    # _Found.unheard_of in chat.services.
    unheard_of: list[str] = field(default_factory=list)
    # Every word the question names is in no page of the scope ("sauna" in "¿Cuánto cuesta
    # la sauna?"): a price or a contact quoted would be another thing's.
    names_only_unknown: bool = False

    def as_text(self) -> str:
        """The exact prompt, for the admin chat view's explainability."""
        turns = "\n\n".join(f"[{m['role']}]\n{m['text']}" for m in self.messages)
        return f"[system]\n{self.system}\n\n{turns}"


class LLM(Protocol):
    name: str

    def stream(self, prompt: Prompt) -> Iterator[str]: ...


# -- Gemini ---------------------------------------------------------------------------------


class GeminiLLM:
    def __init__(self, *, api_key: str = "", model: str = "") -> None:
        self._gemini = gemini(api_key or None)
        self._types = self._gemini.types
        self.model = model or settings.GEMINI_CHAT_MODEL
        self.name = f"gemini:{self.model}"

    def stream(self, prompt: Prompt) -> Iterator[str]:
        types = self._types
        contents = [
            types.Content(role=m["role"], parts=[types.Part(text=m["text"])])
            for m in prompt.messages
        ]
        # Each round either streams the answer or asks for tool calls; their results go
        # back as function responses and the model goes on. The runner says when the
        # calls allowed are spent (an error result); the model then answers.
        for round_number in range(MAX_TOOL_ROUNDS + 1):
            calls: list[Any] = []
            tools = round_number < MAX_TOOL_ROUNDS
            for chunk in self._gemini.generate_stream(
                model=self.model,
                contents=contents,
                config=self._config(prompt, tools=tools),
            ):
                _raise_if_blocked(chunk)
                calls += chunk.function_calls or []
                if chunk.text:
                    yield chunk.text
            if not calls or prompt.run_tool is None:
                return
            contents.append(
                types.Content(
                    role="model", parts=[types.Part(function_call=call) for call in calls]
                )
            )
            contents.append(
                types.Content(
                    role="user",
                    parts=[
                        types.Part.from_function_response(
                            name=call.name, response=prompt.run_tool(call.name, call.args or {})
                        )
                        for call in calls
                    ],
                )
            )

    def _config(self, prompt: Prompt, *, tools: bool) -> Any:  # noqa: ANN401 - google-genai's
        types = self._types
        declared = None
        if tools and prompt.tools and prompt.run_tool is not None:
            declarations = [
                types.FunctionDeclaration(
                    name=tool["name"],
                    description=tool["description"],
                    parameters_json_schema=tool["parameters"],
                )
                for tool in prompt.tools
            ]
            declared = [types.Tool(function_declarations=declarations)]
        return types.GenerateContentConfig(
            system_instruction=prompt.system, temperature=0.2, tools=declared
        )


def _raise_if_blocked(chunk: object) -> None:
    feedback = getattr(chunk, "prompt_feedback", None)
    if feedback is not None and getattr(feedback, "block_reason", None):
        raise LLMError(f"Gemini refused the question for safety reasons ({feedback.block_reason}).")
    for candidate in getattr(chunk, "candidates", None) or []:
        reason = str(getattr(candidate, "finish_reason", "") or "")
        if reason.endswith(("SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII")):
            raise LLMError("Gemini stopped the answer for safety reasons.")


# -- OpenAI-compatible -------------------------------------------------------------------------


class OpenAICompatibleLLM:
    def __init__(
        self, *, base_url: str | None = None, api_key: str | None = None, model: str = ""
    ) -> None:
        self._server = OpenAICompatible(base_url=base_url, api_key=api_key)
        self.model = model or settings.OPENAI_MODEL
        self.name = f"openai:{self.model}"

    def stream(self, prompt: Prompt) -> Iterator[str]:
        roles = {"user": "user", "model": "assistant"}
        messages: list[dict[str, Any]] = [{"role": "system", "content": prompt.system}]
        messages += [{"role": roles[m["role"]], "content": m["text"]} for m in prompt.messages]
        for round_number in range(MAX_TOOL_ROUNDS + 1):  # as in GeminiLLM
            calls: dict[int, dict[str, Any]] = {}
            body = self._body(prompt, messages, tools=round_number < MAX_TOOL_ROUNDS)
            yield from _deltas(self._server.stream_events(body), calls)
            if not calls or prompt.run_tool is None:
                return
            ordered = [calls[index] for index in sorted(calls)]
            messages.append({"role": "assistant", "content": None, "tool_calls": ordered})
            for call in ordered:
                result = prompt.run_tool(call["function"]["name"], _arguments(call))
                messages.append(
                    {"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)}
                )

    def _body(
        self, prompt: Prompt, messages: list[dict[str, Any]], *, tools: bool
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "stream": True,
            "temperature": 0.2,
            "messages": messages,
        }
        if tools and prompt.tools and prompt.run_tool is not None:
            body["tools"] = [{"type": "function", "function": tool} for tool in prompt.tools]
        return body


def _arguments(call: dict[str, Any]) -> dict[str, Any]:
    try:
        arguments = json.loads(call["function"].get("arguments") or "{}")
    except ValueError:
        return {}
    return arguments if isinstance(arguments, dict) else {}


def _deltas(events: Iterator[dict[str, Any]], calls: dict[int, dict[str, Any]]) -> Iterator[str]:
    """Text deltas of a chat-completions stream; tool calls, which arrive in pieces (the
    arguments' JSON split across chunks), are assembled into ``calls`` by index."""
    for event in events:
        choices = event.get("choices") or [{}]
        delta = choices[0].get("delta") or {}
        for piece in delta.get("tool_calls") or []:
            call = calls.setdefault(
                piece.get("index", 0),
                {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
            )
            call["id"] = piece.get("id") or call["id"]
            function = piece.get("function") or {}
            call["function"]["name"] += function.get("name") or ""
            call["function"]["arguments"] += function.get("arguments") or ""
        if delta.get("content"):
            yield delta["content"]
