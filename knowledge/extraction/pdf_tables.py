"""Tables in a PDF, from where their text stands.

A PDF draws a price list as words at positions: read in order, its rows run together
("Servicio Tarifa Plazo Traducción 0,08 € por palabra 5 días Revisión 0,03 €…") and no row
says which figure is which. pypdf's layout mode places each line's text in columns of
characters, so a table shows as lines split into the same number of cells by bands of
blank columns that run down every row (a justified paragraph's wide spaces do not line up
from one line to the next). Each row is then written as Word tables are, with its column
headers: "Servicio: Revisión · Tarifa: 0,03 € por palabra · Plazo: 2 días".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from knowledge.extraction.base import row_text
from knowledge.extraction.pdf_headings import SizedLine

MIN_ROWS = 3  # a header and two rows: fewer is as likely two lines that happen to align
# A table goes on after a row whose cell wrapped onto this many more lines.
WRAPPED = 2
_CELL = re.compile(r"\S+(?: \S+)*")  # words apart by single spaces; two or more split cells
_LEADER = re.compile(r"(?:\. ?){4}|…{2}")
_MARKER = re.compile(r"^(?:\(?[0-9a-zA-Z]{1,3}[.)]|[•◦▪■●○*–-])$")


@dataclass
class _Row:
    cells: list[str]
    gaps: list[tuple[int, int]]  # the blank columns between each cell and the next


@dataclass
class _Table:
    headers: list[str] | None
    gaps: list[tuple[int, int]]
    ended: int  # the line after its last row


def table_rows(layout: str) -> dict[str, str]:
    """For each table row of a page (its words as the plain text has them, one space
    apart), what it reads as; a header row maps to "" (every row below says it)."""
    rows: dict[str, str] = {}
    run: list[_Row] = []
    previous: _Table | None = None
    lines = [line for line in layout.split("\n") if line.strip()]  # rows stand apart
    for number, line in enumerate([*lines, ""]):
        row = _row(line)
        if run and (row is None or not _aligned([*run, row])):
            near = previous if previous and number - len(run) - previous.ended <= WRAPPED else None
            previous = _write(run, near, rows, number) or previous
            run = []
        if row is not None:
            run.append(row)
    return rows


def _row(line: str) -> _Row | None:
    """A line of two cells or more; not a contents page's ("1.2 Scope ....... 4")."""
    cells = list(_CELL.finditer(line))
    if len(cells) < 2 or _LEADER.search(line):
        return None
    gaps = [(left.end(), right.start()) for left, right in zip(cells, cells[1:], strict=False)]
    return _Row([cell.group() for cell in cells], gaps)


def _aligned(rows: list[_Row]) -> bool:
    """Same number of cells, and each band of blank columns runs down every row."""
    if len({len(row.cells) for row in rows}) != 1:
        return False
    return all(
        max(row.gaps[n][0] for row in rows) < min(row.gaps[n][1] for row in rows)
        for n in range(len(rows[0].gaps))
    )


def _write(
    run: list[_Row], previous: _Table | None, rows: dict[str, str], ended: int
) -> _Table | None:
    """The run's rows into ``rows`` when it is a table; the table, for a part of it that
    continues after a row whose cell wraps onto a second line."""
    continued = previous is not None and _continues(previous, run)
    if (len(run) < MIN_ROWS and not continued) or _labelled(run):
        return None
    if continued and previous is not None:
        headers, body = previous.headers, run
    elif _is_header(run[0].cells):
        headers, body = run[0].cells, run[1:]
        rows[" ".join(headers)] = ""
    else:
        headers, body = None, run
    for row in body:
        rows[" ".join(row.cells)] = row_text(headers, row.cells)
    return _Table(headers, run[0].gaps, ended)


def _continues(table: _Table, run: list[_Row]) -> bool:
    return len(run[0].gaps) == len(table.gaps) and all(
        max(start, table.gaps[n][0]) < min(end, table.gaps[n][1])
        for n, (start, end) in enumerate(run[0].gaps)
    )


def _labelled(run: list[_Row]) -> bool:
    """ "Author:  Johan" lines, each of which already says what its value is, or a list's
    items ("1.   A file header…", "•   Documents…"): no table."""
    marked = sum(
        row.cells[0].endswith(":") or bool(_MARKER.match(row.cells[0].split()[0])) for row in run
    )
    return marked * 2 >= len(run)


def _is_header(cells: list[str]) -> bool:
    """Column names: a few words each and no figure (not a first row of values, an item
    "(a) …", a question or a formula's symbols)."""
    return all(
        len(cell.split()) <= 4
        and sum(c.isalpha() for c in cell) >= 3
        and not cell.endswith((".", "?", ":", ";"))
        and not cell.startswith(("(", "-", "•"))
        and not any(c.isdigit() for c in cell)
        for cell in cells
    )


def with_tables(lines: list[SizedLine], rows: dict[str, str]) -> list[SizedLine]:
    """The page's lines with its tables' rows (``table_rows``) written with their headers,
    their header rows left out."""
    written = []
    for line in lines:
        row = rows.get(" ".join(line.text.split()))
        if row is None:
            written.append(line)
        elif row:
            written.append(SizedLine(row, line.size, line.pieces, alone=True))
    return written
