"""The deployment's vector backend (SEARCH_VECTOR_BACKEND): nearest.py's seam, chosen."""

from __future__ import annotations

from django.conf import settings

from knowledge.search.nearest import PgvectorBackend, VectorBackend
from knowledge.search.vertex import VertexBackend


def vector_backend() -> VectorBackend:
    if settings.SEARCH_VECTOR_BACKEND == "vertex":
        return VertexBackend.from_settings()
    return PgvectorBackend()


def is_remote() -> bool:
    """Whether the vectors are also held elsewhere, written through the outbox."""
    return settings.SEARCH_VECTOR_BACKEND != "pgvector"
