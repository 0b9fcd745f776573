"""Where the search asks for "the nearest vectors in this scope": the vector backend seam.

The search statement (statement.py) reads its kNN candidates from one CTE, ``semantic``,
whose rows are ``(embedding_id, chunk_id, distance)``. A backend answers with the SQL of
that CTE, its parameters and anything to send in the same round trip.

- ``pgvector`` (the default): a scan of the model's HNSW graphs or an exact comparison
  (plan.py chooses which), so the whole search stays one statement over one snapshot.
- ``vertex`` (vertex.py): Vertex AI Vector Search finds the neighbours, inside the caller's
  scope by its restricts; the statement receives their ids as a parameter and re-checks
  each against the embeddings table (model and scope) and measures its distance from the
  stored vector, so a wrong restrict can never leak and the scores are pgvector's own.

PostgreSQL stays the source of truth either way: the embeddings table keeps every vector
(the sentence scores, the re-check and a re-sync read them), and a remote backend's copy is
written through the outbox (knowledge/vector_sync.py). ``upsert`` and ``remove`` are what
the outbox's drain calls; pgvector's are no-ops, its vectors being the table's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol
from uuid import UUID

from knowledge.search import vector_index
from knowledge.search.plan import EXACT, GRAPH, SPLIT, knn_plan
from knowledge.search.tuning import SearchTuning


@dataclass(frozen=True)
class NearestQuery:
    description: str  # a comment in the statement: which way it took
    sql: str  # SELECT embedding_id, chunk_id, distance … (%(vector)s, %(license)s, %(candidates)s)
    session_sql: str = ""  # a setting sent ahead of the statement, same round trip
    params: dict[str, Any] = field(default_factory=dict)


class VectorBackendError(Exception):
    """A remote backend did not do what was asked. ``transient``: the same request may work
    later (the outbox retries either way; a lasting refusal is retried row by row)."""

    def __init__(self, message: str, *, transient: bool) -> None:
        super().__init__(message)
        self.transient = transient


@dataclass(frozen=True)
class Datapoint:
    """What a remote backend holds of an embedding: its id, vector and restricts."""

    id: int  # the embedding's
    vector: list[float]
    model: str
    license_id: UUID | None
    sparse: dict[int, float] | None = None  # hashed lexeme → weight, for hybrid queries

    @property
    def scope(self) -> str:
        return scope_token(self.license_id)


def scope_token(license_id: UUID | None) -> str:
    """A scope's restrict token: ``global`` or ``license:<uuid>``."""
    return f"license:{license_id}" if license_id else "global"


def scope_tokens(license_id: UUID | None) -> list[str]:
    """The tokens a search in this scope may see: global, and the license's own."""
    return ["global", scope_token(license_id)] if license_id else ["global"]


class VectorBackend(Protocol):
    name: str

    def nearest(
        self,
        *,
        model: str,
        query: str,
        vector: list[float],
        license_id: UUID | None,
        candidates: int,
        tuning: SearchTuning,
    ) -> NearestQuery: ...

    def upsert(self, datapoints: Sequence[Datapoint]) -> None: ...

    def remove(self, ids: Sequence[int]) -> None: ...

    def health(self) -> str:
        """What the backend holds, in a line; raises when it cannot be reached."""
        ...


# The kNN's three ways (plan.py). A walk orders by the indexed expression; an exact
# comparison by the stored vectors themselves, which no graph serves (so the planner stays
# off the graph) and which casts nothing per row (8% of a 4k-vector scan). Each select list
# repeats its ORDER BY expression so that each distance is computed once.
#
# The whole graph walked, keeping what is in scope:
_NEAREST_IN_SCOPE = """
    SELECT e.id AS embedding_id, e.chunk_id, {distance} AS distance
      FROM knowledge_embedding e
     WHERE {model_predicate}
       AND (e.license_id IS NULL OR e.license_id = %(license)s)
     ORDER BY {distance}
     LIMIT %(candidates)s"""
# The global vectors and the license's own, each part on its own and the two nearest lists
# merged: walked and compared (split), or both compared (exact). Each compared part reads
# one key of the covering (model, license) index alone (an index-only scan, migration 0012);
# one part for the whole scope would need a bitmap scan of the heap for its OR. The global
# part repeats the global graph's predicate (vector_index.GLOBAL_PREDICATE).
_NEAREST_GLOBAL_AND_OWN = """
    SELECT * FROM (
        (SELECT e.id AS embedding_id, e.chunk_id, {distance} AS distance
           FROM knowledge_embedding e
          WHERE {model_predicate} AND e.{global_predicate}
          ORDER BY {distance}
          LIMIT %(candidates)s)
         UNION ALL
        (SELECT e.id, e.chunk_id, {exact_distance}
           FROM knowledge_embedding e
          WHERE {model_predicate} AND e.license_id = %(license)s
          ORDER BY {exact_distance}
          LIMIT %(candidates)s)) nearest
     ORDER BY distance
     LIMIT %(candidates)s"""
WAYS = {
    EXACT: ("every vector in scope compared", _NEAREST_GLOBAL_AND_OWN),
    GRAPH: ("the whole graph walked", _NEAREST_IN_SCOPE),
    SPLIT: ("the global graph walked, own vectors compared", _NEAREST_GLOBAL_AND_OWN),
}


def pgvector_sql(model: str, *, way: str) -> tuple[str, str]:
    """(description, SQL) of one of plan.py's ways for ``model``.

    The model is written into the text: the planner uses a partial HNSW index only when the
    query's predicate matches the index's literally, even in a generic plan. Only these
    vouched-for fragments are formatted in; values are parameters."""
    description, template = WAYS[way]
    walked = (
        f"({vector_index.indexed_vector(model, alias='e.')} "
        f"<=> {vector_index.query_vector(model, '%(vector)s')})"
    )
    compared = vector_index.exact_distance("%(vector)s", alias="e.")
    sql = template.format(
        distance=compared if way == EXACT else walked,
        exact_distance=compared,
        model_predicate=vector_index.model_predicate(model, alias="e."),
        global_predicate=vector_index.GLOBAL_PREDICATE,
    )
    return description, sql


class PgvectorBackend:
    """The default backend: the vectors are the embeddings table's, in PostgreSQL."""

    name = "pgvector"

    def nearest(
        self,
        *,
        model: str,
        query: str,
        vector: list[float],
        license_id: UUID | None,
        candidates: int,
        tuning: SearchTuning,
    ) -> NearestQuery:
        plan = knn_plan(license_id, model, candidates, tuning)
        description, sql = pgvector_sql(model, way=plan.way)
        return NearestQuery(description, sql, session_sql=plan.session_sql())

    def upsert(self, datapoints: Sequence[Datapoint]) -> None:
        """Nothing to send: an embedding row is the datapoint."""

    def remove(self, ids: Sequence[int]) -> None:
        """Nothing to send: deleting the embedding row removed it."""

    def health(self) -> str:
        return "pgvector: the vectors are searched in PostgreSQL"
