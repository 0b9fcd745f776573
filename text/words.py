"""Words that say something: stopwords, question words and stems of the three languages.

Stems come from the Snowball stemmers (PyStemmer: Snowball's own C library, the algorithms
PostgreSQL's text search uses for documents; 0.2 µs a word, the pure-Python port 34 µs): "reservas" and "reservar" are both "reserv", "informação"
and "informações" both "inform". Words of a text in no known language are kept whole."""

from __future__ import annotations

import re
import threading

import Stemmer

from text.folding import fold
from text.languages import ENGLISH, PORTUGUESE, SPANISH

# The commonest words of each language: they tell sentences apart by nothing.
STOPWORDS: dict[str, frozenset[str]] = {
    SPANISH: frozenset({
        "al", "como", "con", "de", "del", "el", "en", "es", "la", "las", "le", "lo", "los",
        "muy", "más", "para", "pero", "por", "que", "se", "su", "sus", "un", "una", "y", "ya",
    }),
    PORTUGUESE: frozenset({
        "a", "ao", "as", "com", "da", "das", "de", "do", "dos", "e", "em", "foi", "mais", "na",
        "no", "não", "o", "os", "para", "pela", "pelo", "por", "que", "se", "um", "uma", "é",
    }),
    ENGLISH: frozenset({
        "an", "and", "are", "as", "at", "be", "by", "for", "from", "have", "in", "is", "it",
        "not", "of", "on", "or", "that", "the", "this", "to", "was", "which", "with",
    }),
}  # fmt: skip
# The question words themselves (folded): a question shares them with no answer.
QUESTION_WORDS = frozenset({
    "qual", "quais", "quem", "quando", "onde", "como", "cual", "cuales", "quien", "quienes",
    "cuando", "donde", "cuanto", "cuantos", "cuanta", "cuantas", "quanto", "quantos",
    "what", "which", "who", "when", "where", "how", "foi", "fue", "was", "son", "sao", "are",
})  # fmt: skip
# Words that ask to be told ("¿Qué dice el anexo?", "O que diz a norma?", "Summarize the
# contract"): a passage that answers rarely holds them, so they neither decide a keyword
# match nor count as what the question names. A passage with "anexo" was not found for
# "¿Qué dice el anexo firmado?": it lacked "dice", and its vector fell under the floor.
REQUEST_WORDS = frozenset({
    "dice", "dicen", "dime", "diga", "digame", "decir", "habla", "hablan", "trata", "tratan",
    "pone", "ponen", "menciona", "mencionan", "explica", "explican", "explicame", "cuentame",
    "resume", "resumeme", "resumir", "describe", "describeme", "describa",
    "diz", "dizem", "dizer", "fala", "falam", "fale", "explique", "resuma", "descreve",
    "descreva", "conte", "mencione",
    "say", "says", "tell", "tells", "mention", "mentions", "explain", "explains", "summarize",
    "summarise", "summarizes", "summarises", "describes",
})  # fmt: skip
_COMMON = (
    frozenset(fold(word) for words in STOPWORDS.values() for word in words)
    | QUESTION_WORDS
    | REQUEST_WORDS
)
_ALGORITHMS = {SPANISH: "spanish", PORTUGUESE: "portuguese", ENGLISH: "english"}
_WORD = re.compile(r"\w+")
_ASKING = QUESTION_WORDS | REQUEST_WORDS
_QUOTED = re.compile(r'"[^"]*"')
# A stemmer object is not thread-safe (PyStemmer's documentation): one per thread and language.
_stemmers = threading.local()


def _stemmer(language: str) -> Stemmer.Stemmer:
    cached: dict[str, Stemmer.Stemmer] = _stemmers.__dict__
    if language not in cached:
        cached[language] = Stemmer.Stemmer(_ALGORITHMS[language])
    return cached[language]


def stem(word: str, language: str | None) -> str:
    """``word``'s stem in ``language``, folded ("Sábados" → "sab"); folded whole when the
    language is none of the three."""
    lowered = word.lower()
    if language in _ALGORITHMS:
        lowered = _stemmer(language).stemWord(lowered)
    return fold(lowered)


def content_words(text: str, language: str | None) -> set[str]:
    """The stems of its words that say something: no stopword, no question word, nothing
    under three letters but figures."""
    return {
        stem(word, language)
        for word in _WORD.findall(text)
        if word.isdigit() or (len(word) > 2 and fold(word) not in _COMMON)
    }


def words_to_match(query: str) -> str:
    """``query`` without its question words and the words that only ask to be told, for
    matching words: "¿Qué dice el anexo firmado?" looks for "anexo firmado", "¿Cuánto
    cuesta la revisión?" for "cuesta la revisión" (PostgreSQL's Spanish stopwords leave out
    "cuál" and "dónde" but keep "cuánto"). Unchanged when nothing else would be left
    ("¿Qué dice?") and inside quotes, where a person asked for a phrase."""
    quoted = [match.span() for match in _QUOTED.finditer(query)]

    def asks(match: re.Match[str]) -> bool:
        inside = any(start < match.start() < end for start, end in quoted)
        return not inside and fold(match.group()) in _ASKING

    kept, position = [], 0
    for match in _WORD.finditer(query):
        if asks(match):
            kept.append(query[position : match.start()])
            position = match.end()
    kept.append(query[position:])
    rest = " ".join("".join(kept).split())
    return rest if content_words(rest, None) else query
