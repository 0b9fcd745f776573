"""One HNSW index per embedding model, over a cast of the shared ``vector`` column.

Each index is partial (``WHERE model = '…'``) and built over ``vector::halfvec(d)``: half
the memory of a float index with the same recall and 10-35% faster scans in our notes
(../shared/bench/PGVECTOR-NOTES.md). A query uses it only when it repeats the same cast
and predicate (see knowledge/search/nearest.py).

Each model has a second graph over its global vectors alone (``… AND license_id IS NULL``):
a license whose own vectors are few is searched as the global graph's nearest, walked with
nothing to filter out, beside its own vectors compared exactly (knowledge/search/plan.py).
Walking the whole graph and filtering to the scope instead visits about five vectors for
each one it keeps when the scope holds a fifth of them (BENCHMARKS.md's history, "Global vectors in a
graph of their own").
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from knowledge.embeddings import EmbeddingProvider, get_provider, provider_for_model
from knowledge.models import EmbeddingSpace
from knowledge.search.asked import what_is_asked
from web.exceptions import ApplicationError

# Model names are interpolated into DDL (index names and predicates cannot be parameters),
# so they are held to this shape.
_MODEL_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*@(\d{2,4})$")
HNSW_M = 16
# 128 rather than pgvector's 64: on a million chunks, one search in twenty ended in a
# neighbouring cluster with a graph built at 64, whatever hnsw.ef_search (recall@10
# 0.94-0.965 per scope at ef_search 200-400); at 128, 0.98-0.987, and searches as fast at
# 100k and 1M chunks (slower on a 20k corpus, where a scope's kNN walk leaves its topic
# cluster). The build takes 1.5x as long (BENCHMARKS.md's history, "Retrieval latency at scale").
HNSW_EF_CONSTRUCTION = 128


def model_dimensions(model: str) -> int:
    match = _MODEL_NAME.match(model)
    if not match:
        raise ApplicationError(
            gettext_noop("%(model)r is not a model name of the form name@dimensions."),
            params={"model": model},
        )
    return int(match.group(1))


def indexed_vector(model: str, alias: str = "") -> str:
    """The expression the model's HNSW index is built over. A query must repeat it, and
    ``model_predicate``, word for word, or the planner cannot use the partial index."""
    return f"({alias}vector::halfvec({model_dimensions(model)}))"


def model_predicate(model: str, alias: str = "") -> str:
    model_dimensions(model)  # vouches for the name's shape before it goes into SQL
    return f"{alias}model = '{model}'"


def query_vector(model: str, placeholder: str) -> str:
    """A query vector parameter cast like the indexed column."""
    return f"{placeholder}::halfvec({model_dimensions(model)})"


def exact_distance(placeholder: str, alias: str = "") -> str:
    """The cosine distance of the stored vector itself, for comparing vectors exactly: no
    index is built over it, so the planner cannot walk a graph for it, and it casts
    nothing per row. The model predicate keeps the dimensions equal."""
    return f"({alias}vector <=> {placeholder}::halfvec)"


def index_name(model: str) -> str:
    return "embedding_hnsw_" + re.sub(r"[^a-z0-9]+", "_", model)


def global_index_name(model: str) -> str:
    return index_name(model) + "_global"


GLOBAL_PREDICATE = "license_id IS NULL"


def ensure_index(model: str) -> None:
    """The model's two graphs: every vector of the model, and its global vectors alone."""
    # CONCURRENTLY keeps ingestion and search running while a big index builds; it cannot
    # run inside a transaction (tests wrap each test in one).
    concurrently = "" if connection.in_atomic_block else "CONCURRENTLY"
    graphs = [
        (index_name(model), model_predicate(model)),
        (global_index_name(model), f"{model_predicate(model)} AND {GLOBAL_PREDICATE}"),
    ]
    with connection.cursor() as cursor:
        if connection.in_atomic_block:
            # Deferred foreign-key checks queued in this transaction block index DDL.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        for name, predicate in graphs:
            if _left_invalid(cursor, name):
                # A concurrent build that was interrupted (a killed migration or re-embedding)
                # leaves an invalid index the planner ignores and IF NOT EXISTS would keep.
                cursor.execute(f"DROP INDEX {concurrently} IF EXISTS {name}")
            cursor.execute(
                f"CREATE INDEX {concurrently} IF NOT EXISTS {name} "
                f"ON knowledge_embedding USING hnsw ({indexed_vector(model)} halfvec_cosine_ops) "
                f"WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION}) "
                f"WHERE {predicate}"
            )


def _left_invalid(cursor, name: str) -> bool:  # noqa: ANN001 - a DB-API cursor
    cursor.execute("SELECT NOT indisvalid FROM pg_index WHERE indexrelid = to_regclass(%s)", [name])
    row = cursor.fetchone()
    return bool(row and row[0])


def drop_index(model: str) -> None:
    model_dimensions(model)
    with connection.cursor() as cursor:
        for name in (index_name(model), global_index_name(model)):
            cursor.execute(f"DROP INDEX IF EXISTS {name}")


def space_ensure(*, model: str) -> EmbeddingSpace:
    """The model's space with its index; the first space ever created becomes the active one."""
    space, _ = EmbeddingSpace.objects.get_or_create(
        model=model, defaults={"dimensions": model_dimensions(model)}
    )
    if not space.index_ready:
        ensure_index(model)
        EmbeddingSpace.objects.filter(pk=space.pk).update(index_ready=True)
        space.index_ready = True
    if not EmbeddingSpace.objects.filter(is_active=True).exists():
        space_activate(space=space)
    return space


def space_activate(*, space: EmbeddingSpace) -> None:
    with transaction.atomic():
        EmbeddingSpace.objects.filter(is_active=True).exclude(pk=space.pk).update(is_active=False)
        EmbeddingSpace.objects.filter(pk=space.pk).update(
            is_active=True, activated_at=timezone.now()
        )
    space.is_active = True


def active_model() -> str | None:
    return EmbeddingSpace.objects.filter(is_active=True).values_list("model", flat=True).first()


class QueryEmbedding:
    """A question embedded in the background with the active model, so that what the
    caller reads meanwhile (session, memories, rate limits) overlaps it: the local engine
    releases the GIL while it computes, and a remote one waits on the network. One
    question, one embedding, for every reader (memories and documents)."""

    # The local engine embeds one text at a time anyway (a lock); a remote one is network
    # waits, so as many at once as a web process has request threads, and some margin.
    _pool = ThreadPoolExecutor(max_workers=16, thread_name_prefix="query-embedding")

    def __init__(self, text: str) -> None:
        self.active_model = active_model()  # None until something has been embedded
        provider = provider_for_model(self.active_model) if self.active_model else get_provider()
        self.model = provider.model
        self._future = self._pool.submit(provider.embed_query, what_is_asked(text))

    def vector(self) -> list[float]:
        return self._future.result()


def active_provider() -> EmbeddingProvider:
    """The provider of the vectors searches compare against: the active space's model, or
    the configured provider before anything has been embedded."""
    model = active_model()
    return provider_for_model(model) if model else get_provider()
