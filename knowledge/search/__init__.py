"""The search engine: hybrid retrieval strictly inside the caller's scope.

The one public entry is ``search(principal=…, query=…, options=…)``; every entry point
(API, console, chat, commands) reaches it through ``knowledge.searching.knowledge_search``,
which also writes the access log. Inside:

- ``types``        options in, results out
- ``tuning``       every number the engine runs with (``SearchTuning``, from settings)
- ``engine``       the search itself: query checks, embedding, statement, cut, rerank
- ``asked``        what a question asks, as it is embedded and weighed: no greetings,
  thanks or personal data around it
- ``statement``    the one SQL statement, assembled from
  ``keyword`` (the keyword branch and the frequent words it leaves out),
  ``nearest`` (the vector backend seam: "the nearest vectors in this scope"),
  ``plan`` (how pgvector reaches them: exact, split or graph) and
  ``fusion`` (min-max fusion, threshold, relative cut)
- ``prepared``     runs the statement prepared once per database session; records what
  runs (``manage.py search --sql``)
- ``backends``     ``SEARCH_VECTOR_BACKEND`` → pgvector or ``vertex`` (Vertex AI Vector
  Search over REST, neighbours re-checked in scope), with ``sparse`` (hashed-lexeme sparse
  vectors for its hybrid queries)
- ``vector_index`` the HNSW graphs, embedding spaces, the question embedded in the background
- ``sentence_vectors`` the second embedding pass: a vector per sentence group
- ``word_shares``  how much of the question's words, weighted by rarity in the scope, each
  passage holds (what tells the offline answerer a passage misses what is asked)
- ``spelling``     a misspelt word read as the first candidates spell it (the engine
  searches again with it, and the word shares weigh the question as searched)
- ``rerank``       optional second stage (Gemini)
"""

from knowledge.search.engine import search
from knowledge.search.keyword import common_lexemes_forget
from knowledge.search.plan import scope_shapes_forget
from knowledge.search.tuning import SearchTuning
from knowledge.search.types import (
    MAX_QUERY_CHARS,
    STRATEGIES,
    CutResult,
    SearchOptions,
    SearchResponse,
    SearchResult,
)

__all__ = [
    "MAX_QUERY_CHARS",
    "STRATEGIES",
    "CutResult",
    "SearchOptions",
    "SearchResponse",
    "SearchResult",
    "SearchTuning",
    "caches_forget",
    "search",
]


def caches_forget() -> None:
    """Drop what this process keeps about the corpus (scope shapes, frequent words): after
    a corpus changed at once, or the process switched databases (tests, benchmarks)."""
    common_lexemes_forget()
    scope_shapes_forget()
