"""What every reader shares: the error people read, the budget, and the outline writer that
turns a structured document (headings, paragraphs, tables) into the Markdown the chunker
reads, so a heading becomes the section path of the chunks under it."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from django.utils.translation import gettext_noop

from web.exceptions import ApplicationError


class IngestionError(ApplicationError):
    """Bad input: the document fails with this message and nothing of it is searchable."""


@dataclass
class PageText:
    number: int | None
    text: str


@dataclass(frozen=True)
class Budget:
    """What reading one document may cost. A PDF's text is read by interpreting each page's
    drawing instructions, and a small file can make that endless: 40 pages sharing one 5 MB
    content stream (a 22 KB file) took 16 s a page. Real documents hold 5-100 KB of
    instructions a page, so the budget is counted in bytes of instructions to interpret
    (shared ones counted on every page), with a time limit behind it that every format
    obeys. ``between_pages`` runs after each page, slide or sheet (the caller stops there
    when the document was forgotten meanwhile). Office, OpenDocument and EPUB files are ZIP
    archives: ``max_unpacked_bytes`` bounds what their parts may expand to."""

    max_pages: int
    max_content_bytes: int
    max_seconds: float
    between_pages: Callable[[], None] | None = None
    max_unpacked_bytes: int = 100 * 1024 * 1024

    def deadline(self) -> Deadline:
        return Deadline(time.monotonic() + self.max_seconds, self)


@dataclass
class Deadline:
    at: float
    budget: Budget

    def remaining(self) -> float:
        """Seconds left, at least one (a step already begun gets a moment to finish)."""
        return max(1.0, self.at - time.monotonic())

    def check(self, where: str) -> None:
        """Between two parts: stop when forgotten, or when reading took too long."""
        if self.budget.between_pages:
            self.budget.between_pages()
        if time.monotonic() > self.at:
            raise IngestionError(
                gettext_noop(
                    "Reading this document took longer than %(limit)s seconds (stopped at "
                    "%(where)s); split it into smaller files."
                ),
                params={"limit": int(self.budget.max_seconds), "where": where},
            )


@dataclass
class Extraction:
    pages: list[PageText]
    page_count: int | None
    details: dict[str, object] = field(default_factory=dict)
    # The text is Markdown: "#" lines are headings that give the chunks their section path.
    markdown: bool = False
    # Plain text but for its "#" lines, headings all the same (a PDF's, from the size its
    # lines are drawn at: pdf_headings.py); a line break inside a paragraph is a wrap.
    headings: bool = False


def stored_file_missing(path: Path) -> IngestionError:
    return IngestionError(
        gettext_noop(
            "The uploaded file is missing from storage (%(name)s); check MEDIA_ROOT on the "
            "worker, or upload the file again."
        ),
        params={"name": path.name},
    )


_SPACES = re.compile(r"\s+")
PAGE_MARK = "\ue000"  # where a page number stood, in a header's or footer's text
# A header's or footer's parts: Word separates them with tabs, people with a dot or a bar.
_MARGIN_PARTS = re.compile(r"\s*(?:\t|\s[·|•–—-]\s)\s*")
_HEADING_LIKE = re.compile(r"^(#{1,6}\s)")
# A Markdown heading line: its marks (the level) and its text.
HEADING_LINE = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


def escaped_heading(line: str) -> str:
    """Body text that would read as a Markdown heading, escaped ("\\# 1 priority")."""
    return _HEADING_LIKE.sub(r"\\\1", line)


def is_title_line(line: str) -> bool:
    """A plain text's section title: a line of a few words opening with a capital and
    ending without a stop ("Term dates", "Horario"), as people write one over its
    paragraph with no blank line between."""
    return (
        line[:1].isupper()
        and len(line.split()) <= TITLE_WORDS
        and not line.rstrip().endswith((".", ",", ";", ":", "!", "?", "…"))
    )


TITLE_WORDS = 6


def titled_plain_text(text: str) -> str:
    """Plain text with its titles marked as Markdown headings: a paragraph's first line
    that is a title, over the paragraph's other lines ("## Horario"), and a first
    paragraph of one title line ("# Normas de la piscina"); every other line that would
    read as a heading escaped. Read as a paragraph's first line, a title was glued to the
    sentence after it and quoted so («Horario La piscina abre…»)."""
    paragraphs = re.split(r"\n\s*\n", text.strip())
    marked = []
    for n, paragraph in enumerate(paragraphs):
        lines = [escaped_heading(line.strip()) for line in paragraph.split("\n")]
        if len(lines) > 1 and is_title_line(lines[0]):
            marked.append(f"## {lines[0]}\n\n" + "\n".join(lines[1:]))
        elif n == 0 and len(paragraphs) > 1 and is_title_line(lines[0]):
            marked.append(f"# {lines[0]}")
        else:
            marked.append("\n".join(lines))
    return "\n\n".join(marked)


def one_line(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


# A page number with the words around it: "Página 3 de 9", "pág. 3/9", "Page 3 of 9", "p. 3".
_PAGE_NUMBER = re.compile(
    rf"(?:\b(?:p[áa]gina|p[áa]g|page|pg|pp?|folha|fl|hoja)\b\.?\s*)?{PAGE_MARK}"
    rf"(?:\s*(?:de|of|do|da|/)\s*{PAGE_MARK})?",
    re.IGNORECASE,
)
_EMPTY_BRACKETS = re.compile(r"\(\s*\)|\[\s*\]")
_SEPARATORS = "·|•–—-"
_SEPARATED = re.compile(rf"\s*[{_SEPARATORS}]\s*[{_SEPARATORS}]\s*")  # where a number stood
_PUNCTUATION_AT_EDGES = re.compile(rf"^[\s,;:{_SEPARATORS}]+|[\s,;:{_SEPARATORS}]+$")


def margin_text(text: str) -> str:
    """A header's or footer's line without its page number and the words saying so
    ("Club Norte, página 3 de 9 — Confidencial" is "Club Norte · Confidencial")."""
    parts = []
    for part in _MARGIN_PARTS.split(text):
        if PAGE_MARK in part:
            part = _PAGE_NUMBER.sub(PAGE_MARK, part)
            part = _SEPARATED.sub(" · ", _EMPTY_BRACKETS.sub("", part.replace(PAGE_MARK, "")))
            part = _PUNCTUATION_AT_EDGES.sub("", part)
        parts.append(one_line(part))
    return " · ".join(part for part in parts if part)


class Outline:
    """Markdown written from a document's structure, one paragraph per block.

    A table row is written with its column headers ("Plan: Pro · Price: 49 €"): a row alone
    in a chunk still says what its numbers are. Body text that would read as a heading is
    escaped the Markdown way (``\\#``)."""

    def __init__(self) -> None:
        self._blocks: list[str] = []

    def heading(self, level: int, text: str) -> None:
        text = one_line(text)
        if text:
            self._blocks.append(f"{'#' * min(max(level, 1), 6)} {text}")

    def paragraph(self, text: str) -> None:
        text = one_line(text)
        if text:
            self._blocks.append(escaped_heading(text))

    def item(self, marker: str, text: str) -> None:
        """A list item with its bullet or number ("-", "2.", "b)"): "the second step" is
        found by its number, and a bullet tells an item from a paragraph."""
        if not marker:  # a list Word numbers with nothing: a paragraph like any other
            self.paragraph(text)
        elif text := one_line(text):
            self._blocks.append(f"{marker} {text}")

    def table(self, rows: Iterable[Sequence[str]]) -> None:
        """The first row with two or more filled cells names the columns of those below.
        A sentence typed alone in a row's first cell is a note on the table, not a value of
        its first column: a campsite's "Temporada alta: del 1 de julio al 31 de agosto."
        under its rates was read "Concepto: Temporada alta: …"."""
        headers: list[str] | None = None
        written = 0
        for row in rows:
            cells = [one_line(cell) for cell in row]
            if not any(cells):
                continue
            if headers is None and sum(1 for cell in cells if cell) >= 2:
                headers = cells
                continue
            if headers is not None and _is_a_note(cells):
                self.paragraph(cells[0])
                continue
            self.paragraph(row_text(headers, cells))
            written += 1
        if headers is not None and not written:  # a table of one row is that row's text
            self.paragraph(" · ".join(cell for cell in headers if cell))

    def text(self) -> str:
        return "\n\n".join(self._blocks)

    def back_matter(self, title: str, paragraphs: Iterable[str]) -> None:
        """A section the product adds after the body (a document's notes, its header and
        footer), written only when it has text."""
        texts = [text for text in map(one_line, paragraphs) if text]
        if texts:
            self.heading(1, title)
            for text in texts:
                self.paragraph(text)

    def __bool__(self) -> bool:
        return bool(self._blocks)


def _is_a_note(cells: Sequence[str]) -> bool:
    """The row's one filled cell is its first, and a sentence of four words or more."""
    first, rest = cells[0], cells[1:]
    return not any(rest) and first.endswith((".", "!", "?")) and len(first.split()) >= 4


def row_text(headers: Sequence[str] | None, cells: Sequence[str]) -> str:
    parts = []
    for index, cell in enumerate(cells):
        if not cell:
            continue
        header = headers[index] if headers and index < len(headers) else ""
        parts.append(f"{header}: {cell}" if header and header != cell else cell)
    return " · ".join(parts)


def whole_number(value: str | None, default: int) -> int:
    """A document's attribute read as a count or a start ("3"), or ``default`` when it is
    missing or not one."""
    return int(value) if value and value.isdigit() else default


def list_marker(style: str, number: int) -> str:
    """An item's marker in a list of ``style`` (Word's numFmt names; HTML's ``type``
    letters are mapped to them): "-" for bullets, "3." for numbers, "c)" for letters,
    "iii." for roman numerals; "" for a list Word numbers with nothing."""
    if style == "bullet":
        return "-"
    if style == "none":
        return ""
    if style in ("lowerLetter", "upperLetter"):
        letter = chr(ord("a") + (number - 1) % 26) * ((number - 1) // 26 + 1)
        return f"{letter.upper() if style == 'upperLetter' else letter})"
    if style in ("lowerRoman", "upperRoman") and 0 < number < 4000:
        return f"{_roman(number).lower() if style == 'lowerRoman' else _roman(number)}."
    return f"{number}."


_ROMAN = (
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
    (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
)  # fmt: skip


def _roman(number: int) -> str:
    digits = []
    for value, letters in _ROMAN:
        count, number = divmod(number, value)
        digits.append(letters * count)
    return "".join(digits)
