"""Sparse vectors for hybrid queries to a remote engine (VERTEX_HYBRID_ALPHA): a text's
words as PostgreSQL's full-text search stems them, each lexeme hashed to a dimension.

Why hashed: Vertex's sparse embeddings are (int64 dimension, value) pairs with no
vocabulary; a stable 63-bit hash of the lexeme needs none kept anywhere, and collisions at
2^63 do not happen in practice. Weights: a chunk's lexeme 1 + ln(its count in the chunk);
a question's lexemes 1 each (without the words that only ask to be told, text.words),
stemmed under every language's configuration (the question's language is not known: the
keyword branch ORs the same per-language terms, keyword.py).
"""

from __future__ import annotations

import hashlib
import math

from datastores.replicas import read_connection
from knowledge.models import TS_CONFIG
from text.words import words_to_match

# Each chunk's lexemes with their counts, "lexeme:count", read beside its embedding (the
# drain's query, knowledge/vector_sync.py): ``knowledge_embedding`` is the outer row.
CHUNK_LEXEMES_SQL = """(
    SELECT ARRAY(SELECT l.lexeme || ':' || coalesce(array_length(l.positions, 1), 1)
                   FROM unnest(c.search_vector) l)
      FROM knowledge_chunk c WHERE c.id = knowledge_embedding.chunk_id)"""


def lexeme_dimension(lexeme: str) -> int:
    return int.from_bytes(hashlib.blake2b(lexeme.encode(), digest_size=8).digest(), "big") >> 1


def chunk_sparse(lexeme_counts: list[str]) -> dict[int, float]:
    sparse: dict[int, float] = {}
    for entry in lexeme_counts:
        lexeme, _sep, count = entry.rpartition(":")
        sparse[lexeme_dimension(lexeme)] = 1 + math.log(max(1, int(count)))
    return sparse


def query_sparse(query: str) -> dict[int, float]:
    """The question's lexemes under every configuration a chunk may have been stemmed with."""
    selects = " UNION ".join(
        f"SELECT lexeme FROM unnest(to_tsvector('{config}', %(q)s))"
        for config in sorted(set(TS_CONFIG.values()))  # constants of the code
    )
    with read_connection().cursor() as cursor:
        cursor.execute(selects, {"q": words_to_match(query)})
        return {lexeme_dimension(row[0]): 1.0 for row in cursor.fetchall()}
