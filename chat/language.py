"""The language to answer in — es, pt or en —: the question's own (``text.languages``
decides it, on four-word questions too); when the question does not say (a lone "piscina"),
the caller's hints in order (the widget's ``lang``, the browser's Accept-Language, the
conversation so far, what was found), then Spanish."""

from __future__ import annotations

from text.languages import SPANISH, content_language, detect_language

DEFAULT = SPANISH
# A question this short may be read in what was found's language, when it could be in it.
_SHORT_QUESTION_WORDS = 3


def answer_language(
    question: str,
    hints: list[str | None],
    *,
    conversation: str | None = None,
    found: str | None = None,
) -> str:
    """The question's own language, else the first usable hint, else the language of what
    was ``found``, else Spanish. A question that could be in the ``conversation``'s
    language is in it ("Abre domingo?"); with no conversation yet, one that could be in the
    first hint's (the widget's ``lang``), or, of three words or fewer, in what was found's:
    the first "Abre domingo?" over a Portuguese vet's FAQ was read as Spanish and answered
    "La fuente está en portugués". Not a longer one: "Quanto custa a bicicleta elétrica
    por dia?" could be Spanish enough, and is not."""
    short = len(question.split()) <= _SHORT_QUESTION_WORDS
    leanings = [conversation, *hints, found if short else None]
    leaning = next(filter(None, map(_normalise, leanings)), None)
    detected = detect_language(question, leaning=leaning)
    if detected:
        return detected
    for hint in [*hints, found]:
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
