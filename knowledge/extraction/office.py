"""Word, PowerPoint and Excel files, read by python-docx, python-pptx and openpyxl (all three
parse XML without resolving entities; openpyxl through defusedxml). Headings make sections;
each slide is a section with its title and speaker notes; each sheet a section whose rows
are read with their column headers."""

from __future__ import annotations

import datetime
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import docx
import lxml.etree
import openpyxl
import pptx
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext_noop, pgettext
from docx.enum.style import WD_STYLE_TYPE
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.exceptions import PackageNotFoundError
from docx.table import Table
from pptx.enum.shapes import MSO_SHAPE_TYPE, PP_PLACEHOLDER
from pptx.exc import PackageNotFoundError as PptxPackageNotFoundError

from knowledge.extraction.archives import check_inventory, check_xml_parts, open_zip
from knowledge.extraction.base import (
    Budget,
    Deadline,
    Extraction,
    IngestionError,
    Outline,
    PageText,
    list_marker,
    stored_file_missing,
    whole_number,
)

_ROWS_BETWEEN_CHECKS = 2000
# A sheet formatted to its last row reports a million rows of nothing: after this many empty
# rows in a row, the rest of the sheet is taken to be empty.
_EMPTY_ROWS_TO_STOP = 1000
# Placeholders that repeat on every slide and say nothing about its content.
_MARGIN_PLACEHOLDERS = {PP_PLACEHOLDER.FOOTER, PP_PLACEHOLDER.SLIDE_NUMBER, PP_PLACEHOLDER.DATE}
_LIBRARY_ERRORS = (
    PackageNotFoundError,
    PptxPackageNotFoundError,
    KeyError,
    ValueError,
    TypeError,
    AttributeError,
    zipfile.BadZipFile,
    lxml.etree.LxmlError,
)


def checked_archive(path: Path, budget: Budget) -> None:
    """Checks every ZIP-based reader runs before its library opens the file."""
    if not path.exists():
        raise stored_file_missing(path)
    with path.open("rb") as stream, open_zip(stream) as archive:
        check_inventory(archive, budget.max_unpacked_bytes)
        check_xml_parts(archive)


def damaged(kind: str, exc: Exception) -> IngestionError:
    return IngestionError(
        gettext_noop(
            "This %(kind)s file is damaged or incomplete and could not be read. Open it and save "
            "it again, then upload that copy."
        ),
        params={"kind": kind},
        extra={"technical": f"{type(exc).__name__}: {exc}"[:500]},
    )


@dataclass(frozen=True)
class SectionWords:
    """Section names the product adds, in the deployment's language: they are part of the
    stored text, shown in citations to every reader."""

    slide: str
    notes: str
    sheet: str
    true: str  # a sheet's TRUE and FALSE, as Excel shows them in that language
    false: str


def section_words() -> SectionWords:
    with translation.override(settings.LANGUAGE_CODE):
        return SectionWords(
            slide=pgettext("presentation", "Slide"),
            notes=pgettext("presentation", "Speaker notes"),
            sheet=pgettext("spreadsheet", "Sheet"),
            true=pgettext("spreadsheet", "TRUE"),
            false=pgettext("spreadsheet", "FALSE"),
        )


# -- Word ---------------------------------------------------------------------------------


def extract_docx(path: Path, *, budget: Budget) -> Extraction:
    checked_archive(path, budget)
    try:
        document = docx.Document(str(path))
        styles = _style_names(document)
        numbering = _Numbering(document)
        outline = Outline()
        below_title = 0  # headings sit one level under the document's title, when it has one
        for block in document.iter_inner_content():
            if isinstance(block, Table):
                outline.table(_docx_rows(block))
                continue
            name = styles.get(block._p.style or "", styles[""])
            if name == "title":
                outline.heading(1, block.text)
                below_title = 1
            elif level := _heading_level(name):
                outline.heading(level + below_title, block.text)
            elif (marker := numbering.marker(block._p)) is not None:
                outline.item(marker, block.text)
            else:
                outline.paragraph(block.text)
        if not outline:
            _every_paragraph(document, outline)
    except _LIBRARY_ERRORS as exc:
        raise damaged("Word", exc) from exc
    return Extraction([PageText(None, outline.text())], None, {}, markdown=True)


_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _every_paragraph(document: Any, outline: Outline) -> None:
    """A document whose text sits only in text boxes or content controls (a flyer, a form)
    has no body paragraph python-docx yields: every paragraph of the body, in order."""
    for paragraph in document.element.body.iter(f"{_W}p"):
        if paragraph.find(f".//{_W}p") is None:  # a box's paragraph, not the one holding it
            outline.paragraph("".join(t.text or "" for t in paragraph.iter(f"{_W}t")))


