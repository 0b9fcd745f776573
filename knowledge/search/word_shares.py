"""How much of what a question names each passage holds, weighted by rarity in the scope.

"Quem inventou os logaritmos?" shares "inventou" with a passage on the Indians' logarithm
tables and "logaritmos" with every passage on mathematics; a passage that answers it names
Napier. Counting shared words treats "universidade" in a university's handbook like a
name found in one page of it. Weighting each word by its inverse document frequency
*inside the caller's scope* (as BM25 does) tells the offline answerer when the best
passages miss what the question is about, so it says it has no information instead of
quoting a neighbour: on the dev splits with half of the articles as knowledge, "no
information" on questions they do not answer rose from 0.20 to 0.46 (FaQuAD-pt) and 0.89
to 0.98 (XQuAD-es) at the same answered hits (BENCHMARKS.md, "Answers").

Words are PostgreSQL's lexemes, as the keyword branch stems them (keyword.py): a word
counts when every language keeps it (a stopword in none), with its Spanish, Portuguese
and English stems OR-ed. Document frequencies are counted in the scope's own posting lists
(the (scope, lexeme) GIN index of migration 0007), up to a cap: a word in thousands of
chunks tells little, and counting further would cost more than it tells.
"""

from __future__ import annotations

import math
from uuid import UUID

from datastores.replicas import read_connection, replica_reads
from knowledge.models import GLOBAL_SCOPE_KEY
from knowledge.search.asked import what_is_asked
from knowledge.search.keyword import QUERY_WORD_ROWS
from text.words import words_to_weigh

# A scope's chunks are counted up to this many, a word's up to FREQUENCY_CAP: past them,
# rarity is judged as if the scope held exactly this many (a word in 5% of them is common
# however large the scope is).
SCOPE_ROWS_CAP = 20_000
FREQUENCY_CAP = 1_000
# ... and as if it held this many at least: in a coworking's rules of two chunks, a word
# in both (their overlap) is no common word. Weighed by the two alone, "perro" (in both)
# weighed a quarter of "llevar" (in none), and "¿Puedo llevar a mi perro?" was "no
# information" beside "Los perros pequeños son bienvenidos los viernes". At 20, a hotel's
# "what time do I need to leave the room?" quoted the fitness room's hours.
SCOPE_ROWS_FLOOR = 10
# A word in no chunk of the scope is looked for as a prefix: its stem less one letter, this
# many kept at least ("doente" is "doen…", as "doença"; "bici" as "bicicleta").
KIN_LETTERS = 4
# ... unless the prefix is common: in more than 5% of the scope's chunks (as a word is
# common, FREQUENCY_CAP / SCOPE_ROWS_CAP), and never fewer than this many. "informa" is
# not "informática", nor "programa" "Prograd".
KIN_FEW_CHUNKS = 3

# Through the (license) index: scope_key is a generated column without one of its own.
SCOPE_ROWS = """
SELECT count(*) FROM (
    SELECT 1 FROM knowledge_chunk c
     WHERE c.license_id IS NULL OR c.license_id = %(license)s
     LIMIT %(rows_cap)s) s
"""

# A stem's kin as SQL: the stem less its last letter, KIN_LETTERS kept at least.
KIN_SQL = f"left({{stem}}, greatest({KIN_LETTERS}, length({{stem}}) - 1))"
_KIN = KIN_SQL.format(stem="s")


def kin_of(stem: str) -> str | None:
    """A stem's kin, as ``_KIN`` writes it in SQL; none for a stem under KIN_LETTERS, which
    would match too much ("dor", pain, is not "doença")."""
    return stem[: max(KIN_LETTERS, len(stem) - 1)] if len(stem) >= KIN_LETTERS else None


def chunks_matching(tsquery: str, cap: str) -> str:
    """SQL counting the scope's chunks whose keyword keys match ``tsquery``, up to ``cap``
    (an SQL expression)."""
    return f"""(SELECT count(*) FROM (
                SELECT 1 FROM knowledge_chunk c
                 WHERE pb_scoped_lexemes(c.scope_key, c.search_vector) @@ {tsquery}
                   AND c.scope_key IN (%(global_scope)s::uuid, %(scope)s::uuid)
                 LIMIT {cap}) m)"""


