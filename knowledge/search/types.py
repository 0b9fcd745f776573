"""The search's vocabulary: options in, results out. Shared by the selector that searches,
the service that logs searches, reranking, the API, the chat and the benchmarks."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from uuid import UUID

from django.conf import settings
from django.utils.translation import gettext_noop

from text.languages import ENGLISH, PORTUGUESE, SPANISH
from text.words import weekday_names, weekday_spans, weekdays_asked
from web.exceptions import ApplicationError

STRATEGIES = ("weighted", "rrf", "average", "vector", "keyword")
MAX_QUERY_CHARS = 4000

# Cosine similarity below which a chunk without an exact keyword match is not relevant,
# per embedding model: e5 similarities crowd between 0.7 and 0.9, Gemini's spread wider,
# so one bare number cannot serve both. e5 is calibrated on the dev splits (BENCHMARKS.md,
# "Threshold calibration"); Gemini could not be measured here (no network), so its value
# is the same rule applied to Google's published similarity range and must be re-checked.
DEFAULT_MIN_SCORE = {"e5-small@384": 0.82, "gemini-embedding-001@768": 0.60}
FALLBACK_MIN_SCORE = 0.75  # seed 004 §3.4, for models without a calibration
# A question scores lower against a passage across English and Spanish or Portuguese than
# the same question asked in the passage's language: with e5-small, 60 dev questions of the
# shared sets put into English scored their relevant passage 0.056 (XQuAD-es) and 0.072
# (FaQuAD-pt) lower at the median, and 0.82 let only 0.63 / 0.53 of them through — "no
# information" for answered questions; 42 asked as written of their passages put into
# English, 0.062 and 0.045 lower, 0.52 / 0.76 through. Their floor is this much lower
# (BENCHMARKS.md, "Questions across English"). Not between Spanish and Portuguese, whose
# off-topic questions already reach 0.82, nor for a model not measured.
ACROSS_ENGLISH_MARGIN = {"e5-small@384": 0.02}
# The passages' languages across English from a question's.
ACROSS_ENGLISH = {ENGLISH: (SPANISH, PORTUGUESE), SPANISH: (ENGLISH,), PORTUGUESE: (ENGLISH,)}
# A question naming a day of the week ("¿A qué hora cierran el sábado?", "¿Qué hay el
# martes?") over a passage naming that day in any language ("Day: Saturday · Opens: 10:00
# · Closes: 16:00") lets it through this much under its floor: the day said is often the
# question's one named thing, yet across languages the similarity fell under the floor
# (an English library's hours 0.792 for that question, a dentist's 0.790 for "¿A qué hora
# cierran el viernes?", a Portuguese bakery's 0.796 for "Are you open on Sunday?", an
# English club's weekly grid 0.790 for "¿Qué hay el martes?"; passages naming no day
# scored up to 0.797 and stay out). Not for a model not measured.
DAY_ASKED_MARGIN = {"e5-small@384": 0.03}


@dataclass(frozen=True)
class SearchOptions:
    strategy: str = ""
    top_k: int = 0
    min_score: float | None = None
    candidates: int = 0
    vector_weight: float | None = None
    rerank: bool = False
    # Results whose fused score is under this share of the best one are dropped (0: off).
    relative_cut: float | None = None
    # The floor of a passage in ``languages_across`` (its document's language, and its own
    # words: engine._passed_as_another_language): min_score less ACROSS_ENGLISH_MARGIN,
    # for a question across English from them. Set by the search (across_languages), never
    # by a caller.
    min_score_across: float | None = None
    languages_across: tuple[str, ...] = ()
    # The names, in the three languages, of the days of the week the question names, and
    # how far under its floor a passage naming one passes (DAY_ASKED_MARGIN), or saying it
    # otherwise (text.words.weekday_spans: "de lunes a viernes" says Tuesday, "daily"
    # every day). Set by the search (weekdays_asked_in), never by a caller.
    days_asked: tuple[str, ...] = ()
    day_spans: tuple[str, ...] = ()
    day_margin: float = 0.0

    def resolved(self, model: str) -> SearchOptions:
        """Fill defaults from settings and check ranges; raise a clear error for bad values."""
        options = replace(
            self,
            strategy=self.strategy or settings.SEARCH_STRATEGY,
            top_k=self.top_k or settings.SEARCH_TOP_K,
            candidates=self.candidates or settings.SEARCH_CANDIDATES,
            min_score=self.min_score if self.min_score is not None else default_min_score(model),
            relative_cut=(
                self.relative_cut if self.relative_cut is not None else settings.SEARCH_RELATIVE_CUT
            ),
        )
        if options.strategy not in STRATEGIES:
            raise ApplicationError(
                gettext_noop("Unknown strategy %(value)r; use one of %(choices)s."),
                params={"value": options.strategy, "choices": ", ".join(STRATEGIES)},
            )
        _check_range("top_k", options.top_k, 1, 50)
        _check_range("candidates", options.candidates, 5, 500)
        _check_range("min_score", options.min_score, -1.0, 1.0)
        if options.vector_weight is not None:
            _check_range("vector_weight", options.vector_weight, 0.0, 1.0)
        _check_range("relative_cut", options.relative_cut, 0.0, 1.0)
        return options


def _check_range(name: str, value: float | None, low: float, high: float) -> None:
    if value is None:  # resolved() always fills these; a None here is a bug upstream
        raise ValueError(f"{name} was not resolved")
    if not low <= value <= high:
        raise ApplicationError(
            gettext_noop("%(name)s must be between %(low)s and %(high)s; got %(value)s."),
            params={"name": name, "low": low, "high": high, "value": value},
        )


def default_min_score(model: str) -> float:
    return DEFAULT_MIN_SCORE.get(model, FALLBACK_MIN_SCORE)


def weekdays_asked_in(
    options: SearchOptions, model: str, query: str, question_language: str | None
) -> SearchOptions:
    """``options`` with the days of the week ``query`` names, each by its names in the
    three languages, and their margin (none for a model not measured)."""
    margin = DAY_ASKED_MARGIN.get(model, 0.0)
    days = weekdays_asked(query, question_language) if margin else set()
    if not days:
        return replace(options, days_asked=(), day_spans=(), day_margin=0.0)
    return replace(
        options,
        days_asked=weekday_names(days),
        day_spans=weekday_spans(days),
        day_margin=margin,
    )


def across_languages(
    options: SearchOptions, model: str, question_language: str | None
) -> SearchOptions:
    """``options`` (resolved) with the floor of passages across English from a question in
    ``question_language`` (none for a question in another language, or too short to tell,
    or a model not measured)."""
    margin = ACROSS_ENGLISH_MARGIN.get(model, 0.0)
    languages = ACROSS_ENGLISH.get(question_language or "", ()) if margin else ()
    if not languages:
        return replace(options, min_score_across=None, languages_across=())
    floor = default_min_score(model) if options.min_score is None else options.min_score
    return replace(options, min_score_across=round(floor - margin, 6), languages_across=languages)


@dataclass(frozen=True)
class SearchResult:
    chunk_id: int
    document_id: UUID
    filename: str
    source_type: str
    scope: str
    page_start: int | None
    page_end: int | None
    heading: str
    content: str
    vector_score: float | None
    keyword_score: float | None
    vector_rank: int | None
    keyword_rank: int | None
    fused_score: float
    exact_match: bool
    rerank_score: float | None = None
    # The best sentence group's similarity (knowledge/search/sentence_vectors.py); None when the
    # chunk was not a kNN candidate or has no sentence vectors yet.
    sentence_score: float | None = None
    # The chunk's similarity mixed with its best sentence group's, as the threshold reads
    # it (statement.py's sentence_aware); None when the chunk was not a kNN candidate.
    semantic_score: float | None = None


@dataclass
class SearchResponse:
    query: str
    scope: str
    model: str | None
    options: SearchOptions
    results: list[SearchResult] = field(default_factory=list)
    candidates: int = 0
    cut_by_threshold: int = 0
    latency_ms: float = 0.0
    # What was retrieved but not kept, and why ("threshold" or "far_below_best"), for the
    # playground: the best few of each, not every candidate.
    cut: list[CutResult] = field(default_factory=list)
    served_by: str = "default"  # the database alias that answered (a replica's, or the primary)
    # The query as searched when a misspelt word was read as the candidates spell it
    # (knowledge/search/spelling.py); "" when it was searched as typed.
    searched_as: str = ""


@dataclass(frozen=True)
class CutResult:
    result: SearchResult
    reason: str
