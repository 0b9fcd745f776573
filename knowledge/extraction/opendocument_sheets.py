"""OpenDocument spreadsheets (.ods, LibreOffice Calc): each visible sheet a section, each row
read with the sheet's column headers, each cell as the sheet shows it (Calc writes the
formatted value, "49,90 €" or "15 %", as the cell's text)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from xml.etree.ElementTree import Element

from knowledge.extraction.base import (
    Budget,
    Deadline,
    Extraction,
    Outline,
    PageText,
    whole_number,
)
from knowledge.extraction.office import section_words
from knowledge.extraction.opendocument import (
    OFFICE,
    TABLE,
    TEXT,
    Reading,
    inline_text,
    new_reading,
    parsed_parts,
    styles_setting,
)
from knowledge.extraction.pictures import PictureReader

# A sheet's rows and cells may say "repeated 1,048,576 times" (Calc writes the empty rest of
# a formatted sheet so): a repeat is never expanded past these.
MAX_COLUMNS = 1024
MAX_REPEATED_ROWS = 100
_ROWS_BETWEEN_CHECKS = 2000
_ROW_GROUPS = {f"{TABLE}{name}" for name in ("table-header-rows", "table-rows", "table-row-group")}
_CELLS = {f"{TABLE}table-cell", f"{TABLE}covered-table-cell"}


def extract_ods(path: Path, *, budget: Budget) -> Extraction:
    root, styles_root = parsed_parts(path, budget)
    words = section_words()
    # A cell's text is read, not the pictures floating over the sheet (charts, a logo).
    reading = new_reading(root, styles_root, PictureReader.descriptions_only(words.picture))
    # Calc's "Hide sheet"
    hidden_styles = styles_setting(root, "table-properties", f"{TABLE}display", "false")
    deadline = budget.deadline()
    outline = Outline()
    sheets = root.findall(f"{OFFICE}body/{OFFICE}spreadsheet/{TABLE}table")
    visible = [sheet for sheet in sheets if sheet.get(f"{TABLE}style-name") not in hidden_styles]
    for sheet in visible:
        name = sheet.get(f"{TABLE}name", "")
        outline.heading(1, f"{words.sheet}: {name}")
        outline.table(_rows(sheet, reading, deadline, name))
    hidden = len(sheets) - len(visible)
    details: dict[str, object] = {"sheets": len(visible), "hidden_sheets": hidden}
    return Extraction([PageText(None, outline.text())], None, details, markdown=True)


def _rows(sheet: Element, reading: Reading, deadline: Deadline, name: str) -> Iterator[list[str]]:
    """The sheet's filled rows; a row repeated (the same values on many rows) at most
    ``MAX_REPEATED_ROWS`` times."""
    number = 0
    for row in _row_elements(sheet):
        cells = _cells(row, reading)
        repeated = whole_number(row.get(f"{TABLE}number-rows-repeated"), 1)
        number += repeated
        if number // _ROWS_BETWEEN_CHECKS != (number - repeated) // _ROWS_BETWEEN_CHECKS:
            deadline.check(f"{name}, row {number}")
        if cells:
            yield from [cells] * min(max(repeated, 1), MAX_REPEATED_ROWS)


def _row_elements(element: Element) -> Iterator[Element]:
    """A sheet's rows in order, inside header rows and row groups too."""
    for child in element:
        if child.tag == f"{TABLE}table-row":
            yield child
        elif child.tag in _ROW_GROUPS:
            yield from _row_elements(child)


def _cells(row: Element, reading: Reading) -> list[str]:
    """A row's cells by column (a merged cell's covered ones empty) up to its last filled
    one, at most ``MAX_COLUMNS``; [] for an empty row."""
    cells: list[str] = []
    for cell in row:
        if cell.tag not in _CELLS:
            continue
        text = " ".join(inline_text(p, reading) for p in cell.iter(f"{TEXT}p")).strip()
        repeated = max(whole_number(cell.get(f"{TABLE}number-columns-repeated"), 1), 1)
        cells += [text] * min(repeated, MAX_COLUMNS - len(cells))
        if len(cells) >= MAX_COLUMNS:
            break
    while cells and not cells[-1]:
        cells.pop()
    return cells
