"""How a search reaches its scope's nearest vectors. Three ways, chosen from facts about
the scope read once a minute per process:

- ``exact``: a scope of at most ``SearchTuning.exact_scan_max_rows`` vectors has every vector
  compared, its global and its own vectors each read from the covering (model, license)
  index (BENCHMARKS.md's history, "Small scopes": there the walk wanders through vectors all about
  equally far and the scan is faster, with exact results);
- ``split``: a bigger scope whose license holds at most that many vectors of its own (the
  common case: a shared knowledge base and each machine's few documents) walks the model's
  graph of global vectors, where every vector visited is in scope, and compares the
  license's own vectors exactly; the two nearest lists are merged (a small global graph is
  walked narrower than a big one). Global-only callers walk that graph alone;
- ``graph``: a license with many vectors of its own walks the model's whole graph, keeping
  what is in scope. The walk visits ``ef_search`` vectors of the whole table and keeps those
  in scope, so a scope holding 20% of the table finds about ``0.2 × ef_search`` of its own.
  When that falls short of the candidates the search wants, pgvector's iterative scan walks
  on in further rounds, which costs more than a wider first round would have: at 1M chunks,
  a scope of 20% took p50 6.7 ms at ``ef_search`` 200 and 4.8 ms at 300, with better recall
  (BENCHMARKS.md's history, "ef_search sized to the scope"). Below a share of about 15% the first
  round cannot be made wide enough to matter, and further rounds are left to do the work.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from uuid import UUID

from cachetools import TLRUCache

from datastores.replicas import read_connection
from knowledge.search import vector_index
from knowledge.search.tuning import SearchTuning

# The measurements behind SearchTuning's plan fields:
# - ef_search_margin 1.2: room above the expected count of in-scope vectors; without it a
#   search often comes up a few short and starts a second round (at 20%: 250, just enough
#   on average, p50 5.1 ms in one run and 6.9 in another; 300, 4.8 and 5.1).
# - ef_search_max 400: past it (shares under ~15%) wider rounds cost as much as further ones
#   (at 4% and 1%: ef_search 500 as fast as 200, 1,000 slower).
# - split_ef_search_min 125: a walk of the global graph keeps every vector it visits, so its
#   first round need not be as wide as a filtered walk's floor. At 1M chunks (200k global
#   vectors, 300 queries) recall@10 was 0.986-0.990 at 100, 0.989-0.996 at 125 in the same
#   time, 0.992-1.0 at 150 for 30% more.
# - small_global_graph_ef_search_min 80 up to small_global_graph_rows 50,000 (the planner's
#   estimate of global vectors): at 100k chunks (20k global vectors) recall@10 was 1.0 at
#   every width from 60 to 125, and 80 took the whole search 0.81-0.91 of 125's time; 50,000
#   is 2.5x the size where it was measured exact, 4x below the size where 60 lost recall.

EXACT, SPLIT, GRAPH = "exact", "split", "graph"


@dataclass(frozen=True)
class ScopeShape:
    small: bool  # at most exact_scan_max_rows vectors: scanned exactly
    own_few: bool  # the license's own vectors (none for a global caller) are at most that many
    share: float  # the scope's estimated fraction of the model's vectors (1.0 unless walked whole)
    # the global graph holds at most small_global_graph_rows vectors (read for split searches)
    small_global_graph: bool = False


@dataclass(frozen=True)
class KnnPlan:
    way: str  # EXACT, SPLIT or GRAPH
    ef_search: int

    @property
    def exact(self) -> bool:
        return self.way == EXACT

    def session_sql(self) -> str:
        """The setting to send with the search (same round trip); none for an exact scan."""
        return "" if self.exact else f"SET hnsw.ef_search = {int(self.ef_search)}"


def knn_plan(license_id: UUID | None, model: str, candidates: int, tuning: SearchTuning) -> KnnPlan:
    shape = scope_shape(license_id, model, tuning)
    if shape.small:
        return KnnPlan(EXACT, 0)
    if shape.own_few:
        floor = (
            tuning.small_global_graph_ef_search_min
            if shape.small_global_graph
            else tuning.split_ef_search_min
        )
        return KnnPlan(SPLIT, max(floor, math.ceil(candidates * tuning.ef_search_margin)))
    return KnnPlan(GRAPH, ef_search_for(shape.share, candidates, tuning))


def ef_search_for(share: float, candidates: int, tuning: SearchTuning) -> int:
    """The whole graph's first round wide enough to hold ``candidates`` vectors of a scope
    with this share of the table, when that is within reach; otherwise the configured width
    (SEARCH_HNSW_EF_SEARCH, 250)."""
    default = tuning.hnsw_ef_search
    if share <= 0:
        return default
    needed = math.ceil(candidates * tuning.ef_search_margin / min(share, 1.0))
    return needed if default < needed <= tuning.ef_search_max else default


_ShapeKey = tuple[str, UUID | None, int, int]
# Per scope, so as many entries as licenses search: bounded, the least recently used going
# first, each expiring at the time stored with it (the tuning's TTL when it was read).
# cachetools' caches are not thread-safe; a web process searches from several threads.
SHAPES_KEPT = 10_000
_shapes: TLRUCache[_ShapeKey, tuple[float, ScopeShape]] = TLRUCache(
    maxsize=SHAPES_KEPT, ttu=lambda _key, value, _now: value[0], timer=time.monotonic
)
_shapes_lock = threading.Lock()


def scope_shape(license_id: UUID | None, model: str, tuning: SearchTuning) -> ScopeShape:
    limit = tuning.exact_scan_max_rows
    key = (model, license_id, limit, tuning.small_global_graph_rows)
    with _shapes_lock:
        cached = _shapes.get(key)
    if cached:
        return cached[1]
    small = _scope_is_small(license_id, model, limit)
    own_few = small or _own_vectors_are_few(license_id, model, limit)
    # Only a walk of the whole graph has a width to size from the share, and only a split
    # search from the global graph's size.
    share = 1.0 if own_few else _estimated_share(license_id, model)
    split = own_few and not small
    small_global_graph = split and _global_graph_is_small(model, tuning.small_global_graph_rows)
    shape = ScopeShape(small, own_few, share, small_global_graph)
    with _shapes_lock:
        _shapes[key] = (time.monotonic() + tuning.scope_ttl_seconds, shape)
    return shape


def scope_shapes_forget() -> None:
    """Drop what was read about scopes (a corpus changed at once: tests, benchmarks)."""
    with _shapes_lock:
        _shapes.clear()


_SCOPE_ROWS = """
    SELECT 1 FROM knowledge_embedding e
     WHERE {model_predicate} AND (e.license_id IS NULL OR e.license_id = %s)
