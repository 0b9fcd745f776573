"""A question's misspelt words, read as the passages found for it spell them.

"¿Cuántos derrbos se anotó Kuechly?": "derrbos" is in no page of the scope, so the offline
answerer weighed it as the question's rarest word, found it in no passage, and said it had
no information, though the passage it quotes says "derribos". One typo in the longest word
of each dev question turned 40 (FaQuAD-pt) and 45 (XQuAD-es) answered questions into "no
information"; read as the passages spell it, 16 and 22 (BENCHMARKS.md, "Answers", typos).

A word is read as a passage's word only when both hold: it is in no chunk of the caller's
scope (a real word of the knowledge is never "corrected"), and one of the passages holds a
word spelt nearly alike — same first letter, at least five letters, difflib's ratio at least
``SIMILARITY``. A capitalised word past the first is a name, left as typed: a name the
knowledge lacks is what a question it cannot answer usually asks about.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable

from text.folding import fold

SIMILARITY = 0.85
MIN_LETTERS = 5

_WORD = re.compile(r"[^\W\d_]+")


def respelt(
    question: str, passages: Iterable[str], unknown: Callable[[list[str]], set[str]]
) -> str:
    """``question`` with each misspelt word replaced by the passages' spelling of it.
    ``unknown`` tells which of some words no chunk of the scope holds; it is asked only
    when a word is missing from the passages and one of theirs is spelt nearly alike."""
    spellings = _passage_spellings(passages)
    nearest = {
        match.group(): near
        for match in _WORD.finditer(question)
        if (near := _nearest(match, spellings)) is not None
    }
    if not nearest:
        return question
    misspelt = unknown(list(nearest))
    if not misspelt:
        return question
    return _WORD.sub(lambda m: nearest[m.group()] if m.group() in misspelt else m.group(), question)


def _passage_spellings(passages: Iterable[str]) -> dict[str, str]:
    """The passages' words by their folded spelling ("sabado" → "sábado")."""
    return {fold(word): word for passage in passages for word in _WORD.findall(passage)}


def _nearest(match: re.Match[str], spellings: dict[str, str]) -> str | None:
    word = match.group()
    folded = fold(word)
    if len(folded) < MIN_LETTERS or folded in spellings:
        return None
    if word[0].isupper() and match.start() > 0 and match.string[: match.start()].strip("¿¡ "):
        return None  # a name
    alike = [w for w in spellings if w[0] == folded[0]]
    found = difflib.get_close_matches(folded, alike, n=1, cutoff=SIMILARITY)
    return spellings[found[0]] if found else None
