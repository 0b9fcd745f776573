"""The keyword branch of the search statement, and the frequent words it leaves out.

Its CTEs are bitmap scans of a GIN index whose keys are (scope, lexeme) pairs (migration
0007), so only the posting lists of the caller's scope are read. Their cost grows with the
number of rows they rank, so words in over 5% of chunks are left out, chunks with every
word are ranked alone when there are enough of them, and at most
``SearchTuning.keyword_rank_cap`` rows are ranked per branch.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from datastores.replicas import read_connection
from knowledge.search.tuning import SearchTuning

# The question's words as each language stems them, a row per (lexeme, position, language);
# the same for the keyword branch and for word_shares.py.
QUERY_WORD_ROWS = """unnest(ARRAY['pb_spanish', 'pb_portuguese', 'pb_english']::regconfig[]) AS cfg,
           unnest(to_tsvector(cfg, %(q)s)) AS u,
           unnest(u.positions) AS w(position)"""

# The query's terms, and the two ranked branches. Their rows: (chunk_id, score) in
# ``keyword``, ``terms.strict`` for the exact-match test of the fusion.
#
# Headings (A) and body (B) count alike; normalisation 1 divides by 1 + log(length). Tuned
# on the dev splits: ts_rank_cd, which scores proximity, is far worse for OR-ed terms, and
# so are normalisations 2 and 8. The keys carry the scope; scope_key is still checked on
# the row, so even two scopes whose key prefixes collided could not see each other's chunks.
KEYWORD_CTES = """
query_words AS MATERIALIZED (
    -- The query's words as each language stems them; the parser is the same for all three,
    -- so a word has the same position in each. Stopwords of any language are left out.
    SELECT u.lexeme, w.position, cfg, u.lexeme = ANY (%(common_lexemes)s::text[]) AS common
      FROM {query_word_rows}
),
scope_prefixes AS (
    -- How the caller's scopes begin their keyword index keys (pb_scoped_lexemes, migration 0007).
    SELECT pb_scope_prefix(%(global_scope)s::uuid) AS prefix
     UNION ALL
    SELECT pb_scope_prefix(%(scope)s::uuid)
),
informative_words AS (
    -- A word every language keeps (no stopword anywhere) and none finds common, with the
    -- stems it may take inside the scope's keys.
    SELECT DISTINCT '(' || string_agg(DISTINCT quote_literal(p.prefix || qw.lexeme), ' | ') || ')' AS stems
      FROM query_words qw, scope_prefixes p
     GROUP BY qw.position
    HAVING count(DISTINCT qw.cfg) = 3 AND NOT bool_or(qw.common)
),
terms AS (
    SELECT
        -- loose: any informative query term, stemmed per language and OR-ed; the rank
        -- rewards chunks sharing more terms.
        (SELECT string_agg(DISTINCT quote_literal(lexeme), ' | ') FROM query_words WHERE NOT common
        )::tsquery AS loose,
        -- the same, and every informative word, as keys of the caller's scope
        (SELECT string_agg(DISTINCT quote_literal(p.prefix || lexeme), ' | ')
           FROM query_words, scope_prefixes p
          WHERE NOT common
        )::tsquery AS any_in_scope,
        (SELECT string_agg(stems, ' & ') FROM informative_words)::tsquery AS every_in_scope,
        -- strict: every term named present (websearch syntax: quotes, OR, -word): an exact
        -- hit. Of the words that name (text.words.words_to_hold): "Can I bring my dog?"
        -- is answered by "Dogs must be kept on a lead", which never says "bring".
        websearch_to_tsquery('pb_spanish', %(held)s)
            || websearch_to_tsquery('pb_portuguese', %(held)s)
            || websearch_to_tsquery('pb_english', %(held)s)
            || websearch_to_tsquery('pb_simple', %(held)s)
            AS strict,
        -- a day of the week the question names, in any language, or how a passage says
        -- it otherwise ("martes or … or lunes viernes or daily"; types.DAY_ASKED_MARGIN):
        -- none when it names no day
        CASE WHEN %(days_asked)s <> '' THEN
            websearch_to_tsquery('pb_spanish', %(days_asked)s)
            || websearch_to_tsquery('pb_portuguese', %(days_asked)s)
            || websearch_to_tsquery('pb_english', %(days_asked)s) END AS days
),
every_term AS MATERIALIZED (
    SELECT m.chunk_id, ts_rank('{{0.1, 0.2, 1.0, 1.0}}', m.search_vector, t.loose, 1) AS score
      FROM (SELECT c.id AS chunk_id, c.search_vector
              FROM knowledge_chunk c, terms t
             WHERE pb_scoped_lexemes(c.scope_key, c.search_vector) @@ t.every_in_scope
               AND c.scope_key IN (%(global_scope)s::uuid, %(scope)s::uuid)
             LIMIT {rank_cap}) m, terms t
),
some_term AS MATERIALIZED (
    -- Chunks with only some of the words compete only when too few have them all: ranking
    -- every chunk that shares one frequent word with the query is the slow case at scale,
    -- and such chunks rarely outrank those with every word.
    SELECT m.chunk_id, ts_rank('{{0.1, 0.2, 1.0, 1.0}}', m.search_vector, t.loose, 1) AS score
      FROM (SELECT c.id AS chunk_id, c.search_vector
              FROM knowledge_chunk c, terms t
             WHERE pb_scoped_lexemes(c.scope_key, c.search_vector) @@ t.any_in_scope
               AND c.scope_key IN (%(global_scope)s::uuid, %(scope)s::uuid)
               AND (SELECT count(*) FROM every_term) < %(every_term_min)s
             LIMIT {rank_cap}) m, terms t
),
keyword AS MATERIALIZED (
    SELECT chunk_id, score FROM every_term
     UNION
    SELECT chunk_id, score FROM some_term
     ORDER BY score DESC
     LIMIT %(candidates)s
)"""


def keyword_ctes(tuning: SearchTuning) -> str:
    return KEYWORD_CTES.format(
        rank_cap=int(tuning.keyword_rank_cap), query_word_rows=QUERY_WORD_ROWS
    )


@dataclass(frozen=True)
class CommonLexemes:
    lexemes: list[str]
    # The same as PostgreSQL writes a text[]: each search sends this string, which the
    # server parses back exactly. Sent as a list, the driver quoted each of the ~200
    # lexemes of a 100k-chunk corpus on every search (0.29 ms of a ~5 ms search).
    literal: str
    expires: float


_cache: dict[tuple[float, int], CommonLexemes] = {}


def common_lexemes(tuning: SearchTuning) -> CommonLexemes:
    """Lexemes the keyword branch leaves out of queries: in more than
    ``common_lexeme_share`` of chunks (5%), and in more chunks than the rank cap.

    Such words carry as little information as stopwords (BM25 gives them almost no weight)
    and are the slow case: ranking every chunk that contains them. Both conditions matter:
    in a small corpus a topical word easily reaches 5% (FaQuAD's 250 passages: 156 such
    lexemes, and dropping them cost 0.10 of keyword R@1), yet ranking its few matches costs
    nothing. ANALYZE's element statistics of the tsvector column name them without a scan;
    they change only when ANALYZE runs, so each process keeps them for a few minutes
    (reading pg_stats in the search statement cost ~1 ms per search).
    """
    key = (tuning.common_lexeme_share, tuning.common_lexeme_min_rows)
    cached = _cache.get(key)
    if cached and cached.expires > time.monotonic():
        return cached
    with read_connection().cursor() as cursor:
        cursor.execute(
            """
            SELECT words, words::text
              FROM (SELECT coalesce(array_agg(e.lexeme), '{}') AS words
                      FROM pg_stats s,
                           unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs)
                               AS e(lexeme, freq)
                     WHERE s.schemaname = current_schema() AND s.tablename = 'knowledge_chunk'
                       AND s.attname = 'search_vector' AND e.lexeme IS NOT NULL
                       AND e.freq > %s
                       AND e.freq * (SELECT reltuples FROM pg_class
                                      WHERE oid = 'knowledge_chunk'::regclass) > %s) common
            """,
            [tuning.common_lexeme_share, tuning.common_lexeme_min_rows],
        )
        lexemes, literal = cursor.fetchone()
    read = CommonLexemes(
        list(lexemes), literal, time.monotonic() + tuning.common_lexemes_ttl_seconds
    )
    _cache[key] = read
    return read


def common_lexemes_forget() -> None:
    """Drop the cached lists (after ANALYZE in tests and benchmarks)."""
    _cache.clear()
