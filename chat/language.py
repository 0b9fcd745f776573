"""Which language a question is in — es, pt or en — decided on four-word questions too.

Document language detection counts stopwords and needs three of them; a chat question
("Que horas abre a piscina aos sábados?", "What time is dinner served?") has one or two,
and many words are shared by Spanish and Portuguese. So only words and letters that belong
to one language count here; when none does, the caller's hints decide (the widget's
``lang``, the browser's Accept-Language, the conversation so far), then Spanish."""

from __future__ import annotations

import re

from text.languages import LANGUAGES, SPANISH, content_language

DEFAULT = SPANISH

# Words that, in a question, point to one language only, with and without accents as
# people type them ("donde", "cuando"). "como" is Spanish and Portuguese alike: left out.
_ONLY = {
    "es": {
        "el",
        "los",
        "las",
        "del",
        "al",
        "y",
        "qué",
        "cuál",
        "cuáles",
        "cuándo",
        "dónde",
        "cómo",
        "cuánto",
        "cuánta",
        "cuántos",
        "cuántas",
        "es",
        "está",
        "están",
        "hay",
        "puedo",
        "puede",
        "con",
        "mi",
        "mis",
        "tu",
        "tus",
        "su",
        "sus",
        "lo",
        "muy",
        "también",
        "pero",
        "hola",
        "gracias",
        "tienen",
        "tiene",
        "usted",
        "horario",
        "cena",
        "comida",
        "sirve",
        "sirven",
        "cierra",
        "mañana",
        "noche",
        "reservar",
        "recuerda",
        "prefiero",
        "quiero",
        "necesito",
        "donde",
        "cuando",
        "cual",
        "cuanto",
        "ya",
        "hasta",
        "desde",
        "sin",
        "sobre",
        "entre",
        "hacer",
        "tengo",
        "dime",
        "cuesta",
    },
    "pt": {
        "o",
        "os",
        "as",
        "do",
        "da",
        "dos",
        "das",
        "no",
        "na",
        "nos",
        "nas",
        "um",
        "uma",
        "e",
        "é",
        "não",
        "você",
        "quem",
        "foi",
        "foram",
        "pelos",
        "pelas",
        "seus",
        "suas",
        "vocês",
        "com",
        "ao",
        "aos",
        "às",
        "em",
        "qual",
        "quais",
        "quando",
        "onde",
        "quanto",
        "quanta",
        "estão",
        "tem",
        "têm",
        "posso",
        "pode",
        "meu",
        "minha",
        "seu",
        "sua",
        "muito",
        "também",
        "mas",
        "olá",
        "obrigado",
        "obrigada",
        "horário",
        "jantar",
        "almoço",
        "servido",
        "fecha",
        "manhã",
        "noite",
        "lembre",
        "prefiro",
        "quero",
        "preciso",
        "até",
        "sem",
        "sobre",
        "entre",
        "fazer",
        "tenho",
        "diga",
        "custa",
        "pelo",
        "pela",
        "isso",
        "este",
        "esta",
        "aqui",
    },
    "en": {
        "the",
        "what",
        "when",
        "where",
        "how",
        "which",
        "who",
        "is",
        "are",
        "do",
        "does",
        "can",
        "i",
        "my",
        "an",
        "of",
        "to",
        "in",
        "on",
        "at",
        "time",
        "served",
        "open",
        "opens",
        "close",
        "closes",
        "and",
        "for",
        "with",
        "you",
        "your",
        "hello",
        "thanks",
        "please",
        "remember",
        "prefer",
        "want",
        "need",
        "until",
        "from",
        "without",
        "about",
        "tell",
        "me",
        "cost",
        "costs",
        "much",
        "many",
        "dinner",
        "lunch",
        "breakfast",
    },
}
_LETTERS = {"es": set("ñ¿¡"), "pt": set("ãõçêôâà")}
# Phrases only one language uses: Spanish asks "¿a qué hora…?", Portuguese "que horas…?".
_PHRASES = {"pt": re.compile(r"\bque horas\b"), "es": re.compile(r"\bqu[eé] hora\b")}
_WORD = re.compile(r"[^\W\d_]+")


def question_language(text: str) -> str | None:
    """es, pt or en when the question itself says so; None when it does not."""
    lowered = text.lower()
    scores = dict.fromkeys(LANGUAGES, 0.0)
    for word in _WORD.findall(lowered):
        for language in LANGUAGES:
            if word in _ONLY[language]:
                scores[language] += 1
    for language, letters in _LETTERS.items():
        scores[language] += 2 * sum(1 for char in lowered if char in letters)
    for language, phrase in _PHRASES.items():
        scores[language] += 2 * len(phrase.findall(lowered))
    ranked = sorted(scores.items(), key=lambda item: item[1], reverse=True)
    (best, top), (_, second) = ranked[0], ranked[1]
    return best if top >= 1 and top > second else None


def answer_language(question: str, hints: list[str | None]) -> str:
    """The question's own language, else the first usable hint, else Spanish."""
    found = question_language(question)
    if found:
        return found
    for hint in hints:
        language = _normalise(hint)
        if language:
            return language
    return DEFAULT


def accept_language_hints(header: str) -> list[str]:
    """Accept-Language's languages in the browser's order of preference ("pt-BR,pt;q=0.9")."""
    weighted = []
    for position, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        weighted.append((-quality, position, tag.strip()))
    return [tag for _, _, tag in sorted(weighted) if tag]


def _normalise(hint: str | None) -> str | None:
    return content_language(hint)
