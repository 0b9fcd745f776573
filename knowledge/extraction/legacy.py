"""Older formats people still keep: Excel 97–2003 workbooks (.xls, read by xlrd, the
reference reader of the binary format) and RTF documents (read by striprtf). An .xls reads
as its .xlsx copy does: visible sheets, rows with their headers, figures as the sheet shows
them. An RTF's text keeps its headings (by their paragraph styles), paragraphs and table
rows."""

from __future__ import annotations

import datetime
import re
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import olefile
import xlrd
from striprtf.striprtf import rtf_to_text

from knowledge.extraction.archives import password_protected_office
from knowledge.extraction.base import (
    Budget,
    Deadline,
    Extraction,
    Outline,
    PageText,
    stored_file_missing,
)
from knowledge.extraction.office import (
    SectionWords,
    cell_text,
    damaged,
    formatted_number,
    section_words,
)

_ROWS_BETWEEN_CHECKS = 2000
# What a damaged workbook raises besides xlrd's own XLRDError: a broken compound file
# (olefile's OSError), records cut short (struct.error) or pointing nowhere.
_DAMAGED_XLS = (
    struct.error, ValueError, KeyError, IndexError, AssertionError, OSError,
    OverflowError, LookupError,  # a code page Python does not have
)  # fmt: skip


def extract_xls(path: Path, *, budget: Budget) -> Extraction:
    if not path.exists():
        raise stored_file_missing(path)
    try:
        # Ragged rows: a damaged cell address past the sheet's end padded every row to it.
        book = xlrd.open_workbook(
            file_contents=_workbook_stream(path),
            formatting_info=True,
            on_demand=True,
            ragged_rows=True,
        )
    except xlrd.XLRDError as exc:
        if "encrypted" in str(exc).lower():
            raise password_protected_office() from exc
        raise damaged("Excel", exc) from exc
    except _DAMAGED_XLS as exc:
        raise damaged("Excel", exc) from exc
    words, deadline, outline = section_words(), budget.deadline(), Outline()
    try:
        sheets = [book.sheet_by_index(index) for index in range(book.nsheets)]
        visible = [sheet for sheet in sheets if sheet.visibility == 0]  # 1, 2: hidden
        for sheet in visible:
            outline.heading(1, f"{words.sheet}: {sheet.name}")
            outline.table(_rows(sheet, book, deadline, words))
    except (xlrd.XLRDError, *_DAMAGED_XLS) as exc:
        raise damaged("Excel", exc) from exc
    finally:
        book.release_resources()
    details: dict[str, object] = {
        "sheets": len(visible),
        "hidden_sheets": len(sheets) - len(visible),
    }
    return Extraction([PageText(None, outline.text())], None, details, markdown=True)


def _workbook_stream(path: Path) -> bytes:
    """The workbook's BIFF records, taken out of its compound file by olefile: xlrd's own
    compound-file reader follows a damaged file's looping sector chain forever, holding
    more memory at each turn (6 GB within two minutes, from a 7 KB file)."""
    with olefile.OleFileIO(str(path)) as ole:
        records = ole.openstream("Workbook" if ole.exists("Workbook") else "Book").read()
    if not records:  # xlrd would take "no contents" for "read the file's name"
        raise ValueError("the workbook stream is empty")
    return records


def _rows(sheet: Any, book: Any, deadline: Deadline, words: SectionWords) -> Iterator[list[str]]:
    for number, row in enumerate(sheet.get_rows(), start=1):
        if number % _ROWS_BETWEEN_CHECKS == 0:
            deadline.check(f"{sheet.name}, row {number}")
        yield [_cell(cell, book, words) for cell in row]


def _cell(cell: Any, book: Any, words: SectionWords) -> str:
    """A cell as the sheet shows what it means, as an .xlsx cell is read."""
    if cell.ctype == xlrd.XL_CELL_BOOLEAN:
        return words.true if cell.value else words.false
    if cell.ctype == xlrd.XL_CELL_DATE:
        return cell_text(_date(cell.value, book.datemode))
    if cell.ctype == xlrd.XL_CELL_NUMBER:
        number_format = book.format_map[book.xf_list[cell.xf_index].format_key].format_str
        return formatted_number(cell.value, number_format or "General")
    if cell.ctype == xlrd.XL_CELL_ERROR:
        return xlrd.error_text_from_code.get(cell.value, "")
    return cell_text(cell.value) if cell.value != "" else ""


def _date(value: float, datemode: int) -> datetime.datetime | datetime.time:
    moment = xlrd.xldate.xldate_as_datetime(value, datemode)
    return moment.time() if value < 1 else moment  # a time of day has no date


