"""Text helpers every app shares."""

from __future__ import annotations

import unicodedata


def fold(text: str) -> str:
    """Lower case without accents ("Sábado" → "sabado"): how people type when comparing
    words, and what the search's text configurations do with unaccent."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


_MAX_MARKS_PER_LETTER = 2  # enough for any real accent stack (ệ, ǘ)
MAX_WORD_CHARS = 64


def tame(text: str) -> str:
    """``text`` as a person could have typed it: composed (NFC), at most two combining marks
    on a letter ("a" followed by 4,000 acute accents was a query that cost seconds), and no
    word longer than 64 characters (the longest real words are far shorter)."""
    kept: list[str] = []
    marks = 0
    for char in unicodedata.normalize("NFC", text):
        if unicodedata.combining(char):
            marks += 1
            if marks > _MAX_MARKS_PER_LETTER:
                continue
        else:
            marks = 0
        kept.append(char)
    return " ".join(word[:MAX_WORD_CHARS] for word in "".join(kept).split(" "))
