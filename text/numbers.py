"""Numbers said aloud: digits written as words in Spanish, Portuguese and English ("seis
uno dos…", "meia" for six as Brazilians read a phone, "oh" for zero in English), alone or
mixed with digits ("6 uno 2 tres…"), read back as the digits they spell."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

DIGIT_WORDS = {
    **dict.fromkeys(("cero", "zero", "oh"), "0"),
    **dict.fromkeys(("uno", "um", "one"), "1"),
    **dict.fromkeys(("dos", "dois", "two"), "2"),
    **dict.fromkeys(("tres", "três", "three"), "3"),
    **dict.fromkeys(("cuatro", "quatro", "four"), "4"),
    **dict.fromkeys(("cinco", "five"), "5"),
    **dict.fromkeys(("seis", "six", "meia"), "6"),
    **dict.fromkeys(("siete", "sete", "seven"), "7"),
    **dict.fromkeys(("ocho", "oito", "eight"), "8"),
    **dict.fromkeys(("nueve", "nove", "nine"), "9"),
}
_TOKEN = rf"(?:{'|'.join(DIGIT_WORDS)}|\d{{1,4}})"
_SEPARATOR = r"[\s,.-]+"


@dataclass(frozen=True)
class SpokenNumber:
    start: int
    end: int
    digits: str


def spoken_numbers(text: str, *, min_tokens: int = 5) -> Iterator[SpokenNumber]:
    """The runs of at least ``min_tokens`` digit words or digit groups in ``text`` that hold
    a word (a run of digits alone is a number as written), each with the digits it
    spells."""
    run = re.compile(rf"\b{_TOKEN}(?:{_SEPARATOR}{_TOKEN}){{{min_tokens - 1},}}\b", re.IGNORECASE)
    for match in run.finditer(text):
        tokens = re.findall(r"\w+", match.group(0))
        if any(not token.isdigit() for token in tokens):
            digits = "".join(DIGIT_WORDS.get(token.lower(), token) for token in tokens)
            yield SpokenNumber(match.start(), match.end(), digits)


def as_digits(text: str, *, min_tokens: int = 5) -> str:
    """``text`` with each number said aloud written in digits."""
    pieces, last = [], 0
    for number in spoken_numbers(text, min_tokens=min_tokens):
        pieces += [text[last : number.start], number.digits]
        last = number.end
    return "".join([*pieces, text[last:]])
