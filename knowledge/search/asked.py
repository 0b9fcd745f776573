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
    organisation's own number, kept in its knowledge, is found by them). A question typed
    in capitals is read in lowercase: the model's vector of "QUANTO CUSTA A ESCOVA???" was
    near no passage of a salon's price list, and it was "no information"."""
    return without_courtesy(without_personal_data(unshouted(question)))


def unshouted(text: str) -> str:
    """``text`` in lowercase when it is written in capitals (three words or more, and no
    lowercase letter): not an acronym inside a sentence ("¿Cuánto cuesta el DELF?")."""
    letters = [c for c in text if c.isalpha()]
    if len(text.split()) >= 3 and letters and not any(c.islower() for c in letters):
        return text.lower()
    return text
