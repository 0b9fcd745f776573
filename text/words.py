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
_COMMON = frozenset(fold(word) for words in STOPWORDS.values() for word in words) | QUESTION_WORDS
_ALGORITHMS = {SPANISH: "spanish", PORTUGUESE: "portuguese", ENGLISH: "english"}
_WORD = re.compile(r"\w+")
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
