"""Plain text, Markdown and CSV: decoded by their encoding; a CSV row is read with its
column headers."""

from __future__ import annotations

import codecs
import csv
from collections.abc import Iterator
from pathlib import Path

from charset_normalizer import CharsetMatch, from_bytes
from django.utils.translation import gettext_noop

from knowledge.extraction.base import (
    Budget,
    Deadline,
    Extraction,
    IngestionError,
    Outline,
    PageText,
    stored_file_missing,
)


def decode_text(data: bytes) -> tuple[str, dict[str, object]]:
    """UTF-8 (with or without BOM), UTF-16 with BOM, else the detected legacy encoding."""
    if data.startswith(codecs.BOM_UTF8):
        return data[3:].decode("utf-8", errors="replace"), {"encoding": "utf-8-sig"}
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace"), {"encoding": "utf-16"}
    try:
        return data.decode("utf-8"), {"encoding": "utf-8"}
    except UnicodeDecodeError:
        pass  # not UTF-8: detect the legacy encoding below
    matches = from_bytes(data)
    best = matches.best()
    if best is None:
        raise IngestionError(
            gettext_noop(
                "The text's character encoding could not be recognised. Save it as UTF-8 and "
                "upload it again."
            )
        )
    best = _windows_latin_on_a_tie(best, list(matches))
    return str(best), {"encoding": best.encoding, "encoding_detected": True}


# Spanish, Portuguese and English text saved by Windows (Excel's CSV above all) is cp1252.
# charset_normalizer scores cp1250 the same on it and may pick it: "niños" read "nińos".
_WINDOWS_LATIN = ("cp1252", "iso8859_15", "latin_1")


def _windows_latin_on_a_tie(best: CharsetMatch, matches: list[CharsetMatch]) -> CharsetMatch:
    for encoding in _WINDOWS_LATIN:
        for match in matches:
            if (
                match.encoding == encoding
                and match.chaos <= best.chaos
                and match.coherence >= best.coherence
            ):
                return match
    return best


def read_decoded(path: Path) -> tuple[str, dict[str, object]]:
    if not path.exists():
        raise stored_file_missing(path)
    return decode_text(path.read_bytes())


def extract_text_file(path: Path, *, markdown: bool) -> Extraction:
    text, details = read_decoded(path)
    return Extraction([PageText(None, text)], None, details, markdown=markdown)


_DELIMITERS = ",;\t|"
_ROWS_BETWEEN_CHECKS = 2000


def extract_csv(path: Path, *, budget: Budget) -> Extraction:
    """The first row names the columns (the common case; a CSV says nothing about it)."""
    text, details = read_decoded(path)
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(
            text[:8192], delimiters=_DELIMITERS
        )
    except csv.Error:
        dialect = csv.excel  # one column, or too irregular to tell: commas
    deadline = budget.deadline()
    outline = Outline()
    try:
        rows = list(_rows(csv.reader(text.splitlines(), dialect), deadline))
    except csv.Error as exc:
        raise IngestionError(
            gettext_noop("This CSV file could not be read: %(detail)s."),
            params={"detail": str(exc)},
        ) from exc
    outline.table(rows)
    details["rows"] = len(rows)
    return Extraction([PageText(None, outline.text())], None, details, markdown=True)


def _rows(reader: Iterator[list[str]], deadline: Deadline) -> Iterator[list[str]]:
    for number, row in enumerate(reader, start=1):
        if number % _ROWS_BETWEEN_CHECKS == 0:
            deadline.check(f"row {number}")
        yield row