class _Numbering:
    """Word's list numbering, as far as an item's marker needs it: the list and level of a
    paragraph (its own ``numPr``, else its style's: "List Number"), that level's format and
    start (numbering.xml), and a running count per list, deeper levels restarting under a
    new item. Restarts and overrides Word applies per list instance are not read."""

    def __init__(self, document: Any) -> None:
        self.levels: dict[tuple[str, str], tuple[str, int]] = {}
        self.counts: dict[str, dict[int, int]] = {}
        try:  # not python-docx's numbering_part: it would try to create a missing one
            root = document.part.part_related_by(RT.NUMBERING).element
        except KeyError:  # a document without lists
            root = lxml.etree.Element(f"{_W}numbering")
        abstract = {
            node.get(f"{_W}abstractNumId"): {
                lvl.get(f"{_W}ilvl"): (
                    _w_val(lvl, "numFmt") or "decimal",
                    whole_number(_w_val(lvl, "start"), 1),
                )
                for lvl in node.iter(f"{_W}lvl")
            }
            for node in root.iter(f"{_W}abstractNum")
        }
        for num in root.iter(f"{_W}num"):
            for ilvl, level in abstract.get(_w_val(num, "abstractNumId"), {}).items():
                self.levels[(num.get(f"{_W}numId"), ilvl)] = level
        self.by_style = {
            style.style_id: num_pr
            for style in document.styles
            if (num_pr := _num_pr(style.element)) is not None
        }

    def marker(self, paragraph: Any) -> str | None:
        """The item's marker, or None for a paragraph that is no list item."""
        found = _num_pr(paragraph)
        if found is None:
            found = self.by_style.get(paragraph.style or "")
        if found is None or found[0] == "0":  # numId 0: numbering taken off
            return None
        num_id, ilvl = found
        style, start = self.levels.get((num_id, ilvl), ("decimal", 1))
        counts = self.counts.setdefault(num_id, {})
        depth = whole_number(ilvl, 0)
        counts[depth] = counts.get(depth, 0) + 1
        for deeper in [level for level in counts if level > depth]:
            del counts[deeper]
        return list_marker(style, start + counts[depth] - 1)


def _num_pr(element: Any) -> tuple[str, str] | None:
    """(numId, ilvl) of a paragraph's or a style's ``w:numPr``."""
    num_pr = element.find(f"{_W}pPr/{_W}numPr")
    if num_pr is None:
        return None
    return _w_val(num_pr, "numId") or "0", _w_val(num_pr, "ilvl") or "0"


def _w_val(element: Any, child: str) -> str | None:
    node = element.find(f"{_W}{child}")
    return None if node is None else node.get(f"{_W}val")


def _style_names(document: Any) -> dict[str, str]:
    """Paragraph style names by id, read once ("" = the default paragraph style): asking
    each paragraph for its style searches the styles part every time (92% of the reading
    time of a 480-paragraph file)."""
    names = {style.style_id: (style.name or "").lower() for style in document.styles}
    default = document.styles.default(WD_STYLE_TYPE.PARAGRAPH)
    names[""] = (default.name or "").lower() if default is not None else ""
    return names


def _heading_level(style_name: str) -> int:
    if style_name.startswith("heading ") and style_name[8:].isdigit():
        return int(style_name[8:])
    return 0


def _docx_rows(table: Table) -> Iterator[list[str]]:
    for row in table.rows:
        cells, seen = [], set()
        for cell in row.cells:
            if id(cell._tc) in seen:  # a merged cell is returned once per column it spans
                continue
            seen.add(id(cell._tc))
            cells.append(cell.text)
        yield cells


# -- PowerPoint ---------------------------------------------------------------------------


def extract_pptx(path: Path, *, budget: Budget) -> Extraction:
    checked_archive(path, budget)
    deadline = budget.deadline()
    outline = Outline()
    words = section_words()
    try:
        presentation = pptx.Presentation(str(path))
        for number, slide in enumerate(presentation.slides, start=1):
            _slide(slide, number, outline, words)
            deadline.check(f"slide {number}")
    except _LIBRARY_ERRORS as exc:
        raise damaged("PowerPoint", exc) from exc
    details: dict[str, object] = {"slides": len(presentation.slides)}
    return Extraction([PageText(None, outline.text())], None, details, markdown=True)