"""


def _scope_is_small(license_id: UUID | None, model: str, limit: int) -> bool:
    """Counted with the (model, license) index, up to the limit: a scope that has just grown
    is scanned exactly for up to a minute longer, still with exact results."""
    if limit <= 0:
        return False
    rows = _SCOPE_ROWS.format(model_predicate=vector_index.model_predicate(model, alias="e."))
    return _at_most(rows, license_id, limit)


def _own_vectors_are_few(license_id: UUID | None, model: str, limit: int) -> bool:
    """Whether the license's own vectors (not the global ones it also sees) are few enough
    to compare exactly beside a walk of the global graph."""
    if license_id is None:
        return True
    predicate = vector_index.model_predicate(model, alias="e.")
    rows = f"SELECT 1 FROM knowledge_embedding e WHERE {predicate} AND e.license_id = %s"
    return _at_most(rows, license_id, limit)


def _at_most(rows: str, license_id: UUID | None, limit: int) -> bool:
    """Whether ``rows`` (a select of the license's scope) are at most ``limit``: counted with
    the (model, license) index, never further than the limit."""
    with read_connection().cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM ({rows} LIMIT %s) s", [license_id, limit + 1])
        return cursor.fetchone()[0] <= limit


def _estimated_share(license_id: UUID | None, model: str) -> float:
    """The planner's estimates (from the table's statistics, kept by autovacuum): counting a
    scope of a million-row table would cost more than the searches it tunes."""
    predicate = vector_index.model_predicate(model, alias="e.")
    scope = _estimated_rows(_SCOPE_ROWS.format(model_predicate=predicate), [license_id])
    total = _estimated_rows(f"SELECT 1 FROM knowledge_embedding e WHERE {predicate}", [])
    return min(1.0, scope / total) if total > 0 else 1.0


def _global_graph_is_small(model: str, rows_at_most: int) -> bool:
    """From the planner's estimate of the model's global vectors (as ``_estimated_share``)."""
    predicate = (
        f"{vector_index.model_predicate(model, alias='e.')} AND e.{vector_index.GLOBAL_PREDICATE}"
    )
    rows = f"SELECT 1 FROM knowledge_embedding e WHERE {predicate}"
    return _estimated_rows(rows, []) <= rows_at_most


def _estimated_rows(sql: str, params: list[UUID | None]) -> float:
    with read_connection().cursor() as cursor:
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        return float(cursor.fetchone()[0][0]["Plan"]["Plan Rows"])
