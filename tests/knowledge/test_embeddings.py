"""The Gemini provider against a local server speaking Gemini's REST API."""

from __future__ import annotations

import numpy as np
import pytest

from knowledge import embeddings
from knowledge.embeddings import EmbeddingUnavailable, GeminiEmbeddings
from portality.exceptions import ApplicationError
from tests.fakes import FakeGemini


@pytest.fixture
def gemini(settings, monkeypatch):
    with FakeGemini() as fake:
        settings.GEMINI_API_KEY = "test-key"
        settings.GEMINI_BASE_URL = fake.url
        monkeypatch.setattr(embeddings, "_providers", {})
        monkeypatch.setattr(GeminiEmbeddings, "retries", 2)
        yield fake


def test_passages_are_batched_with_document_task_type_and_unit_length(gemini):
    provider = GeminiEmbeddings()
    vectors = provider.embed_passages([f"texto {n}" for n in range(130)])

    assert provider.model == "gemini-embedding-001@768"
    assert len(vectors) == 130 and len(vectors[0]) == 768
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)  # re-normalised after truncation
    assert [len(r["body"]["requests"]) for r in gemini.requests] == [100, 30]
    request = gemini.requests[0]["body"]["requests"][0]
    assert request["taskType"] == "RETRIEVAL_DOCUMENT"
    assert request["outputDimensionality"] == 768
    assert gemini.requests[0]["key"] == "test-key"


def test_queries_use_the_query_task_type(gemini):
    GeminiEmbeddings().embed_query("¿horario de la piscina?")

    assert gemini.requests[0]["body"]["requests"][0]["taskType"] == "RETRIEVAL_QUERY"


@pytest.mark.slow
def test_quota_errors_are_retried_with_backoff(gemini):
    gemini.fail_next(429, times=2)

    assert len(GeminiEmbeddings().embed_passages(["hola"])) == 1
    assert len(gemini.requests) == 3


@pytest.mark.slow
def test_persistent_server_errors_become_a_transient_error_for_the_task(gemini):
    gemini.fail_next(503, times=3)

    with pytest.raises(EmbeddingUnavailable, match="unavailable"):
        GeminiEmbeddings().embed_passages(["hola"])


def test_a_refused_request_is_not_retried(gemini):
    gemini.fail_next(400)

    with pytest.raises(ApplicationError, match="refused"):
        GeminiEmbeddings().embed_passages(["hola"])
    assert len(gemini.requests) == 1