def _slide(slide: Any, number: int, outline: Outline, words: SectionWords) -> None:
    title_shape = slide.shapes.title
    title = title_shape.text_frame.text.strip() if title_shape is not None else ""
    outline.heading(1, f"{words.slide} {number}: {title}" if title else f"{words.slide} {number}")
    shapes = [
        s
        for s in _shapes(slide.shapes)
        if title_shape is None or s.shape_id != title_shape.shape_id
    ]
    for shape in sorted(shapes, key=lambda s: (s.top or 0, s.left or 0)):
        if getattr(shape, "has_table", False) and shape.has_table:
            outline.table([[cell.text for cell in row.cells] for row in shape.table.rows])
        elif shape.has_text_frame:
            for paragraph in shape.text_frame.paragraphs:
                outline.paragraph("".join(run.text for run in paragraph.runs))
    notes = slide.notes_slide.notes_text_frame if slide.has_notes_slide else None
    if notes is not None and notes.text.strip():
        outline.heading(2, words.notes)
        for paragraph in notes.paragraphs:
            outline.paragraph("".join(run.text for run in paragraph.runs))


def _shapes(shapes: Any) -> Iterator[Any]:
    """Every shape with content, groups opened, footers and slide numbers left out."""
    for shape in shapes:
        if shape.is_placeholder and shape.placeholder_format.type in _MARGIN_PLACEHOLDERS:
            continue
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _shapes(shape.shapes)
        else:
            yield shape


# -- Excel --------------------------------------------------------------------------------


def extract_xlsx(path: Path, *, budget: Budget) -> Extraction:
    checked_archive(path, budget)
    deadline = budget.deadline()
    outline = Outline()
    words = section_words()
    try:
        workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except _LIBRARY_ERRORS + (OSError,) as exc:
        raise damaged("Excel", exc) from exc
    try:
        sheets = [sheet for sheet in workbook.worksheets if sheet.sheet_state == "visible"]
        for sheet in sheets:
            outline.heading(1, f"{words.sheet}: {sheet.title}")
            outline.table(_sheet_rows(sheet, deadline, words))
    except _LIBRARY_ERRORS as exc:
        raise damaged("Excel", exc) from exc
    finally:
        workbook.close()
    return Extraction(
        [PageText(None, outline.text())], None, {"sheets": len(sheets)}, markdown=True
    )


def _sheet_rows(sheet: Any, deadline: Deadline, words: SectionWords) -> Iterator[list[str]]:
    empty = 0
    for number, row in enumerate(sheet.iter_rows(), start=1):
        if number % _ROWS_BETWEEN_CHECKS == 0:
            deadline.check(f"{sheet.title}, row {number}")
        cells = [_sheet_cell_text(cell, words) for cell in row]
        empty = 0 if any(cells) else empty + 1
        if empty >= _EMPTY_ROWS_TO_STOP:
            return
        yield cells


def _sheet_cell_text(cell: Any, words: SectionWords) -> str:
    """A cell as the sheet shows what it means: a percentage as one, a currency with its
    sign, TRUE and FALSE in the deployment's language."""
    value = cell.value
    if isinstance(value, bool):
        return words.true if value else words.false
    number_format = getattr(cell, "number_format", None) or "General"
    if isinstance(value, int | float) and number_format != "General":
        return _formatted_number(value, number_format)
    return _cell_text(value)


# The symbols a currency format shows, longest first ("R$" before "$").
_CURRENCIES = ("R$", "US$", "€", "£", "$")
_DECIMALS = re.compile(r"\.(0+)")


def _formatted_number(value: float, number_format: str) -> str:
    """What a number format says that changes what a figure means: a percentage (0.15 shown
    as 15%) and a currency (49.9 shown as 49.90 €). Thousands separators, colours and the
    styles of negative numbers leave the figure as stored."""
    positive = number_format.split(";")[0]
    decimals = len(found.group(1)) if (found := _DECIMALS.search(positive)) else 0
    if "%" in positive:
        return f"{value * 100:.{decimals}f}%"
    symbol = next((sign for sign in _CURRENCIES if sign in positive), None)
    if symbol is None:
        return _cell_text(value)
    figure = f"{value:.{decimals}f}"
    digits_at = min((positive.find(c) for c in "0#" if c in positive), default=len(positive))
    return f"{symbol} {figure}" if positive.find(symbol) < digits_at else f"{figure} {symbol}"


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime.datetime):  # midnight is a date; seconds only when set
        if value.time() == datetime.time():
            return value.date().isoformat()
        return value.isoformat(sep=" ", timespec="seconds" if value.second else "minutes")
    if isinstance(value, datetime.time):
        return value.isoformat(timespec="seconds" if value.second else "minutes")
    if isinstance(value, datetime.date):
        return value.isoformat()
    return str(value)
