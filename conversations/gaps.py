"""Knowledge gaps: questions the knowledge did not answer confidently, grouped by meaning.

A question joins the open or dismissed gap whose questions it is closest to on average (the
mean cosine similarity of its vector to theirs: the inner product with their mean vector,
kept as the gap's ``centroid``), when that is at least ``GAP_SIMILARITY`` for the embedding
model; otherwise it opens a gap of its own. Not the cosine to the mean's direction: the
mean of many different short questions points at "a short question", which every new one
was close to — a newcomer's tour piled twenty unrelated questions into one gap ("¿Hay
sauna?", "Aceitam cartão?", "How do I get a parking permit?"). A dismissed gap (not for
the knowledge to answer) keeps counting its askings out of the open ones, so the same test
or spam does not come back as a new gap; an answered one takes none (asked again
unanswered, it is news). The vectors are the ones retrieval already computed
(multilingual e5: the same question in Spanish, Portuguese and English lands together).
Assignments are serialised by a transaction-level advisory lock, so two askings of one new
question at once make one gap.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from django.db import connection

from conversations.models import Exchange, Gap, GapStatus

# Cosine similarity of two questions' e5 query vectors from which they are "the same
# question". Measured on hand-written phrasings (docs/architecture.md, "Knowledge gaps"):
# one question in es/pt/en, or reworded, scores 0.86-0.98; different questions about the
# same place 0.72-0.84.
GAP_SIMILARITY = {"e5-small@384": 0.86}
FALLBACK_GAP_SIMILARITY = 0.9  # a model without a measurement: group only near-duplicates
_LOCK = 0x6761_7073  # "gaps"


def gap_similarity(model: str) -> float:
    return GAP_SIMILARITY.get(model, FALLBACK_GAP_SIMILARITY)


def _unit(vector: list[float] | np.ndarray) -> np.ndarray:
    array = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(array))
    return array / norm if norm else array


def _nearest_gap_counting(vector: np.ndarray, model: str) -> tuple[int, float] | None:
    """The gap whose questions ``vector`` (a unit vector) is closest to on average, and
    that average: the inner product with their mean (pgvector's ``<#>`` is its negative)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, -(centroid <#> %s::halfvec) FROM conversations_gap "
            "WHERE status = ANY(%s) AND model = %s AND centroid IS NOT NULL "
            "ORDER BY centroid <#> %s::halfvec LIMIT 1",
            [_literal(vector), [GapStatus.OPEN, GapStatus.DISMISSED], model, _literal(vector)],
        )
        row = cursor.fetchone()
    return (int(row[0]), float(row[1])) if row else None


def as_floats(stored: object) -> list[float]:
    """A stored half-precision vector as floats (pgvector hands back a HalfVector or a list,
    depending on how the connection reads it)."""
    to_list = getattr(stored, "to_list", None)
    values: Iterable[float] = to_list() if to_list else stored  # type: ignore[assignment]
    return [float(x) for x in values]


def mean_with(centroid: object, count: int, unit: np.ndarray) -> np.ndarray:
    """The mean of a gap's ``count`` question vectors (``centroid``), one more counted."""
    if centroid is None or count < 1:
        return unit
    return (np.asarray(as_floats(centroid), dtype=np.float32) * count + unit) / (count + 1)


def _literal(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.6f}" for x in vector.tolist()) + "]"


def gap_assign(exchange: Exchange, vector: list[float], model: str) -> Gap:
    """Count ``exchange``'s question in its gap (inside the caller's transaction)."""
    unit = _unit(vector)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK])
    nearest = _nearest_gap_counting(unit, model)
    language = exchange.language
    license_id = exchange.license_id
    if nearest is not None and nearest[1] >= gap_similarity(model):
        gap = Gap.objects.select_for_update().get(pk=nearest[0])
        gap.centroid = mean_with(gap.centroid, gap.count, unit).tolist()
        gap.count += 1
        gap.last_asked = exchange.created_at
        if language not in gap.languages:
            gap.languages = [*gap.languages, language]
        if license_id is not None and license_id not in gap.license_ids:
            gap.license_ids = [*gap.license_ids, license_id]
        gap.save()
    else:
        gap = Gap.objects.create(
            model=model,
            centroid=unit.tolist(),
            count=1,
            languages=[language],
            license_ids=[license_id] if license_id else [],
            first_asked=exchange.created_at,
            last_asked=exchange.created_at,
        )
    Exchange.objects.filter(pk=exchange.pk).update(gap=gap)
    exchange.gap = gap
    return gap
