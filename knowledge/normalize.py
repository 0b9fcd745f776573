"""Clean extracted text before it is redacted, chunked and embedded."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

from django.utils.translation import gettext_noop

from knowledge.extraction import IngestionError, PageText
from text.characters import INVISIBLE_CHARS

# Control characters, and those that render as nothing (zero-width joiners, the BOM,
# direction overrides): a word or a number split by one is whole to its reader.
_CONTROL = re.compile(rf"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f{re.escape(INVISIBLE_CHARS)}]")
_HYPHEN_BREAK = re.compile(r"(\w)-\n(?=[a-záéíóúàâêôãõçñü])")
# A single line break inside a paragraph (next line starts lower-case or with a digit) is
# a soft wrap from the PDF's layout, not a break the author wrote.
_SOFT_WRAP = re.compile(r"(?<=[^\n.!?:;])\n(?=[a-záéíóúàâêôãõçñü0-9(])")
_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200a\u3000]+")
_BLANK_LINES = re.compile(r"\n\s*\n\s*(\n\s*)+")
_DIGITS = re.compile(r"\d+")


# Spanish and Portuguese ordinal indicators, which NFKC reads as letters: "nº", "2ª via" and
# "3ºB" quoted back as "no", "2a via" and "3oB".
_ORDINAL_INDICATORS = re.compile("([ºª])")


def normalize_text(text: str) -> str:
    text = _compatibility_folded(text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", text)
    text = _HYPHEN_BREAK.sub(r"\1", text)
    text = _SOFT_WRAP.sub(" ", text)
    text = _SPACES.sub(" ", text)
    text = "\n".join(line.strip() for line in text.split("\n"))
    return _BLANK_LINES.sub("\n\n", text).strip()


def _compatibility_folded(text: str) -> str:
    """NFKC (ligatures: "ﬂ" is "fl"; full-width forms), the ordinal indicators kept."""
    pieces = _ORDINAL_INDICATORS.split(text)
    return "".join(
        piece if n % 2 else unicodedata.normalize("NFKC", piece) for n, piece in enumerate(pieces)
    )


def remove_repeated_margins(pages: list[PageText]) -> list[PageText]:
    """Drop header and footer lines that repeat on most pages (page numbers folded)."""
    if len(pages) < 3:
        return pages
    edge_lines: Counter[str] = Counter()
    for page in pages:
        lines = [line for line in page.text.split("\n") if line.strip()]
        edge_lines.update({_margin_key(line) for line in _edge_lines(lines)})
    repeated = {key for key, count in edge_lines.items() if count >= max(3, 0.6 * len(pages))}
    if not repeated:
        return pages
    return [PageText(page.number, _strip_margins(page.text, repeated)) for page in pages]


def _edge_lines(lines: list[str]) -> list[str]:
    # Two lines at each end on full pages, one on short ones; margins are short lines.
    depth = 2 if len(lines) > 6 else 1
    edges = lines[:depth] + lines[-depth:] if len(lines) > 2 * depth else []
    return [line for line in edges if len(line) <= 120]


def _margin_key(line: str) -> str:
    return _DIGITS.sub("#", line.strip().lower())


def _strip_margins(text: str, repeated: set[str]) -> str:
    lines = text.split("\n")
    content = [i for i, line in enumerate(lines) if line.strip()]
    depth = 2 if len(content) > 6 else 1
    edges = set(content[:depth] + content[-depth:]) if len(content) > 2 * depth else set()
    return "\n".join(
        line for i, line in enumerate(lines) if i not in edges or _margin_key(line) not in repeated
    )


# The pipes and rules a table is written with (a CSV's or a sheet's, in Markdown) are neither
# words nor symbols: a price list is figures between them.
_TABLE_MARKUP = frozenset("|-:")


def check_quality(text: str, *, pdf: bool) -> None:
    """Refuse text that is empty or not language (fonts without a Unicode map extract as
    symbols). Letters and figures are language; a table's markup is left out of the count."""
    visible = [ch for ch in text if not ch.isspace()]
    if not visible:
        raise IngestionError(gettext_noop("No text could be extracted: the document is empty."))
    content = [ch for ch in visible if ch not in _TABLE_MARKUP]
    readable = sum(1 for ch in content if ch.isalnum())
    unusable = sum(
        1 for ch in visible if ch == "\ufffd" or unicodedata.category(ch) in {"Co", "Cn", "Cs"}
    )
    words = re.findall(r"\w+", text)
    glyph_names = sum(1 for word in words if re.fullmatch(r"g\d+", word))
    if (
        readable < max(1, 0.5 * len(content))
        or unusable > 0.1 * len(visible)
        or glyph_names > 0.3 * len(words)
    ):
        raise IngestionError(
            gettext_noop(
                "The extracted text is unreadable (the PDF's fonts have no character mapping, so "
                "text comes out as symbols). Upload a version with real text, or a scan for OCR."
            )
            if pdf
            else gettext_noop(
                "The extracted text is unreadable: it is mostly symbols, not words or figures. "
                "Check that the file opens as text in its own program, then upload it again."
            )
        )
