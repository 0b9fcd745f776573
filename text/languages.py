"""The languages of the product, in one place.

People write and read Spanish, Portuguese and English. Two spellings of the same three are
needed, and only these two:

- ``LANGUAGES`` — ISO 639-1 codes (``es``, ``pt``, ``en``): the language of a question, an
  answer, a document or a memory. Portuguese is ``pt`` here: the assistant reads European
  and Brazilian Portuguese alike and writes Brazilian.
- ``CONSOLE_LANGUAGES`` — Django's language codes for the console's catalogs (``pt-br``:
  its texts are Brazilian Portuguese), with the name each language gives itself.

``console_language`` and ``content_language`` convert between them.
"""

from __future__ import annotations

SPANISH, PORTUGUESE, ENGLISH = "es", "pt", "en"
LANGUAGES: tuple[str, ...] = (SPANISH, PORTUGUESE, ENGLISH)
# What the assistant tells a model the answer's language is.
LANGUAGE_NAMES = {SPANISH: "Spanish", PORTUGUESE: "Portuguese (Brazil)", ENGLISH: "English"}

CONSOLE_LANGUAGES: tuple[tuple[str, str], ...] = (
    ("en", "English"),
    ("es", "Español"),
    ("pt-br", "Português (Brasil)"),
)
_CONSOLE_BY_LANGUAGE = {ENGLISH: "en", SPANISH: "es", PORTUGUESE: "pt-br"}


def console_language(language: str) -> str:
    """``pt`` → ``pt-br``: the console's code for a content language (English otherwise)."""
    return _CONSOLE_BY_LANGUAGE.get(language, "en")


def content_language(code: str | None) -> str | None:
    """``pt-BR``, ``pt_BR``, ``pt-pt``, ``es-419``… → ``pt`` / ``es``; None when the code is
    none of the three."""
    primary = (code or "").strip().lower().replace("_", "-").split("-")[0]
    return primary if primary in LANGUAGES else None
