"""What a question asks, as the search embeds it and the offline answerer weighs it."""

from __future__ import annotations

from knowledge.redaction import without_personal_data
from text.words import without_courtesy


def what_is_asked(question: str) -> str:
    """``question`` without the courtesy around it (``text.words.without_courtesy``) nor
    the personal data in it: the knowledge holds that only as placeholders, so it matches
    nothing there; it blurred the question's vector, and, weighed as the scope's rarest
    words, turned "Soy ana@…, mi móvil es 612 345 678: ¿a qué hora abre la piscina?" into
    "no information". The keyword branch still matches the words as written (an
    organisation's own number, kept in its knowledge, is found by them)."""
    return without_courtesy(without_personal_data(question))
