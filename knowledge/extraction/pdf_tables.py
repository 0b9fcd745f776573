"""Tables in a PDF, from where their text stands.

A PDF draws a price list as words at positions: read in order, its rows run together
("Servicio Tarifa Plazo Traducción 0,08 € por palabra 5 días Revisión 0,03 €…") and no row
says which figure is which. pypdf's layout mode places each line's text in columns of
characters, so a table shows as lines split into the same number of cells by bands of
blank columns that run down every row (a justified paragraph's wide spaces do not line up
from one line to the next). Each row is then written as Word tables are, with its column
headers: "Servicio: Revisión · Tarifa: 0,03 € por palabra · Plazo: 2 días". A cell that
wraps onto the lines below ("Sábados 10, 17 y" over "24 de octubre") is read whole, with
its row: the plain text has such a row's pieces on lines of their own, in the order they
were drawn, so ``with_tables`` finds them by their words.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

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
    starts: list[int] = field(default_factory=list)  # where each cell begins


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
    for number, row in enumerate([*_rows_of(layout), None]):
        if run and (row is None or not _aligned([*run, row])):
            near = previous if previous and number - len(run) - previous.ended <= WRAPPED else None
            previous = _write(run, near, rows, number) or previous
            run = []
        if row is not None:
            run.append(row)
    return rows


def _rows_of(layout: str) -> list[_Row | None]:
    """Each line of the layout but blank ones, as a row (``_row``) or None. When blank
    lines set a table's rows apart (a cell's padding does), a row and the lines right under
    it that hold only the rest of its cells are one row (``_wrap``); a line of another row
    among them, and nothing is merged: a list's hanging lines ("[10]  Digital signature…"
    over "http://…") are no table's cells."""
    rows: list[_Row | None] = []
    for block in re.split(r"\n\s*\n", layout):
        lines = [line for line in block.split("\n") if line.strip()]
        first = _row(lines[0]) if lines else None
        if first is not None and len(lines) > 1 and _wrap(first, lines[1:]):
            rows.append(first)
        else:
            rows.extend(_row(line) for line in lines)
    return rows


def _row(line: str) -> _Row | None:
    """A line of two cells or more; not a contents page's ("1.2 Scope ....... 4")."""
    cells = list(_CELL.finditer(line))
    if len(cells) < 2 or _LEADER.search(line):
        return None
    gaps = [(left.end(), right.start()) for left, right in zip(cells, cells[1:], strict=False)]
    starts = [cell.start() for cell in cells]
    return _Row([cell.group() for cell in cells], gaps, starts)


def _wrap(row: _Row, lines: list[str]) -> bool:
    """Whether ``lines`` hold only the rest of ``row``'s cells, and if so adds them to it:
    each piece within one of its columns, and fewer pieces than the row has cells or none
    in the first column (another row fills that one)."""
    wrapped: list[list[tuple[int, str]]] = []
    for line in lines:
        pieces = list(_CELL.finditer(line))
        columns = [_column(row, piece) for piece in pieces]
        if None in columns or len(set(columns)) < len(columns):
            return False
        if 0 in columns and len(pieces) >= len(row.cells):
            return False
        wrapped.append(
            [(c, p.group()) for c, p in zip(columns, pieces, strict=True) if c is not None]
        )
    for pieces_of_a_line in wrapped:
        for column, piece in pieces_of_a_line:
            row.cells[column] = f"{row.cells[column]} {piece}"
    return True


def _column(row: _Row, piece: re.Match[str]) -> int | None:
    """The column of ``row`` that ``piece`` stands in: starting where one of its cells
    does (give or take a character) and ending before the next one starts."""
    for column, start in enumerate(row.starts):
        after = row.starts[column + 1] if column + 1 < len(row.starts) else None
        if abs(piece.start() - start) <= 1 and (after is None or piece.end() < after - 1):
            return column
    return None


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
    their header rows left out. A row whose cells wrapped is on several lines of the plain
    text, its pieces in the order they were drawn: the lines holding its words, no more."""
    by_words = {_words(row): written for row, written in rows.items()}
    longest = max((len(words) for words in by_words), default=0)
    written: list[SizedLine] = []
    number = 0
    while number < len(lines):
        line = lines[number]
        row, taken = rows.get(" ".join(line.text.split())), 1
        if row is None:
            row, taken = _wrapped_row(lines, number, by_words, longest)
        if row is None:
            written.append(line)
        elif row:
            written.append(SizedLine(row, line.size, line.pieces, alone=True))
        number += taken
    return written


def _words(text: str) -> tuple[str, ...]:
    return tuple(sorted(text.split()))


def _wrapped_row(
    lines: list[SizedLine], first: int, by_words: dict[tuple[str, ...], str], longest: int
) -> tuple[str | None, int]:
    """The row whose words lines ``first`` onward hold together, and how many lines."""
    if not lines[first].text.strip():
        return None, 1  # a blank line stays where it is
    held: Counter[str] = Counter()
    for number in range(first, len(lines)):
        held.update(lines[number].text.split())
        if held.total() > longest:
            break
        row = by_words.get(tuple(sorted(held.elements())))
        if row is not None and number > first:
            return row, number - first + 1
    return None, 1