_WORDS = f"""
WITH query_words AS MATERIALIZED (
    SELECT u.lexeme, w.position, cfg FROM {QUERY_WORD_ROWS}
),
words AS (
    -- One row per word every language keeps, with the stems it takes.
    SELECT DISTINCT array_agg(DISTINCT lexeme ORDER BY lexeme) AS stems
      FROM query_words
     GROUP BY position
    HAVING count(DISTINCT cfg) = 3
),
scope_prefixes AS (
    SELECT pb_scope_prefix(%(global_scope)s::uuid) AS prefix
     UNION ALL
    SELECT pb_scope_prefix(%(scope)s::uuid)
),
queries AS (
    SELECT w.stems,
           (SELECT string_agg(quote_literal(p.prefix || s), ' | ')
              FROM unnest(w.stems) AS s, scope_prefixes p)::tsquery AS in_scope,
           (SELECT string_agg(quote_literal(s), ' | ') FROM unnest(w.stems) AS s)::tsquery AS bare,
           -- The stems' kin (_KIN), as prefixes.
           (SELECT string_agg(quote_literal(p.prefix || {_KIN}) || ':*', ' | ')
              FROM unnest(w.stems) AS s, scope_prefixes p
             WHERE length(s) >= {KIN_LETTERS})::tsquery AS kin_in_scope,
           (SELECT string_agg(quote_literal({_KIN}) || ':*', ' | ')
              FROM unnest(w.stems) AS s
             WHERE length(s) >= {KIN_LETTERS})::tsquery AS kin_bare
      FROM words w
),
counted AS MATERIALIZED (
    SELECT q.*, {chunks_matching("q.in_scope", "%(frequency_cap)s")} AS frequency
      FROM queries q
),
kin_counted AS MATERIALIZED (
    -- A word no chunk of the scope holds is held by the chunks holding its kin, when a
    -- few do (up to kin_cap: one more tells the prefix is common). It still weighs as a
    -- word no chunk holds: the kin says where it is, not how rare.
    SELECT q.*,
           CASE WHEN q.frequency = 0 AND q.kin_in_scope IS NOT NULL
                THEN {chunks_matching("q.kin_in_scope", "%(kin_cap)s + 1")}
                ELSE 0 END AS kin_frequency
      FROM counted q
)
SELECT q.stems,
       q.frequency,
       ARRAY(SELECT c.id FROM knowledge_chunk c
              WHERE c.id = ANY(%(chunk_ids)s)
                AND c.search_vector @@ (CASE WHEN q.kin_frequency BETWEEN 1 AND %(kin_cap)s
                                             THEN q.kin_bare ELSE q.bare END)
                AND c.scope_key IN (%(global_scope)s::uuid, %(scope)s::uuid)) AS holders
  FROM kin_counted q
"""


def question_word_shares(
    *, license_id: UUID | None, question: str, chunk_ids: list[int]
) -> dict[int, float]:
    """Each chunk's share of the question's words, each word weighted by its rarity in the
    caller's scope (global and ``license_id``'s): 1.0 holds every word, 0.0 none. The chunk
    ids come from a search in that scope, and the question is as it searched (its
    ``searched_as``: a misspelt word as the passages spell it). Empty when the question has
    no word to weigh."""
    if not chunk_ids:
        return {}
    scope = license_id or GLOBAL_SCOPE_KEY
    with replica_reads(), read_connection().cursor() as cursor:
        cursor.execute(
            SCOPE_ROWS,
            {"license": license_id, "rows_cap": SCOPE_ROWS_CAP},
        )
        scope_rows = cursor.fetchone()[0]
        cursor.execute(
            _WORDS,
            {
                "q": words_to_weigh(what_is_asked(question)),
                "global_scope": GLOBAL_SCOPE_KEY,
                "scope": scope,
                "frequency_cap": FREQUENCY_CAP,
                "kin_cap": kin_cap(scope_rows),
                "chunk_ids": chunk_ids,
            },
        )
        words = [(rarity(scope_rows, frequency), set(holders)) for _, frequency, holders in cursor]
    total = sum(weight for weight, _ in words)
    if total <= 0:
        return {}
    return {
        chunk_id: sum(weight for weight, holders in words if chunk_id in holders) / total
        for chunk_id in chunk_ids
    }


def rarity(scope_rows: int, frequency: int) -> float:
    """Inverse document frequency, as BM25 smooths it, never negative. A word no chunk of
    the scope holds weighs as one held once: often a paraphrase ("clasificado" for "es un
    grupo de"), it tells no more than the rarest word the passages do hold (tuned on the
    dev splits: weighing it more cost answered hits, ignoring it lost a third of the
    "no information" gained)."""
    rows = max(scope_rows, SCOPE_ROWS_FLOOR)
    return max(0.0, math.log((rows + 1) / (max(frequency, 1) + 0.5)))


def kin_cap(scope_rows: int) -> int:
    """The most chunks of a scope of ``scope_rows`` a word's kin may be in and still stand
    for the word: past it, the prefix is common (KIN_FEW_CHUNKS)."""
    five_percent = min(scope_rows, SCOPE_ROWS_CAP) * FREQUENCY_CAP // SCOPE_ROWS_CAP
    return max(KIN_FEW_CHUNKS, five_percent)
