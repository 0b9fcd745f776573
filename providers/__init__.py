"""The one way the product calls a model provider: Gemini (google-genai) and any
OpenAI-compatible server (Ollama, vLLM, LM Studio).

Every caller (chat, rerank, memory proposals, embeddings) goes through here, so they share
one policy:

- a timeout on every request (``PROVIDER_TIMEOUT_SECONDS``);
- retries of what may pass (HTTP 429 and 5xx, timeouts, refused or dropped connections),
  with exponential backoff and jitter (tenacity): a few for a person waiting (chat,
  rerank, a question's embedding), more for background work (a document's embeddings);
- every failure a ``ProviderError``, an ``ApplicationError`` whose sentence says what a
  person can do about it, and ``ProviderUnavailable`` when it may pass (Celery tasks retry
  those later); each retry and each failure logged once.

``GEMINI_BASE_URL`` / ``OPENAI_BASE_URL`` point the clients at a proxy, or at the tests'
local fakes of the two REST APIs (tests/fakes.py).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import json
import logging
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import httpx
import tenacity
from django.conf import settings
from django.utils.translation import gettext_noop

from web.exceptions import ApplicationError

logger = logging.getLogger(__name__)
T = TypeVar("T")

# Attempts in all (the first and its retries) and the longest wait between two.
INTERACTIVE = (3, 4.0)
BACKGROUND = (6, 20.0)


class ProviderError(ApplicationError):
    """The provider did not do what was asked; the message says why and what to do, in the
    reader's language (the provider's own words, quoted, stay as it sent them)."""

    def __init__(
        self, template: str, *, params: dict[str, Any] | None = None, transient: bool = False
    ) -> None:
        super().__init__(template, params=params, status=502)
        self.transient = transient


class ProviderUnavailable(ProviderError):
    """A failure that may pass (quota, overload, network): worth trying again later."""

    def __init__(self, template: str, *, params: dict[str, Any] | None = None) -> None:
        super().__init__(template, params=params, transient=True)


def _is_transient(status: int | None) -> bool:
    return status == 429 or (status or 0) >= 500


def provider_error(name: str, status: int | None, detail: str) -> ProviderError:
    """The sentence a person reads for an HTTP answer ``status`` from provider ``name``
    (a marked phrase: "Gemini", "The model server")."""
    detail = (detail or "").strip()[:300]
    params: dict[str, Any] = {"t_name": name, "detail": detail, "status": status}
    if status == 429:
        return ProviderUnavailable(
            gettext_noop("%(t_name)s's quota is exhausted for now; try again in a minute."),
            params=params,
        )
    # Gemini answers a key it does not know with 400 INVALID_ARGUMENT, not 401.
    if status in (401, 403) or (status == 400 and "API key not valid" in detail):
        return ProviderError(
            gettext_noop("%(t_name)s refused the API key: check it in the settings (%(detail)s)."),
            params=params,
        )
    if status == 404:
        return ProviderError(
            gettext_noop("%(t_name)s does not know the model asked for (%(detail)s)."),
            params=params,
        )
    if _is_transient(status):
        return ProviderUnavailable(
            gettext_noop("%(t_name)s is unavailable right now (%(status)s); try again soon."),
            params=params,
        )
    return ProviderError(
        gettext_noop("%(t_name)s refused the request (%(status)s): %(detail)s"), params=params
    )


def unreachable(name: str, where: str, exc: Exception) -> ProviderUnavailable:
    return ProviderUnavailable(
        gettext_noop("%(t_name)s at %(where)s is unreachable or too slow: %(error)s"),
        params={"t_name": name, "where": where, "error": str(exc)[:200]},
    )


def with_retries(call: Callable[[], T], *, background: bool = False) -> T:
    """``call()`` retried while it raises a transient ``ProviderError``."""
    attempts, longest = BACKGROUND if background else INTERACTIVE
    retrying = tenacity.Retrying(
        stop=tenacity.stop_after_attempt(attempts),
        wait=tenacity.wait_exponential_jitter(
            initial=settings.PROVIDER_BACKOFF_SECONDS,
            max=longest,
            jitter=settings.PROVIDER_BACKOFF_SECONDS,
        ),
        retry=tenacity.retry_if_exception(lambda e: getattr(e, "transient", False)),
        before_sleep=_log_retry,
        reraise=True,
    )
    try:
        return retrying(call)
    except ProviderError as exc:
        logger.error("provider call failed: %s", exc.message)
        raise


def _log_retry(state: tenacity.RetryCallState) -> None:
    error = state.outcome.exception() if state.outcome else None
    logger.warning("provider call failed (attempt %s), retrying: %s", state.attempt_number, error)


# -- Gemini ---------------------------------------------------------------------------------


class Gemini:
    """google-genai's client with the product's policy. Its own retries are off (one policy
    for every provider, here); its errors become ``ProviderError``s."""

    name = gettext_noop("Gemini")

    def __init__(self, api_key: str, base_url: str, timeout_seconds: float) -> None:
        # google-genai takes a second to import: only a process that calls Gemini pays it.
        from google import genai
        from google.genai import types

        options = types.HttpOptions(
            base_url=base_url or None,
            timeout=int(timeout_seconds * 1000),  # milliseconds
            retry_options=types.HttpRetryOptions(attempts=1),
        )
        self.types = types
        # Keep a reference: a collected Client closes its connection.
        self.client = genai.Client(api_key=api_key, http_options=options)

    def generate(self, *, model: str, contents: Any, config: Any) -> Any:  # noqa: ANN401
        return with_retries(
            lambda: self._mapped(
                lambda: self.client.models.generate_content(
                    model=model, contents=contents, config=config
                )
            )
        )

    def generate_stream(self, *, model: str, contents: Any, config: Any) -> Iterator[Any]:
        """The streamed chunks. Retried until the first chunk arrives; a failure after it
        is raised (half an answer cannot be taken back)."""

        def first() -> tuple[Any, Iterator[Any]]:
            stream = self.client.models.generate_content_stream(
                model=model, contents=contents, config=config
            )
            return next(stream, None), stream

        head, rest = with_retries(lambda: self._mapped(first))
        if head is None:
            return
        yield head
        while (chunk := self._mapped(lambda: next(rest, None))) is not None:
            yield chunk

    def embed(self, *, model: str, contents: Any, config: Any, background: bool) -> Any:  # noqa: ANN401
        return with_retries(
            lambda: self._mapped(
                lambda: self.client.models.embed_content(
                    model=model, contents=contents, config=config
                )
            ),
            background=background,
        )

    def _mapped(self, call: Callable[[], T]) -> T:
        # google-genai takes a second to import: only a process that calls Gemini pays it.
        from google.genai import errors

        try:
            return call()
        except errors.APIError as exc:
            raise provider_error(self.name, exc.code, exc.message or str(exc)) from exc
        except _transport_errors() as exc:
            where = settings.GEMINI_BASE_URL or "Google"
            raise unreachable(self.name, where, exc) from exc


@functools.cache
def _transport_errors() -> tuple[type[Exception], ...]:
    """What google-genai's HTTP transport raises for a refused, dropped or timed-out
    connection: httpx's errors, or those of httpx2, the fork newer releases use."""
    found: list[type[Exception]] = [httpx.HTTPError, OSError]
    with contextlib.suppress(ImportError):
        found.append(importlib.import_module("httpx2").HTTPError)
    return tuple(found)


