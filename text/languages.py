"""The languages of the product, in one place.

People write and read Spanish, Portuguese and English. Two spellings of the same three are
needed, and only these two:

- ``LANGUAGES`` — ISO 639-1 codes (``es``, ``pt``, ``en``): the language of a question, an
  answer, a document or a memory. Portuguese is ``pt`` here: the assistant reads European
  and Brazilian Portuguese alike and writes Brazilian.
- ``CONSOLE_LANGUAGES`` — Django's language codes for the console's catalogs (``pt-br``:
  its texts are Brazilian Portuguese), with the name each language gives itself.

``console_language`` and ``content_language`` convert between them; ``detect_language``
tells which of the three a text is in.
"""

from __future__ import annotations

import functools
import re

from py3langid.langid import MODEL_FILE, LanguageIdentifier

SPANISH, PORTUGUESE, ENGLISH = "es", "pt", "en"
LANGUAGES: tuple[str, ...] = (SPANISH, PORTUGUESE, ENGLISH)
# What the assistant tells a model the answer's language is.
LANGUAGE_NAMES = {SPANISH: "Spanish", PORTUGUESE: "Portuguese (Brazil)", ENGLISH: "English"}

CONSOLE_LANGUAGES: tuple[tuple[str, str], ...] = (
    ("en", "English"),
    ("es", "Español"),
    ("pt-br", "Português (Brasil)"),
)
_CONSOLE_BY_LANGUAGE = {ENGLISH: "en", SPANISH: "es", PORTUGUESE: "pt-br"}


def console_language(language: str) -> str:
    """``pt`` → ``pt-br``: the console's code for a content language (English otherwise)."""
    return _CONSOLE_BY_LANGUAGE.get(language, "en")


def content_language(code: str | None) -> str | None:
    """``pt-BR``, ``pt_BR``, ``pt-pt``, ``es-419``… → ``pt`` / ``es``; None when the code is
    none of the three."""
    primary = (code or "").strip().lower().replace("_", "-").split("-")[0]
    return primary if primary in LANGUAGES else None


# Which of the three a text is in, by py3langid (langid.py's model of 97 languages, n-grams
# of bytes, naive Bayes: a fraction of a millisecond on a question, no download). On 400
# XQuAD-es and 400 FaQuAD-pt questions (opening "¿" removed) and 40 English ones: 400, 398
# and 40 right, none wrong (the word lists it replaced: 388 / 394 / 39); on their first four
# words 398 / 376 / 40, 2 wrong (`python -m tests.bench.language_detection`).
_ENOUGH_CHARS = 20_000  # a document's language is plain from its first pages
_SURE = 0.6  # the best of the three's share of their three probabilities
_ANOTHER_LANGUAGE_SURE = 0.8
# Short Portuguese and Spanish questions often score as Galician or Catalan: those two do
# not count as "another language".
_NEIGHBOURS = frozenset({"gl", "ca"})


# Words typed on a phone that only one of the three writes, read in full before the n-grams
# weigh them: "vc sabe qnd abre a piscina?" has too few letters of Portuguese otherwise
# (Occitan by a nose). Those two languages share "q", "pq" and "tb": they stay as typed.
_PHONE_SPELLINGS = {
    # Portuguese
    "vc": "você", "vcs": "vocês", "qnd": "quando", "qdo": "quando", "qnt": "quanto",
    "qto": "quanto", "tbm": "também", "hj": "hoje", "obg": "obrigado", "obgd": "obrigado",
    "blz": "beleza", "vlw": "valeu", "cmg": "comigo", "agr": "agora", "oq": "o que",
    "nao": "não", "voce": "você", "tá": "está",
    # Spanish
    "xq": "por qué", "dnd": "dónde", "xfa": "por favor", "tmb": "también", "tqm": "te quiero",
    "ntp": "no te preocupes", "salu2": "saludos",
    # English
    "pls": "please", "plz": "please", "thx": "thanks", "ur": "your",
}  # fmt: skip
_WORD = re.compile(r"\w+")


def _as_spelt(text: str) -> str:
    return _WORD.sub(lambda m: _PHONE_SPELLINGS.get(m.group().lower(), m.group()), text)


@functools.cache
def _identifier() -> LanguageIdentifier:
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def detect_language(text: str) -> str | None:
    """es, pt or en; None when the text is in another language, or too short to tell (a
    lone "piscina" is Spanish, Portuguese and Italian alike)."""
    if not text.strip():
        return None
    probabilities = dict(_identifier().rank(_as_spelt(text[:_ENOUGH_CHARS])))
    ours = {language: probabilities[language] for language in LANGUAGES}
    best, total = max(ours, key=ours.__getitem__), sum(ours.values())
    if not total or ours[best] < _SURE * total:
        return None
    likeliest = max(probabilities, key=probabilities.__getitem__)
    if (
        likeliest not in LANGUAGES
        and likeliest not in _NEIGHBOURS
        and probabilities[likeliest] >= _ANOTHER_LANGUAGE_SURE
    ):
        return None
    return best
