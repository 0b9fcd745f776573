"""How the two retrievers' lists become one ranking, and which results are kept.

In the statement: each retriever's scores are normalised over its own list (missing from a
list counts 0) and fused by the strategy (weighted by default, its weight tuned on
the dev splits); a chunk passes the threshold (calibrated per model, types.DEFAULT_MIN_SCORE)
on its semantic score — its similarity mixed with its best sentence group's, as the ranking
reads it — or by containing every query term. On its own similarity, an FAQ whose chunk
holds four questions failed "Are pets allowed?" (0.818) although the pets answer's sentence
scored 0.860. After the statement, the relative cut drops results far below the best one.
"""

from __future__ import annotations

from knowledge.search.tuning import SearchTuning
from knowledge.search.types import SearchResult

# Reads ``sentence_aware`` (the kNN candidates) and ``keyword`` (the keyword candidates);
# yields ``fused``, one row per candidate with everything the results show.
FUSION_CTES = """
candidates AS (
    SELECT COALESCE(s.chunk_id, k.chunk_id) AS chunk_id,
           s.vector_score, s.sentence_score, s.semantic_score, s.rank AS vector_rank,
           k.score AS keyword_score, k.rank AS keyword_rank
      FROM (SELECT *, row_number() OVER (ORDER BY semantic_score DESC, distance) AS rank
              FROM sentence_aware) s
      FULL OUTER JOIN (SELECT chunk_id, score, row_number() OVER (ORDER BY score DESC) AS rank FROM keyword) k
        ON k.chunk_id = s.chunk_id
),
scored AS (
    -- Everything the results show is read here, once per candidate; the final SELECT only
    -- adds the license name (a second chunk and document lookup cost ~0.5 ms).
    SELECT cand.*, c.document_id, d.created_at AS document_created_at,
           c.content, c.heading, c.page_start, c.page_end, d.filename, d.source_type,
           d.license_id AS document_license_id,
           -- the floor of a passage, lower across English and Spanish or Portuguese from
           -- the question (types.ACROSS_ENGLISH_MARGIN), and lower still when it names a
           -- day of the week the question names (types.DAY_ASKED_MARGIN)
           CASE WHEN c.ts_config = ANY (%(configs_across)s::text[])
                THEN %(min_score_across)s::float8 ELSE %(min_score)s::float8 END
               - CASE WHEN c.search_vector @@ t.days THEN %(day_margin)s::float8 ELSE 0 END
               AS score_floor,
           c.search_vector @@ t.strict AS exact_match,
           COALESCE(c.search_vector @@ t.days, false) AS names_a_day_asked,
           -- Normalised over each retriever's own list; missing from a list counts 0. Cosine
           -- scores crowd into a few hundredths: min-max spreads them. ts_rank knows no word
           -- rarity, so near-equal keyword scores stay near-equal (a share of the best):
           -- min-max made 0.0186 against 0.0164 a whole point of fusion, and the opening
           -- hours of the front desk beat the pool's for "¿a qué hora abre la pileta?".
           CASE WHEN semantic_score IS NULL THEN 0 ELSE COALESCE(
               (semantic_score - min(semantic_score) OVER ())
               / NULLIF(max(semantic_score) OVER () - min(semantic_score) OVER (), 0), 1) END AS vector_norm,
           CASE WHEN keyword_score IS NULL THEN 0 ELSE COALESCE(
               keyword_score / NULLIF(max(keyword_score) OVER (), 0), 1) END AS keyword_norm,
           COALESCE((%(type_weights)s::jsonb ->> d.source_type)::float, %(vector_weight)s) AS w
      FROM candidates cand
      JOIN knowledge_chunk c ON c.id = cand.chunk_id
      JOIN knowledge_document d ON d.id = c.document_id,
           terms t
),
fused AS (
    SELECT *,
           CASE %(strategy)s
               WHEN 'rrf' THEN COALESCE(1.0 / ({rrf_k} + vector_rank), 0) + COALESCE(1.0 / ({rrf_k} + keyword_rank), 0)
               WHEN 'weighted' THEN w * vector_norm + (1 - w) * keyword_norm
               WHEN 'average' THEN (vector_norm + keyword_norm) / 2
               WHEN 'vector' THEN semantic_score
               WHEN 'keyword' THEN keyword_score
           END AS fused_score,
           CASE %(strategy)s
               WHEN 'vector' THEN COALESCE(semantic_score >= score_floor, false)
               WHEN 'keyword' THEN keyword_score IS NOT NULL
               ELSE COALESCE(semantic_score >= score_floor, false) OR exact_match
           END AS passes
      FROM scored
)"""


def fusion_ctes(tuning: SearchTuning) -> str:
    return FUSION_CTES.format(rrf_k=int(tuning.rrf_k))


def relative_cut(
    results: list[SearchResult], share: float
) -> tuple[list[SearchResult], list[SearchResult]]:
    """(kept, cut): keep results whose fused score is at least ``share`` of the best one's.
    On the dev splits, 0.3 drops 0.3-0.6% of relevant passages and 14-20% of the others
    (BENCHMARKS.md)."""
    if not results or share <= 0:
        return results, []
    floor = share * max(r.fused_score for r in results)
    return [r for r in results if r.fused_score >= floor], [
        r for r in results if r.fused_score < floor
    ]
