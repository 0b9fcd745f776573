"""The language to answer in — es, pt or en —: the question's own (``text.languages``
decides it, on four-word questions too); when the question does not say (a lone "piscina"),
the caller's hints in order (the widget's ``lang``, the browser's Accept-Language, the
conversation so far, what was found), then Spanish."""

from __future__ import annotations

from text.languages import SPANISH, content_language, detect_language

DEFAULT = SPANISH


def answer_language(
    question: str, hints: list[str | None], *, conversation: str | None = None
) -> str:
    """The question's own language, else the first usable hint, else Spanish. A question
    that could be in the ``conversation``'s language is in it ("Abre domingo?")."""
    found = detect_language(question, leaning=conversation)
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
