"""Sentence vectors: a second embedding pass that sharpens which chunk answers a question.

A chunk's one vector averages all its sentences; a question usually paraphrases one of
them. Each chunk with several sentence groups (knowledge.chunking.sentence_groups) gets a
vector per group, and the search mixes the best group's similarity into the chunk's own
(knowledge/search/statement.py). On the dev splits this lifted Portuguese and Spanish ranking more
than anything else measured (BENCHMARKS.md's history, "Sentence vectors").

The pass runs after a document is searchable, so uploads become findable as fast as
before and only then get sharper: a task per ingested document, and a periodic task that
catches up with whatever is left (a crash, an upgrade, a re-embedding). It is idempotent:
an embedding's sentence rows are written in one transaction, and only where it has none
yet.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import Exists, Max, OuterRef

from datastores.replicas import read_connection, replica_reads
from knowledge.chunking import embedding_text, sentence_groups
from knowledge.embeddings import EmbeddingProvider, embed_in_batches
from knowledge.models import Embedding, SentenceEmbedding
from knowledge.search import vector_index


def batch_embeddings() -> int:
    """Chunks handled per transaction (some six sentence groups each): bounds memory, what
    a crash would redo, and how far past its time a run goes. Twice the embedder's batch:
    32 chunks, about 10 s of embedding on two cores."""
    return 2 * settings.EMBEDDING_BATCH_SIZE


def enabled() -> bool:
    return settings.SEARCH_SENTENCE_VECTORS


def document_embed_sentences(*, document_id: uuid.UUID | str, seconds: float | None = None) -> int:
    """Sentence vectors for one document's chunks (the active model's). Returns how many
    groups were embedded. With ``seconds``, each batch is sized to end by then and the run
    stops there (a document of thousands of chunks takes hours: the task continues it in a
    new run, see ``document_sentences_left``)."""
    if not enabled():
        return 0
    provider = vector_index.active_provider()
    todo = _todo(provider.model).filter(chunk__document_id=document_id)
    until = None if seconds is None else time.monotonic() + seconds
    return _embed_all(todo, provider, until=until)


def document_sentences_left(*, document_id: uuid.UUID | str) -> bool:
    if not enabled():
        return False
    model = vector_index.active_provider().model
    return _todo(model).filter(chunk__document_id=document_id).exists()


def sentences_embed_missing(
    *,
    provider: EmbeddingProvider | None = None,
    limit: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    from_start: bool = False,
) -> int:
    """Catch up: sentence vectors for chunks that have none yet for ``provider``'s model
    (the active one unless told), at most ``limit`` chunks. Returns how many groups were
    embedded; ``progress(chunks done, chunks to do)`` after each batch. ``from_start``:
    every embedding is looked at, not only those from where the last catch-up found work."""
    if not enabled():
        return 0
    provider = provider or vector_index.active_provider()
    key = _caught_up_key(provider.model)
    todo = _todo(provider.model).filter(pk__gte=0 if from_start else cache.get(key, 0))
    stored = _embed_all(todo, provider, limit=limit, progress=progress)
    cache.set(key, _first_missing(todo), CAUGHT_UP_TTL_SECONDS)
    return stored


# The catch-up starts at the first embedding it last found without sentence vectors (at 1M
# chunks, "what is left" over every embedding took 830 ms and read the whole table, every
# 15 minutes). Forgotten after a while, so that a row committed late with a lower id than
# the mark (its id drawn before, its transaction still open then) is found by the next pass.
CAUGHT_UP_TTL_SECONDS = 6 * 3600


def catch_up_from_start(models: list[str]) -> None:
    """The next catch-ups look at every embedding of ``models`` again: for sentence vectors
    deleted below the mark (knowledge 0032 deletes those whose groups changed)."""
    cache.delete_many([_caught_up_key(model) for model in models])


def _caught_up_key(model: str) -> str:
    database = connection.settings_dict
    return f"sentence-vectors:{database['HOST']}:{database['PORT']}:{database['NAME']}:{model}"


def _first_missing(todo) -> int:  # noqa: ANN001 - a QuerySet[Embedding]
    """The lowest id still without sentence vectors, or one past the highest id."""
    first = todo.order_by("pk").values_list("pk", flat=True).first()
    if first is not None:
        return first
    return (Embedding.objects.aggregate(last=Max("pk"))["last"] or 0) + 1


def _todo(model: str):  # noqa: ANN202 - a QuerySet[Embedding]
    done = SentenceEmbedding.objects.filter(embedding=OuterRef("pk"))
    return Embedding.objects.filter(model=model).exclude(Exists(done))


def _embed_all(
    todo,  # noqa: ANN001 - a QuerySet[Embedding]
    provider: EmbeddingProvider,
    *,
    limit: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    until: float | None = None,
) -> int:
    total = todo.count() if progress else 0
    done = stored = 0
    size = batch_embeddings() if until is None else 1
    while (limit is None or done < limit) and (until is None or time.monotonic() < until):
        batch = list(todo.select_related("chunk").order_by("pk")[: _capped(size, limit, done)])
        if not batch:
            break
        started = time.monotonic()
        stored += _embed_batch(batch, provider)
        done += len(batch)
        if until is not None:
            size = _fitting(until, seconds_per_chunk=(time.monotonic() - started) / len(batch))
        if progress:
            progress(done, total)
    return stored


def _capped(size: int, limit: int | None, done: int) -> int:
    return size if limit is None else min(size, limit - done)


def _fitting(until: float, *, seconds_per_chunk: float) -> int:
    """A timed run's next batch: as many chunks as the last batch's pace fits before
    ``until`` (at least one, at most a whole batch). A run starts with one chunk: on a slow
    or busy machine a whole first batch overran the task's soft time limit, which killed
    the run and the continuation it would have queued."""
    fits = int((until - time.monotonic()) / max(seconds_per_chunk, 1e-3))
    return max(1, min(batch_embeddings(), fits))


def _embed_batch(batch: list[Embedding], provider: EmbeddingProvider) -> int:
    groups = {e.pk: sentence_groups(e.chunk.content) for e in batch}
    texts = [embedding_text(e.chunk.heading, g) for e in batch for g in groups[e.pk]]
    vectors = iter(embed_in_batches(provider, texts))
    # A chunk of one group keeps its own vector as that group's.
    rows = {e.pk: [next(vectors) for _ in groups[e.pk]] or [e.vector] for e in batch}
    with transaction.atomic():
        # Only embeddings still there and still without sentences: a forget or a concurrent
        # pass meanwhile is respected, and a retry writes nothing twice. The second read
        # runs once the locks are held, so it sees what a concurrent pass committed.
        locked = Embedding.objects.select_for_update().filter(pk__in=rows).values_list("pk")
        locked_ids = [pk for (pk,) in locked]
        done = set(
            SentenceEmbedding.objects.filter(embedding_id__in=locked_ids).values_list(
                "embedding_id", flat=True
            )
        )
        alive = [pk for pk in locked_ids if pk not in done]
        SentenceEmbedding.objects.bulk_create(
            SentenceEmbedding(embedding_id=pk, vector=v) for pk in alive for v in rows[pk]
        )
    return sum(len(groups[pk]) for pk in alive)


def group_similarities(
    *, chunk_ids: list[int], vector: list[float], model: str
) -> dict[int, list[float]]:
    """Each chunk's sentence groups' similarity to ``vector``, in the groups' order
    (knowledge.chunking.sentence_groups), from the vectors already stored: what tells the
    offline answerer which sentence of a passage answers, without embedding anything. The
    chunk ids come from a search in the caller's scope. A chunk of one group, or without
    sentence vectors yet, is absent or has one value."""
    if not chunk_ids or not enabled():
        return {}
    distance = vector_index.exact_distance("%s", alias="s.")
    with replica_reads(), read_connection().cursor() as cursor:
        cursor.execute(
            f"""SELECT e.chunk_id, 1 - {distance}
                  FROM knowledge_sentenceembedding s
                  JOIN knowledge_embedding e ON e.id = s.embedding_id
                 WHERE e.chunk_id = ANY(%s) AND e.model = %s
                 ORDER BY e.chunk_id, s.id""",
            ["[" + ",".join(f"{x:.7f}" for x in vector) + "]", chunk_ids, model],
        )
        similarities: dict[int, list[float]] = {}
        for chunk_id, similarity in cursor.fetchall():
            similarities.setdefault(chunk_id, []).append(float(similarity))
    return similarities
