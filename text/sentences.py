"""Where sentences end, in Spanish, Portuguese and English text: the chunker keeps them
whole, the offline answerer quotes them, a citation marks the one a claim rests on."""

from __future__ import annotations

import re

# Sentence end: . ! ? … with the closing quotes, brackets and document notes' references
# that follow it (kept with the sentence: «… hola.», "verano.[^1]"), then space and a
# capital, digit, opening quote/bracket or Spanish inverted mark. Where sentences end must
# not move for text stored before: the offline answerer matches a passage's sentence groups
# to their stored vectors by position (a paper's "abre.[3] El…" still does not end there).
_SENTENCE_END = re.compile(
    r"([.!?…](?:[\"'»)\]]|\[\^\d{1,4}\])*)\s+(?=[A-ZÁÉÍÓÚÑÇÀÂÊÔÃÕÜ0-9¿¡\"'«(\[])"
)

# Abbreviations (es/pt/en) after which a period does not end the sentence. "EE." is the
# first half of the Spanish plural "EE. UU." (United States), never a sentence end.
_ABBREVIATION = re.compile(
    r"(?:\b(?:art|arts|núm|num|nº|pág|pag|págs|sr|sra|srta|sres|dr|dra|drs|prof|profa|av|avda|"
    r"ex|cf|vol|cap|fig|ej|etc|ltda|cía|inc|no|nos|p|pp|mr|mrs|ms|st|vs|e\.g|i\.e|aprox|"
    r"approx|ee|ud|uds|vd|vds|sto|sta|gral|ing|lic|jr|dept|depto|tel|ext|vide)|\b[A-Za-z])\.$",
    re.IGNORECASE,
)

# A list item's number or roman numeral ("1. Rellena el formulario.", "iv. Espera"): the
# item's first words, not a sentence of its own.
_ENUMERATOR = re.compile(r"(?:\d{1,3}|[ivxlc]{1,6})\.", re.IGNORECASE)


def split_sentences(text: str) -> list[str]:
    sentences: list[str] = []
    for part in _ended(text):
        part = part.strip()
        if not part:
            continue
        if sentences and (
            _ABBREVIATION.search(sentences[-1]) or _ENUMERATOR.fullmatch(sentences[-1])
        ):
            sentences[-1] = f"{sentences[-1]} {part}"
        else:
            sentences.append(part)
    return sentences


def _ended(text: str) -> list[str]:
    """The text cut after each sentence end, the end kept: split() returns the text between
    ends and, from the capturing group, each end."""
    parts = _SENTENCE_END.split(text)
    return [
        part + "".join(parts[index + 1 : index + 2])
        for index, part in enumerate(parts)
        if index % 2 == 0
    ]