_gemini = functools.lru_cache(maxsize=4)(Gemini)


def gemini(api_key: str | None = None) -> Gemini:
    """The process's Gemini client for ``api_key`` (default: GEMINI_API_KEY); a new one when
    the key or the settings change."""
    return _gemini(
        api_key or settings.GEMINI_API_KEY,
        settings.GEMINI_BASE_URL,
        settings.PROVIDER_TIMEOUT_SECONDS,
    )


# -- OpenAI-compatible -----------------------------------------------------------------------


class OpenAICompatible:
    """``POST {OPENAI_BASE_URL}/chat/completions`` with ``stream: true``, over httpx."""

    name = gettext_noop("The model server")

    def __init__(self, *, base_url: str | None = None, api_key: str | None = None) -> None:
        self.base_url = (settings.OPENAI_BASE_URL if base_url is None else base_url).rstrip("/")
        key = settings.OPENAI_API_KEY if api_key is None else api_key
        headers = {"Content-Type": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self.headers = headers

    def stream_events(self, body: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The server-sent events' JSON payloads, until ``[DONE]``. Retried until the
        answer starts, as Gemini's stream."""
        client = httpx.Client(timeout=settings.PROVIDER_TIMEOUT_SECONDS)
        try:
            response = with_retries(lambda: self._open(client, body))
            try:
                yield from self._events(response)
            finally:
                response.close()
        finally:
            client.close()

    def _open(self, client: httpx.Client, body: dict[str, Any]) -> httpx.Response:
        url = f"{self.base_url}/chat/completions"
        try:
            request = client.build_request(
                "POST", url, content=json.dumps(body), headers=self.headers
            )
            response = client.send(request, stream=True)
        except httpx.HTTPError as exc:
            raise unreachable(self.name, self.base_url, exc) from exc
        if response.status_code >= 400:
            detail = response.read().decode("utf-8", "replace")
            response.close()
            raise provider_error(self.name, response.status_code, detail)
        return response

    def _events(self, response: httpx.Response) -> Iterator[dict[str, Any]]:
        try:
            for line in response.iter_lines():
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    return
                yield json.loads(data)
        except httpx.HTTPError as exc:
            raise unreachable(self.name, self.base_url, exc) from exc
        except ValueError as exc:
            raise ProviderError(
                gettext_noop("%(t_name)s sent an answer that is not JSON: %(error)s"),
                params={"t_name": self.name, "error": str(exc)[:200]},
            ) from exc
