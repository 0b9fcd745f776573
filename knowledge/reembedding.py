"""Move every chunk to a new embedding model without a moment of broken search (seed 004 §3.5).

1. embed every chunk with the new model *beside* the old rows (old search keeps working);
2. build the new model's HNSW index;
3. measure the new index's recall@10 against exact search on a sample;
4. switch the active model, embed what arrived meanwhile, then delete the old rows and index.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.db import connection, transaction

from knowledge import vector_sync
from knowledge.chunking import embedding_text
from knowledge.embeddings import EmbeddingProvider
from knowledge.models import Chunk, Embedding, EmbeddingSpace
from knowledge.search import sentence_vectors, vector_index

logger = logging.getLogger(__name__)


@dataclass
class ReembedReport:
    model: str
    previous_model: str | None
    embedded: int
    sentence_vectors: int
    recall_at_10: float | None
    deleted_old: int


def chunks_missing(model: str) -> int:
    return Chunk.objects.exclude(embeddings__model=model).count()


def embed_missing(
    *,
    provider: EmbeddingProvider,
    batch_size: int,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Embed chunks that have no vector for the provider's model, in bounded batches."""
    total = chunks_missing(provider.model)
    done = 0
    while True:
        batch = list(
            Chunk.objects.exclude(embeddings__model=provider.model).order_by("pk")[:batch_size]
        )
        if not batch:
            return done
        vectors = provider.embed_passages([embedding_text(c.heading, c.content) for c in batch])
        Embedding.objects.bulk_create(
            [
                Embedding(chunk=c, license_id=c.license_id, model=provider.model, vector=v)
                for c, v in zip(batch, vectors, strict=True)
            ],
            ignore_conflicts=True,  # a concurrent ingestion may have embedded the same chunk
        )
        done += len(batch)
        if progress:
            progress(done, total)


def index_recall(
    model: str, *, sample: int = 50, k: int = 10, ef_search: int | None = None
) -> float | None:
    """Recall@k of the model's HNSW index against exact search, using stored vectors as queries
    (at the search's own ef_search unless told otherwise)."""
    ef_search = ef_search or settings.SEARCH_HNSW_EF_SEARCH
    queries = list(
        Embedding.objects.filter(model=model)
        .order_by("?")
        .values_list("vector", flat=True)[:sample]
    )
    if not queries:
        return None
    hits = 0
    for query in queries:
        literal = "[" + ",".join(str(float(x)) for x in query) + "]"
        approximate = _top_ids(model, literal, k, exact=False, ef_search=ef_search)
        exact = _top_ids(model, literal, k, exact=True, ef_search=ef_search)
        hits += len(set(approximate) & set(exact))
        expected = len(exact)
    return hits / (len(queries) * expected) if expected else None


def _top_ids(model: str, literal: str, k: int, *, exact: bool, ef_search: int) -> list[int]:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL hnsw.ef_search = %s", [ef_search])
        if exact:  # force the sequential scan that defines ground truth
            cursor.execute("SET LOCAL enable_indexscan = off")
            cursor.execute("SET LOCAL enable_bitmapscan = off")
        # Same cast and predicate as the partial index, or the planner cannot use it.
        cursor.execute(
            f"SELECT id FROM knowledge_embedding WHERE {vector_index.model_predicate(model)} "
            f"ORDER BY {vector_index.indexed_vector(model)} <=> "
            f"{vector_index.query_vector(model, '%s')} LIMIT %s",
            [literal, k],
        )
        return [row[0] for row in cursor.fetchall()]


def reembed(
    *,
    provider: EmbeddingProvider,
    batch_size: int = 32,
    progress: Callable[[int, int], None] | None = None,
) -> ReembedReport:
    previous = vector_index.active_model()
    embedded = embed_missing(provider=provider, batch_size=batch_size, progress=progress)
    # Before the switch, so the new model's search is as sharp as the old one's from the start.
    sentences = sentence_vectors.sentences_embed_missing(provider=provider)
    space, _ = EmbeddingSpace.objects.get_or_create(
        model=provider.model, defaults={"dimensions": provider.dimensions}
    )
    vector_index.ensure_index(provider.model)
    EmbeddingSpace.objects.filter(pk=space.pk).update(index_ready=True)
    recall = index_recall(provider.model)
    vector_index.space_activate(space=space)
    embedded += embed_missing(provider=provider, batch_size=batch_size)  # arrivals meanwhile
    sentences += sentence_vectors.sentences_embed_missing(provider=provider)
    deleted = 0
    if previous and previous != provider.model:
        deleted, _ = Embedding.objects.filter(model=previous).delete()
        vector_index.drop_index(previous)
        EmbeddingSpace.objects.filter(model=previous).delete()
    vector_sync.drain_soon()  # a remote backend's copy follows (knowledge/vector_sync.py)
    return ReembedReport(provider.model, previous, embedded, sentences, recall, deleted)
