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
# XQuAD-es and 400 FaQuAD-pt questions (opening "¿" removed) and 40 English ones: 400, 399
# (398 without _MARKERS below) and 40 right, none wrong (the word lists it replaced: 388 /
# 394 / 39); on their first four words 400 / 389 / 40, none wrong (398 / 376 / 40, 2 wrong
# without _MARKERS) (`python -m tests.bench.language_detection`).
_ENOUGH_CHARS = 20_000  # a document's language is plain from its first pages
_SURE = 0.6  # the best of the three's share of their three probabilities
# A conversation's language keeps a short question that could be in it: "Abre domingo?",
# in a Portuguese conversation, was read as Spanish (es 0.64 of the three, pt 0.26) and
# answered with "La fuente está en portugués". Under a fifth, it was not meant: "¿Y el
# sábado?" (pt 0.06), "Cuánto cuesta?" (pt 0.01).
_PLAUSIBLE = 0.2
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


# Words only one of the three writes, for questions too short for n-grams: "¿Hay
# parking?" scores as English, "Tem wifi?" as Polish, "Onde estaciono?" as Spanish. In a
# question of at most _FEW_WORDS words, markers of one language alone decide; markers of
# two ("Where is Casa del Sol?") leave it to the n-grams. Left out: what two of them write
# alike, accented or not ("como", "aqui", "que", "no", "da", "dos", "das", "do", "tu", "os",
# "está", "podemos", "por favor"; English's "to" is Brazil's "tô" typed on a phone).
_FEW_WORDS = 6
_FEW_WORDS_CHARS = 120  # longer is no short question: not read word by word


def _listed(words: str) -> frozenset[str]:
    return frozenset(words.split())


_MARKERS = {
    SPANISH: _listed(
        "hay dónde donde qué cuándo cuando cuánto cuanto cuánta cuanta cuántos cuantos cuántas"
        " cuantas cuál cual cuáles cuales cómo puedo puede pueden tiene tienen tengo"
        " tienes hace el los las del al es un una y mi mis hola gracias algún alguna"
        " también muy mucho hasta aquí allí ahora mañana hoy yo usted ustedes nosotros"
        " necesito quiero hacer hacen quién quien quiénes quienes"
    ),
    PORTUGUESE: _listed(
        "onde tem têm você vocês voce não nao é são quando quanto quanta quantos quantas"
        " qual quais posso pode podem há um uma uns umas ao à às em isso esse essa"
        " isto também até muito muita obrigado obrigada olá oi meu minha seu sua eu nós"
        " preciso quero gostaria hoje amanhã agora ele ela fazer quem"
    ),
    ENGLISH: _listed(
        "the is are was were can could where what when how who which why does did there i"
        " my you your have has will would should of and in on at it this that for with"
        " from please thanks hi hello"
    ),
}
_INVERTED_MARKS = re.compile(r"[¿¡]")  # Spanish's alone


def _marked_language(text: str) -> str | None:
    """The one language whose own words a short question uses, if only one's."""
    if len(text) > _FEW_WORDS_CHARS:
        return None
    words = _WORD.findall(text.lower())
    if not words or len(words) > _FEW_WORDS:
        return None
    marked = {language for language in LANGUAGES if _MARKERS[language].intersection(words)}
    if _INVERTED_MARKS.search(text):
        marked.add(SPANISH)
    return marked.pop() if len(marked) == 1 else None


def _as_spelt(text: str) -> str:
    text = _PLACEHOLDER.sub(" ", text)
    return _WORD.sub(lambda m: _PHONE_SPELLINGS.get(m.group().lower(), m.group()), text)


# What redaction put in a text's place ("[PHONE]", "[EMAIL]"): English words in every
# language's text, they read "WhatsApp: [PHONE], E-mail: [EMAIL]" as English.
_PLACEHOLDER = re.compile(r"\[[A-Z][A-Z_]*\]")


@functools.cache
def _identifier() -> LanguageIdentifier:
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def language_model_load() -> None:
    """Load the language model now, not at a process's first question: it takes ~0.8 s
    (97 languages, LZMA-compressed), which a new web worker's first search waited for
    (716 ms against 31 ms for the next one). The web workers and the Celery worker call it
    as they start; the commands that search, before searching."""
    _identifier()


def detect_language(text: str, *, leaning: str | None = None) -> str | None:
    """es, pt or en; None when the text is in another language, or too short to tell (a
    lone "piscina" is Spanish, Portuguese and Italian alike). ``leaning``: the language the
    text is said in (a conversation's), kept when the text could plausibly be in it."""
    if not text.strip():
        return None
    spelt = _as_spelt(text[:_ENOUGH_CHARS])
    probabilities = dict(_identifier().rank(spelt))
    likeliest = max(probabilities, key=probabilities.__getitem__)
    if (
        likeliest not in LANGUAGES
        and likeliest not in _NEIGHBOURS
        and probabilities[likeliest] >= _ANOTHER_LANGUAGE_SURE
    ):
        return None
    if marked := _marked_language(spelt):
        return marked
    ours = {language: probabilities[language] for language in LANGUAGES}
    best, total = max(ours, key=ours.__getitem__), sum(ours.values())
    if total and leaning in ours and ours[leaning] >= _PLAUSIBLE * total:
        return leaning
    if not total or ours[best] < _SURE * total:
        return None
    return best
