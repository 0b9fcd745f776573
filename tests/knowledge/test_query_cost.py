"""A query's cost is capped before any expensive step: crafted text costs what a question does."""

from __future__ import annotations

import pytest

from knowledge.embeddings import QUERY_MAX_TOKENS, LocalE5
from text.folding import MAX_WORD_CHARS, tame


def test_combining_marks_are_capped_and_words_shortened():
    # NFC first (a + acute is á), then at most two more marks on it.
    assert tame("a" + "\u0301" * 3970 + "b") == "á\u0301\u0301b"
    assert tame("canção ñandú") == "canção ñandú"
    assert max(len(w) for w in tame("x" * 5000 + " y").split()) == MAX_WORD_CHARS


@pytest.mark.parametrize(
    "query",
    [
        "a" + "\u0301" * 3970 + "zq",
        "hola " * 800,
        "x" * 4000,
        "¿" + "palabra" * 570,
    ],
)
def test_a_crafted_query_embeds_no_more_tokens_than_the_cap(query, monkeypatch):
    """Uncapped, these took 3-7.5 s each inside the embedder's lock (BENCHMARKS.md has the
    figures); what reaches the engine is now at most QUERY_MAX_TOKENS tokens."""
    provider = LocalE5()
    engine = provider._get()
    embedded = []
    monkeypatch.setattr(
        "knowledge.embeddings._cached_e5_query", lambda text: embedded.append(text) or (0.0,)
    )
    provider.embed_query(query)
    assert len(embedded) == 1 and 0 < engine.token_count(embedded[0]) <= QUERY_MAX_TOKENS


def test_a_normal_question_is_embedded_whole():
    provider = LocalE5()
    question = "¿A qué hora abre la piscina los sábados por la mañana?"
    assert provider._first_tokens(question, QUERY_MAX_TOKENS) == question