def extract_rtf(path: Path) -> Extraction:
    """The text in order: paragraphs, and table rows (striprtf ends each cell with "|")
    read with their table's column headers."""
    if not path.exists():
        raise stored_file_missing(path)
    # RTF is 7-bit text: other characters are escapes the reader decodes with the file's
    # code page (\ansicpg) or its fonts' character sets.
    source = path.read_bytes().decode("latin-1")
    try:
        text = rtf_to_text(_mark_headings(source), errors="replace")
    except (ValueError, TypeError, IndexError, LookupError, OverflowError) as exc:
        raise damaged("RTF", exc) from exc
    outline = Outline()
    rows: list[list[str]] = []
    for line in text.splitlines():
        if line.endswith("|"):
            rows.append(_HEADING_MARK.sub("", line[:-1]).split("|"))
            continue
        if rows:
            outline.table(rows)
            rows = []
        if heading := _HEADING_MARK.match(line):
            outline.heading(int(heading.group(1)), _HEADING_MARK.sub("", line))
        else:
            outline.paragraph(_HEADING_MARK.sub("", line))
    outline.table(rows)
    return Extraction([PageText(None, outline.text())], None, {}, markdown=True)


# striprtf keeps no styles: a heading paragraph's style control word (\s1) gets this text
# after it, which comes out at the start of its line. ASCII, as RTF's text is.
_HEADING_MARK = re.compile(r"@@pb-heading-(\d)@@")
_STYLE_WORD = re.compile(r"(?<!\\)\\s(\d+)(?!\d)")
_CONTROL_WORD = re.compile(r"\\[a-zA-Z]+-?\d* ?|\\\*")
_HEX = re.compile(r"\\'([0-9a-fA-F]{2})")  # a letter of the code page: "T\'edtulo"
_UNICODE = re.compile(r"\\u(-?\d+) ?(?:\\'[0-9a-fA-F]{2}|\?)?")  # and its fallback
# A heading style by its name, in the languages word processors name them ("Heading 2",
# "Título 2", "Überschrift 2", "Titre 2"), or by the outline level it sets (Word's).
_HEADING_NAME = re.compile(
    r"^(?:heading|t[íi]tulo|[üu]berschrift|titre|titolo|kop)\s*([1-6])$", re.IGNORECASE
)
_OUTLINE_LEVEL = re.compile(r"\\outlinelevel([0-5])(?!\d)")


def _mark_headings(source: str) -> str:
    """The RTF with each heading paragraph's style word followed by ``_HEADING_MARK``."""
    sheet = _group_at(source, source.find("{\\stylesheet"))
    if sheet is None:
        return source
    start, end = sheet
    levels = _heading_styles(source[start:end])
    if not levels:
        return source

    def marked(style: re.Match[str]) -> str:
        level = levels.get(style.group(1))
        return f"{style.group(0)} @@pb-heading-{level}@@" if level else style.group(0)

    return source[:end] + _STYLE_WORD.sub(marked, source[end:])


def _heading_styles(stylesheet: str) -> dict[str, int]:
    """Paragraph style number → heading level, for the styles that are headings."""
    levels = {}
    for style in re.finditer(r"\{([^{}]*)\}", stylesheet):
        definition = style.group(1)
        number = _STYLE_WORD.search(definition)
        if number is None:
            continue
        letters = _UNICODE.sub(lambda u: chr(int(u.group(1)) % 65536), definition)
        letters = _HEX.sub(lambda h: bytes.fromhex(h.group(1)).decode("cp1252", "replace"), letters)
        name = _CONTROL_WORD.sub("", letters).strip().rstrip(";").strip()
        by_name = _HEADING_NAME.match(name)
        by_outline = _OUTLINE_LEVEL.search(definition)
        if by_name:
            levels[number.group(1)] = int(by_name.group(1))
        elif by_outline:
            levels[number.group(1)] = int(by_outline.group(1)) + 1
    return levels


_STYLESHEET_CHARACTERS = 1_000_000  # a real one is a few KB: a damaged file is not scanned whole


def _group_at(source: str, start: int) -> tuple[int, int] | None:
    """Where the group opening at ``start`` ends (after its closing brace), its escaped
    braces (\\{, \\}) not counted; None when it does not open or never closes."""
    if start < 0:
        return None
    depth = 0
    index = start
    while index < min(len(source), start + _STYLESHEET_CHARACTERS):
        character = source[index]
        if character == "\\":
            index += 2  # an escaped character or a control word's backslash
            continue
        if character == "{":
            depth += 1
        elif character == "}":
            depth -= 1
            if depth == 0:
                return start, index + 1
        index += 1
    return None
