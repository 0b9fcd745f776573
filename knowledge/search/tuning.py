"""Every number the search engine runs with, in one frozen value.

Deployment settings (``SEARCH_*`` environment variables) and the engine's own measured
constants live side by side here, each constant with the measurement that chose it. A
search is given one ``SearchTuning`` (``SearchTuning.from_settings()`` unless the caller
passes another, as tests and benchmarks do); nothing in the engine reads a module global
that somebody else could overwrite.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from django.conf import settings


@dataclass(frozen=True)
class SearchTuning:
    # -- from settings (docs/configuration.md) ---------------------------------------------
    vector_weight: float = 0.6
    weights_by_source_type: MappingProxyType[str, float] = field(
        default_factory=lambda: MappingProxyType({})
    )
    # Share of a kNN candidate's vector score taken from its best sentence group.
    sentence_weight: float = 0.7
    # Whether sentence vectors are embedded and read at all (a pipeline switch).
    sentence_vectors: bool = True
    hnsw_ef_search: int = 250
    exact_scan_max_rows: int = 5_000
    prepared_statements: bool = True

    # -- fusion -----------------------------------------------------------------------------
    rrf_k: int = 60

    # -- keyword branch ---------------------------------------------------------------------
    # A safety cap on the rows each keyword branch ranks (a query whose terms are all
    # frequent would otherwise rank every chunk).
    keyword_rank_cap: int = 2000
    # When at least this many in-scope chunks (and at least as many as the caller asked
    # for) contain every informative query word, only they are ranked (statement.py).
    keyword_every_term_min: int = 20
    # Lexemes in more than this share of chunks, and in more chunks than
    # ``common_lexeme_min_rows``, are left out of queries (keyword.py).
    common_lexeme_share: float = 0.05
    common_lexeme_min_rows: int = 2000
    common_lexemes_ttl_seconds: float = 300.0

    # -- the kNN's plan (plan.py says how each was measured) --------------------------------
    scope_ttl_seconds: float = 60.0
    ef_search_margin: float = 1.2
    ef_search_max: int = 400
    split_ef_search_min: int = 125
    small_global_graph_ef_search_min: int = 80
    small_global_graph_rows: int = 50_000

    @classmethod
    def from_settings(cls, **overrides: Any) -> SearchTuning:
        """The deployment's tuning (``overrides``: fields to replace, for tests and benchmarks)."""
        values: dict[str, Any] = {
            "vector_weight": settings.SEARCH_VECTOR_WEIGHT,
            "weights_by_source_type": MappingProxyType(
                dict(settings.SEARCH_WEIGHTS_BY_SOURCE_TYPE)
            ),
            "sentence_weight": settings.SEARCH_SENTENCE_WEIGHT,
            "sentence_vectors": settings.SEARCH_SENTENCE_VECTORS,
            "hnsw_ef_search": settings.SEARCH_HNSW_EF_SEARCH,
            "exact_scan_max_rows": settings.SEARCH_EXACT_SCAN_MAX_ROWS,
            "prepared_statements": settings.SEARCH_PREPARED_STATEMENTS,
        }
        return cls(**{**values, **overrides})

    @property
    def effective_sentence_weight(self) -> float:
        """What the statement mixes in: nothing when sentence vectors are off."""
        return self.sentence_weight if self.sentence_vectors else 0.0
