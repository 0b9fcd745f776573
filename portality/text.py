"""Text helpers every app shares."""

from __future__ import annotations

import unicodedata


def fold(text: str) -> str:
    """Lower case without accents ("Sábado" → "sabado"): how people type when comparing
    words, and what the search's text configurations do with unaccent."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))
