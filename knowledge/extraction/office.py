"""Word, PowerPoint and Excel files, read by python-docx, python-pptx and openpyxl (all three
parse XML without resolving entities; openpyxl through defusedxml). Headings make sections;
each slide is a section with its title and speaker notes; each sheet a section whose rows
are read with their column headers."""

from __future__ import annotations

import datetime
import functools
import logging
import re
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
from docx.exceptions import PythonDocxError
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.exceptions import PackageNotFoundError
from docx.oxml import OxmlElement, parse_xml
from docx.table import Table
from pptx.enum.shapes import MSO_SHAPE_TYPE, PP_PLACEHOLDER
from pptx.exc import PackageNotFoundError as PptxPackageNotFoundError
from pptx.exc import PythonPptxError
from pptx.shapes.picture import Picture

from knowledge.extraction.archives import (
    DAMAGED_ARCHIVE,
    check_inventory,
    check_xml_parts,
    open_zip,
)
from knowledge.extraction.base import (
    PAGE_MARK,
    Budget,
    Deadline,
    Extraction,
    IngestionError,
    Outline,
    PageText,
    list_marker,
    margin_text,
    one_line,
    row_text,
    stored_file_missing,
    whole_number,
)
from knowledge.extraction.pictures import PictureReader

logger = logging.getLogger(__name__)

_ROWS_BETWEEN_CHECKS = 2000
# A sheet formatted to its last row reports a million rows of nothing: after this many empty
# rows in a row, the rest of the sheet is taken to be empty.
_EMPTY_ROWS_TO_STOP = 1000
# Placeholders that repeat on every slide and say nothing about its content.
_MARGIN_PLACEHOLDERS = {PP_PLACEHOLDER.FOOTER, PP_PLACEHOLDER.SLIDE_NUMBER, PP_PLACEHOLDER.DATE}
_LIBRARY_ERRORS = (
    PackageNotFoundError,
    PptxPackageNotFoundError,
    PythonDocxError,  # a required attribute missing from a damaged part
    PythonPptxError,
    KeyError,
    ValueError,
    TypeError,
    AttributeError,
    *DAMAGED_ARCHIVE,
    SyntaxError,  # openpyxl's XML parser (xml.etree's ParseError) on a broken part
    LookupError,  # an XML declaration naming an encoding that does not exist
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
    footnotes: str  # a document's notes that nothing in its body cites, at its end
    margins: str  # the text of its page headers and footers, once
    picture: str  # before a picture's description
    sheet: str
    true: str  # a sheet's TRUE and FALSE, as Excel shows them in that language
    false: str
    mail: dict[str, str]  # an e-mail's header fields, "Attachment" and "(no subject)"


def section_words() -> SectionWords:
    with translation.override(settings.LANGUAGE_CODE):
        return SectionWords(
            slide=pgettext("presentation", "Slide"),
            notes=pgettext("presentation", "Speaker notes"),
            footnotes=pgettext("document", "Notes"),
            margins=pgettext("document", "Header and footer"),
            picture=pgettext("document", "Picture"),
            sheet=pgettext("spreadsheet", "Sheet"),
            true=pgettext("spreadsheet", "TRUE"),
            false=pgettext("spreadsheet", "FALSE"),
            mail={
                "from": pgettext("e-mail", "From"),
                "to": pgettext("e-mail", "To"),
                "cc": pgettext("e-mail", "Cc"),
                "date": pgettext("e-mail", "Date"),
                "attachment": pgettext("e-mail", "Attachment"),
                "no_subject": pgettext("e-mail", "(no subject)"),
            },
        )


@functools.cache
def slide_title() -> re.Pattern[str]:
    """A slide's heading as the product writes it ("Slide 3: Prices", "Diapositiva 3:
    Precios"), in every language it speaks (a deck is written in the language of the
    deployment that read it, which may have changed since); its title is the group."""
    labels = (re.escape(label) for label in _in_every_language("presentation", "Slide"))
    return re.compile(rf"^(?:{'|'.join(sorted(labels))}) \d+: (.+)$")


@functools.cache
def speaker_notes_headings() -> frozenset[str]:
    """The heading of a slide's speaker notes ("Speaker notes", "Notas del orador"), in
    every language the product speaks."""
    return frozenset(_in_every_language("presentation", "Speaker notes"))


def _in_every_language(context: str, message: str) -> set[str]:
    labels = set()
    for code, _ in settings.LANGUAGES:
        with translation.override(code):
            labels.add(pgettext(context, message))
    return labels


# -- SmartArt (Word and PowerPoint) ------------------------------------------------------

_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_DGM = "{http://schemas.openxmlformats.org/drawingml/2006/diagram}"
_R_DM = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}dm"


def diagram_texts(element: Any, part: Any) -> list[str]:
    """The texts of the SmartArt diagrams in ``element`` (a paragraph, a slide's shape), each
    in the diagram's own order: from its root down the tree of its points, a point's
    children in their order (an org chart's boxes, a process's steps). Their text is in a
    part of its own (``dataN.xml``) that neither library reads."""
    texts = []
    for ids in element.iter(f"{_DGM}relIds"):
        if (root := _related_xml(part, ids.get(_R_DM))) is not None:
            texts += _diagram_points(root)
    return texts


def _related_xml(part: Any, relation_id: str | None) -> Any:
    """The XML of the part ``relation_id`` names, or None when it is missing or damaged: a
    broken chart or diagram loses its own text, not the document's."""
    # python-docx's parts map their relations, python-pptx's look one up
    related = getattr(part, "related_parts", None)
    try:
        target = related[relation_id] if related is not None else part.related_part(relation_id)
        return parse_xml(target.blob)
    except KeyError:  # a drawing whose part is missing: nothing to read
        return None
    except lxml.etree.XMLSyntaxError:
        logger.warning("a drawing's part %s is not XML; its text is not read", relation_id)
        return None


def _diagram_points(root: Any) -> list[str]:
    points = {point.get("modelId"): point for point in root.iter(f"{_DGM}pt")}
    children: dict[str | None, list[tuple[int, str | None]]] = {}
    for link in root.iter(f"{_DGM}cxn"):
        if link.get("type", "parOf") == "parOf":
            order = whole_number(link.get("srcOrd"), 0)
            children.setdefault(link.get("srcId"), []).append((order, link.get("destId")))
    roots = [key for key, point in points.items() if point.get("type") == "doc"]
    ordered = _depth_first(roots, children, points) if roots else list(points.values())
    texts = []
    for point in ordered:
        body = point.find(f"{_DGM}t")
        if point.get("type", "node") in ("node", "asst") and body is not None:
            lines = ("".join(t.text or "" for t in p.iter(f"{_A}t")) for p in body.iter(f"{_A}p"))
            if text := one_line(" ".join(lines)):
                texts.append(text)
    return texts


def _first(pair: tuple[int, str | None]) -> int:
    return pair[0]


def _depth_first(
    roots: list[str | None],
    children: dict[str | None, list[tuple[int, str | None]]],
    points: dict[str | None, Any],
) -> list[Any]:
    """The points from the roots down, each once: a hostile file may link them in a loop."""
    ordered, seen, stack = [], set(), list(reversed(roots))
    while stack:
        key = stack.pop()
        if key in seen or key not in points:
            continue
        seen.add(key)
        ordered.append(points[key])
        stack += [child for _, child in sorted(children.get(key, []), key=_first, reverse=True)]
    return ordered


# -- Charts (Word and PowerPoint) ---------------------------------------------------------

_C = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
_R_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_POINT_LISTS = (f"{_C}strCache", f"{_C}numCache", f"{_C}strLit", f"{_C}numLit", f"{_C}lvl")


def write_charts(element: Any, part: Any, outline: Outline) -> None:
    """The charts in ``element``: each one's title, then a line per category with each
    series' figure ("Plan: Pro · 2025: 49 € · 2026: 55 €"), from the values the chart keeps
    in its own part (``chartN.xml``), which neither library reads as text: a deck's "Fees
    by plan" often holds its facts only there."""
    for reference in element.iter(f"{_C}chart"):
        root = _related_xml(part, reference.get(_R_ID))
        if root is None:
            continue
        title = root.find(f"{_C}chart/{_C}title")
        if title is not None:
            outline.paragraph("".join(t.text or "" for t in title.iter(f"{_A}t", f"{_C}v")))
        series = list(root.iter(f"{_C}ser"))
        headers = [_axis_title(root), *(_series_name(one) for one in series)]
        columns = [_points(one, "val", "yVal") for one in series]
        categories = next((found for one in series if (found := _points(one, "cat", "xVal"))), {})
        for index in sorted(set(categories).union(*columns)):
            row = [categories.get(index, ""), *(column.get(index, "") for column in columns)]
            outline.paragraph(row_text(headers, row))


def _axis_title(root: Any) -> str:
    title = root.find(f"{_C}chart/{_C}plotArea/{_C}catAx/{_C}title")
    return "" if title is None else "".join(t.text or "" for t in title.iter(f"{_A}t"))


def _series_name(series: Any) -> str:
    name = series.find(f"{_C}tx")
    return "" if name is None else "".join(v.text or "" for v in name.iter(f"{_C}v"))


def _points(series: Any, *tags: str) -> dict[int, str]:
    """A series' cached points by index: its categories, or its figures as the chart shows
    them (its number format: "15%", "49.90 €")."""
    for tag in tags:
        data = series.find(f"{_C}{tag}")
        if data is None:
            continue
        points: dict[int, str] = {}
        # a multi-level category ("Q1" under "2025") has a list per level: read together
        for cache in data.iter(*_POINT_LISTS):
            number_format = cache.findtext(f"{_C}formatCode") or "General"
            for point in cache.iterchildren(f"{_C}pt"):
                value = point.findtext(f"{_C}v") or ""
                shown = _chart_number(value, point.get("formatCode") or number_format)
                index = whole_number(point.get("idx"), 0)
                points[index] = f"{points[index]} {shown}" if index in points else shown
        return points
    return {}


def _chart_number(value: str, number_format: str) -> str:
    try:
        return formatted_number(float(value), number_format)
    except ValueError:  # a category's text
        return value


# -- Word ---------------------------------------------------------------------------------


def extract_docx(
    path: Path, *, budget: Budget, pictures: PictureReader | None = None
) -> Extraction:
    checked_archive(path, budget)
    words = section_words()
    try:
        document = docx.Document(str(path))
        _hide_styled_runs(document)
        reading = _WordReading(document, pictures or PictureReader.descriptions_only(words.picture))
        for block in _body_blocks(document.element.body):
            reading.block(block)
            for note in reading.notes.cited():  # right after the text citing it
                reading.outline.paragraph(note)
        outline = reading.outline
        outline.back_matter(words.footnotes, reading.notes.rest())
        outline.back_matter(words.margins, _margins(document, reading.notes))
    except _LIBRARY_ERRORS as exc:
        raise damaged("Word", exc) from exc
    return Extraction([PageText(None, outline.text())], None, {}, markdown=True)


_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


class _WordReading:
    """A Word body read block by block into an outline."""

    def __init__(self, document: Any, pictures: PictureReader) -> None:
        self.document = document
        self.pictures = pictures
        self.styles = _style_names(document)
        self.numbering = _Numbering(document)
        self.notes = _Notes(document)
        self.outline = Outline()
        self.below_title = 0  # headings sit one level under the document's title, if any

    def block(self, block: Any) -> None:
        outline, notes = self.outline, self.notes
        if block.tag == f"{_W}tbl":
            _open_row_controls(block)
            outline.table(_docx_rows(Table(block, self.document._body), notes, self.pictures))
            return
        text = _text_of(block, notes)
        name = self.styles.get(block.style or "", self.styles[""])
        if name == "title":
            outline.heading(1, text)
            self.below_title = 1
        elif level := _heading_level(name):
            outline.heading(level + self.below_title, text)
        elif (marker := self.numbering.marker(block)) is not None:
            outline.item(marker, text)
        else:
            outline.paragraph(text)
        for box_paragraph in _boxed(block):
            outline.paragraph(_text_of(box_paragraph, notes))
        for diagram_text in diagram_texts(block, self.document.part):
            outline.item("-", diagram_text)
        write_charts(block, self.document.part, outline)
        for picture, description in _word_pictures(block, self.document.part):
            self.pictures.write(outline, picture, description)


_WP = "{http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing}"
_PIC = "{http://schemas.openxmlformats.org/drawingml/2006/picture}"
_R_EMBED = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}embed"


def _word_pictures(paragraph: Any, part: Any) -> Iterator[tuple[bytes | None, str]]:
    """Each picture a paragraph shows, as (its bytes, its description): not a hidden one,
    nor one a tracked change removed, nor a linked one (its file is elsewhere)."""
    for run in paragraph.iter(f"{_W}r"):
        if _place_of(run, paragraph) is None:
            continue  # hidden, removed, or in a text box's paragraph
        for drawing in run.iterchildren(f"{_W}drawing"):
            for placed in drawing.iterchildren(f"{_WP}inline", f"{_WP}anchor"):
                picture = placed.find(f"{_A}graphic/{_A}graphicData/{_PIC}pic")
                if picture is None:
                    continue  # a chart, a diagram, a text box
                properties = placed.find(f"{_WP}docPr")
                blip = picture.find(f"{_PIC}blipFill/{_A}blip")
                related = part.related_parts.get(blip.get(_R_EMBED)) if blip is not None else None
                description = properties.get("descr", "") if properties is not None else ""
                yield getattr(related, "blob", None), description


def _body_blocks(element: Any) -> Iterator[Any]:
    """The body's paragraphs and tables in order, content controls (a template's fields, a
    form's sections) opened: python-docx yields only the body's direct ones. A table of
    contents repeats the headings and is left out."""
    for child in element:
        if child.tag in (f"{_W}p", f"{_W}tbl"):
            yield child
        elif child.tag == f"{_W}sdt":
            gallery = child.find(f"{_W}sdtPr/{_W}docPartObj/{_W}docPartGallery")
            if gallery is None or gallery.get(f"{_W}val") != "Table of Contents":
                content = child.find(f"{_W}sdtContent")
                yield from _body_blocks(content) if content is not None else ()
        elif child.tag in (f"{_W}customXml", f"{_W}ins", f"{_W}moveTo"):
            yield from _body_blocks(child)


def _open_row_controls(table: Any) -> None:
    """Content controls around rows or cells (a form's repeating section: one row per
    entry) replaced by what they hold: python-docx reads only a table's direct rows and a
    row's direct cells, so those rows were lost."""
    for control in list(table.iter(f"{_W}sdt", f"{_W}customXml")):
        parent = control.getparent()
        if parent is None or parent.tag not in (f"{_W}tbl", f"{_W}tr"):
            continue  # inside a cell: its paragraphs are read where they are
        content = control.find(f"{_W}sdtContent") if control.tag == f"{_W}sdt" else control
        position = parent.index(control)
        for child in reversed(list(content if content is not None else ())):
            if child.tag not in (f"{_W}sdtPr", f"{_W}customXmlPr"):
                parent.insert(position, child)
        parent.remove(control)


def _hide_styled_runs(document: Any) -> None:
    """Text hidden by its style (a template's "Instructions" character or paragraph style)
    marked hidden on its runs, as Word shows it, where ``_hidden`` reads it. A run's own
    setting wins, then its character style's, then its paragraph style's."""
    hidden = _hidden_styles(document.styles.element)
    if not any(hidden.values()):
        return
    for run in document.element.body.iter(f"{_W}r"):
        properties = run.find(f"{_W}rPr")
        if properties is not None and properties.find(f"{_W}vanish") is not None:
            continue
        by_character = hidden.get(_w_val(properties, "rStyle") if properties is not None else None)
        paragraph = next(run.iterancestors(f"{_W}p"), None)
        paragraph_style = paragraph.find(f"{_W}pPr") if paragraph is not None else None
        by_paragraph = hidden.get(
            _w_val(paragraph_style, "pStyle") if paragraph_style is not None else None
        )
        if by_character or (by_character is None and by_paragraph):
            run.get_or_add_rPr().append(OxmlElement("w:vanish"))


def _hidden_styles(styles: Any) -> dict[str | None, bool | None]:
    """Each style's hidden setting, inherited along ``basedOn`` (None: it says nothing)."""
    own: dict[str, bool | None] = {}
    based_on: dict[str, str] = {}
    for style in styles.iterchildren(f"{_W}style"):
        style_id = style.get(f"{_W}styleId")
        vanish = style.find(f"{_W}rPr/{_W}vanish")
        own[style_id] = None if vanish is None else _on(vanish)
        if (parent := _w_val(style, "basedOn")) is not None:
            based_on[style_id] = parent
    resolved: dict[str | None, bool | None] = {}
    for style_id in own:
        current: str | None = style_id
        seen: set[str] = set()
        while current is not None and current not in seen and own.get(current) is None:
            seen.add(current)
            current = based_on.get(current)
        resolved[style_id] = own.get(current) if current is not None else None
    return resolved


def _on(toggle: Any) -> bool:
    return toggle.get(f"{_W}val", "true") not in ("0", "false", "off")


# What a run shows, as python-docx's Run.text reads it (a tab, a break, a hyphen…).
_RUN_TEXT = {f"{_W}{name}" for name in ("t", "tab", "br", "cr", "noBreakHyphen", "ptab")}
_NOTE_REFERENCES = {f"{_W}footnoteReference": "footnote", f"{_W}endnoteReference": "endnote"}
# Text that is not the document's: removed by a tracked change, or a page number.
_REMOVED = {f"{_W}del", f"{_W}moveFrom"}
_PAGE_FIELDS = {"PAGE", "NUMPAGES", "SECTIONPAGES"}


def _text_of(paragraph: Any, notes: _Notes, page_mark: str = "") -> str:
    """A paragraph's text as Word shows it with its tracked changes accepted: inserted runs
    kept and deleted ones left out, runs inside content controls, smart tags and fields
    read (python-docx reads only a paragraph's direct runs and links), a note's reference
    as "[^2]" (Markdown's footnotes: "[2]" is how answers cite sources), a page number as
    ``page_mark``. A text box's paragraphs are not this one's."""
    parts: list[str] = []
    fields: list[list[str]] = []  # the complex fields open: their instruction, then result
    for run in paragraph.iter(f"{_W}r"):
        place = _place_of(run, paragraph)
        if place is None:
            continue
        for child in run:
            if child.tag == f"{_W}fldChar":
                kind = child.get(f"{_W}fldCharType")
                if kind == "begin":
                    fields.append([])
                elif kind == "end" and fields:
                    fields.pop()
            elif child.tag == f"{_W}instrText" and fields:
                fields[-1].append(child.text or "")
            elif child.tag in _RUN_TEXT:
                page = place == "page" or any(map(_is_page_field, fields))
                parts.append(page_mark if page else str(child))
            elif child.tag in _NOTE_REFERENCES:
                parts.append(notes.marker(_NOTE_REFERENCES[child.tag], child.get(f"{_W}id")))
    return "".join(parts)


def _place_of(run: Any, paragraph: Any) -> str | None:
    """ "text" for a run of the paragraph, "page" for a simple page-number field's, None
    for a run removed by a tracked change, hidden (Word's "Hidden" font effect: a template's
    instructions, notes not meant for readers) or in a text box's own paragraph."""
    if _hidden(run):
        return None
    place = "text"
    for ancestor in run.iterancestors():
        if ancestor is paragraph:
            return place
        if ancestor.tag == f"{_W}p" or ancestor.tag in _REMOVED:
            return None
        if ancestor.tag == f"{_W}fldSimple" and _is_page_field([ancestor.get(f"{_W}instr", "")]):
            place = "page"
    return None


def _hidden(run: Any) -> bool:
    vanish = run.find(f"{_W}rPr/{_W}vanish")
    return vanish is not None and _on(vanish)


def _is_page_field(instruction: list[str]) -> bool:
    words = "".join(instruction).split()
    return bool(words) and words[0].upper() in _PAGE_FIELDS


_MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"


def _boxed(paragraph: Any) -> Iterator[Any]:
    """The paragraphs of the text boxes anchored in a paragraph (a flyer's callout), after
    it. Word writes each box twice, as a drawing and as VML for older readers: the VML copy
    is read only when there is no other."""
    for box in paragraph.iter(f"{_W}txbxContent"):
        fallback = next(box.iterancestors(f"{_MC}Fallback"), None)
        choice = fallback.getprevious() if fallback is not None else None
        if choice is not None and choice.find(f".//{_W}txbxContent") is not None:
            continue
        yield from box.iterchildren(f"{_W}p")


class _Notes:
    """A document's footnotes, then its endnotes (footnotes.xml, endnotes.xml), numbered in
    that order: the body cites each as "[^n]", and each is written as "[^n]: …" (Markdown's
    footnotes) right after the block citing it first — in the same chunk, found and quoted
    with it; notes nothing cites, at the end."""

    def __init__(self, document: Any) -> None:
        self.numbers: dict[tuple[str, str | None], int] = {}
        self.notes: list[Any] = []
        self.pending: list[int] = []  # cited since the last block was written
        self.written: set[int] = set()
        for kind, relation in (("footnote", RT.FOOTNOTES), ("endnote", RT.ENDNOTES)):
            try:
                part = document.part.part_related_by(relation)
            except KeyError:  # a document without notes of this kind
                continue
            # python-docx has no class for these parts: its own parser (no entities) reads them.
            root = parse_xml(part.blob)
            for note in root.iter(f"{_W}{kind}"):
                if note.get(f"{_W}type") in (None, "normal"):  # not the separator lines
                    self.notes.append(note)
                    self.numbers[(kind, note.get(f"{_W}id"))] = len(self.notes)

    def marker(self, kind: str, note_id: str | None) -> str:
        number = self.numbers.get((kind, note_id))
        if number and number not in self.written and number not in self.pending:
            self.pending.append(number)
        return f"[^{number}]" if number else ""

    def cited(self) -> Iterator[str]:
        """The notes cited since the last call, not written yet (a note may cite another)."""
        while self.pending:
            number = self.pending.pop(0)
            self.written.add(number)
            yield self._text(number)

    def rest(self) -> Iterator[str]:
        """The notes nothing cited."""
        for number in range(1, len(self.notes) + 1):
            if number not in self.written:
                self.written.add(number)
                yield self._text(number)

    def _text(self, number: int) -> str:
        paragraphs = self.notes[number - 1].iter(f"{_W}p")
        text = " ".join(_text_of(paragraph, self) for paragraph in paragraphs)
        return f"[^{number}]: {text}" if text.strip() else ""


def _margins(document: Any, notes: _Notes) -> list[str]:
    """What the page headers and footers say, each once (a letterhead's address and phone
    are often only there), without their page numbers."""
    parts = document.part.related_parts
    texts: dict[str, None] = {}
    for section in document.element.body.iter(f"{_W}sectPr"):
        for reference in section:
            if reference.tag in (f"{_W}headerReference", f"{_W}footerReference"):
                part = parts.get(reference.get(_R_ID))
                for paragraph in part.element.iter(f"{_W}p") if part is not None else ():
                    if text := margin_text(_text_of(paragraph, notes, PAGE_MARK)):
                        texts.setdefault(text)
    return list(texts)


class _Numbering:
    """Word's list numbering, as far as an item's marker needs it: the list and level of a
    paragraph (its own ``numPr``, else its style's: "List Number"), that level's format and
    start (numbering.xml), and a running count per abstract list, deeper levels restarting
    under a new item. Every instance (``w:num``) of an abstract list continues its count
    unless it overrides a level: Word's "Restart at 1" is an instance whose override starts
    that level again. A list defined by a numbering style takes that style's levels."""

    def __init__(self, document: Any) -> None:
        try:  # not python-docx's numbering_part: it would try to create a missing one
            root = document.part.part_related_by(RT.NUMBERING).element
        except KeyError:  # a document without lists
            root = lxml.etree.Element(f"{_W}numbering")
        self.by_style = {
            style.style_id: num_pr
            for style in document.styles
            if (num_pr := _num_pr(style.element)) is not None
        }
        abstracts = {node.get(f"{_W}abstractNumId"): node for node in root.iter(f"{_W}abstractNum")}
        instances = {num.get(f"{_W}numId"): num for num in root.iter(f"{_W}num")}
        # numId → (the abstract list it counts in, its levels, the levels it restarts)
        self.instances: dict[str, tuple[str, dict[str, tuple[str, int]], set[str]]] = {}
        for num_id, num in instances.items():
            list_id = self._defining(_w_val(num, "abstractNumId") or "", abstracts, instances)
            levels = _levels(abstracts.get(list_id))
            restarts = set()
            for override in num.iter(f"{_W}lvlOverride"):
                ilvl = override.get(f"{_W}ilvl") or "0"
                number_format, start = levels.get(ilvl, ("decimal", 1))
                if (level := override.find(f"{_W}lvl")) is not None:
                    number_format, start = _level(level, (number_format, start))
                start = whole_number(_w_val(override, "startOverride"), start)
                levels[ilvl] = (number_format, start)
                restarts.add(ilvl)
            self.instances[num_id] = (list_id, levels, restarts)
        self.counts: dict[str, dict[int, int]] = {}
        self.started: set[tuple[str, str]] = set()

    def _defining(self, list_id: str, abstracts: dict[str, Any], instances: dict[str, Any]) -> str:
        """The abstract list holding the levels: one that only links to a numbering style
        (``numStyleLink``) is that style's list."""
        node = abstracts.get(list_id)
        link = _w_val(node, "numStyleLink") if node is not None else None
        num_pr = self.by_style.get(link or "")
        num = instances.get(num_pr[0]) if num_pr is not None else None
        return (_w_val(num, "abstractNumId") or list_id) if num is not None else list_id

    def marker(self, paragraph: Any) -> str | None:
        """The item's marker, or None for a paragraph that is no list item."""
        found = _num_pr(paragraph)
        if found is None:
            found = self.by_style.get(paragraph.style or "")
        if found is None or found[0] == "0":  # numId 0: numbering taken off
            return None
        num_id, ilvl = found
        list_id, levels, restarts = self.instances.get(num_id, (num_id, {}, set()))
        style, start = levels.get(ilvl, ("decimal", 1))
        counts = self.counts.setdefault(list_id, {})
        depth = whole_number(ilvl, 0)
        if ilvl in restarts and (num_id, ilvl) not in self.started:
            self.started.add((num_id, ilvl))
            counts.pop(depth, None)
        counts[depth] = counts.get(depth, 0) + 1
        for deeper in [level for level in counts if level > depth]:
            del counts[deeper]
        return list_marker(style, start + counts[depth] - 1)


def _levels(abstract: Any) -> dict[str, tuple[str, int]]:
    """An abstract list's levels: their number format and start, by ``ilvl``."""
    if abstract is None:
        return {}
    return {
        lvl.get(f"{_W}ilvl") or "0": _level(lvl, ("decimal", 1))
        for lvl in abstract.iter(f"{_W}lvl")
    }


def _level(lvl: Any, default: tuple[str, int]) -> tuple[str, int]:
    return _w_val(lvl, "numFmt") or default[0], whole_number(_w_val(lvl, "start"), default[1])


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


def _docx_rows(table: Table, notes: _Notes, pictures: PictureReader) -> Iterator[list[str]]:
    """Each row's cells: their paragraphs' text, and their pictures' (a how-to's "Step |
    Screenshot" table)."""
    for row in table.rows:
        cells, seen = [], set()
        for cell in row.cells:
            if id(cell._tc) in seen:  # a merged cell is returned once per column it spans
                continue
            seen.add(id(cell._tc))
            texts = []
            for paragraph in cell._tc.iter(f"{_W}p"):
                texts.append(_text_of(paragraph, notes))
                for picture, description in _word_pictures(paragraph, table.part):
                    texts.extend(pictures.texts(picture, description))
            cells.append("\n".join(texts))
        yield cells


# -- PowerPoint ---------------------------------------------------------------------------


def extract_pptx(
    path: Path, *, budget: Budget, pictures: PictureReader | None = None
) -> Extraction:
    checked_archive(path, budget)
    deadline = budget.deadline()
    outline = Outline()
    words = section_words()
    pictures = pictures or PictureReader.descriptions_only(words.picture)
    try:
        presentation = pptx.Presentation(str(path))
        hidden = 0
        for number, slide in enumerate(presentation.slides, start=1):
            # A hidden slide is not shown, printed or exported (a draft, an old version),
            # as a hidden sheet is not: it keeps its number, the one PowerPoint shows.
            if slide.element.get("show") in ("0", "false"):
                hidden += 1
                continue
            _slide(slide, number, outline, words, pictures)
            deadline.check(f"slide {number}")
    except _LIBRARY_ERRORS as exc:
        raise damaged("PowerPoint", exc) from exc
    details: dict[str, object] = {"slides": len(presentation.slides), "hidden_slides": hidden}
    return Extraction([PageText(None, outline.text())], None, details, markdown=True)


def _slide(
    slide: Any,
    number: int,
    outline: Outline,
    words: SectionWords,
    pictures: PictureReader,
) -> None:
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
            _text_frame(shape, outline)
        elif isinstance(shape, Picture):
            description = shape._element._nvXxPr.cNvPr.get("descr", "")
            pictures.write(outline, _picture_bytes(shape), description)
        else:
            for text in diagram_texts(shape._element, slide.part):
                outline.item("-", text)
            write_charts(shape._element, slide.part, outline)
    notes = slide.notes_slide.notes_text_frame if slide.has_notes_slide else None
    if notes is not None and notes.text.strip():
        outline.heading(2, words.notes)
        for paragraph in notes.paragraphs:
            outline.paragraph(paragraph.text)  # a line break (\v) is a space


_TITLES = {PP_PLACEHOLDER.TITLE, PP_PLACEHOLDER.CENTER_TITLE, PP_PLACEHOLDER.VERTICAL_TITLE}
# PowerPoint's automatic numbering schemes ("arabicPeriod", "alphaLcParenR"…) by their start.
_AUTO_NUMBERS = {
    "arabic": "decimal", "alphaLc": "lowerLetter", "alphaUc": "upperLetter",
    "romanLc": "lowerRoman", "romanUc": "upperRoman",
}  # fmt: skip


def _picture_bytes(picture: Picture) -> bytes | None:
    """A slide picture's file; None for a linked one (its file is elsewhere)."""
    try:
        return picture.image.blob
    except (ValueError, KeyError, AttributeError):
        return None


def _text_frame(shape: Any, outline: Outline) -> None:
    """A shape's paragraphs; a bulleted or numbered one as a list item. A paragraph's bullet
    is its own, else its shape's list style's, else (a placeholder's) the layout's and the
    master's, as PowerPoint shows it: a content placeholder is bulleted by the master."""
    sources = _bullet_sources(shape)
    counts: dict[int, int] = {}
    for paragraph in shape.text_frame.paragraphs:
        text = paragraph.text  # its runs, line breaks (\v) and fields
        level = paragraph.level
        bullet = _bullet_of(paragraph, sources)
        for deeper in [depth for depth in counts if depth > level]:
            del counts[deeper]
        if bullet is None or bullet[0] == "none":
            counts.pop(level, None)
            outline.paragraph(text)
        elif text.strip():
            counts[level] = counts.get(level, 0) + 1
            outline.item(list_marker(bullet[0], bullet[1] + counts[level] - 1), text)


def _bullet_of(paragraph: Any, sources: list[Any]) -> tuple[str, int] | None:
    level = paragraph.level
    for properties in [paragraph._p.pPr, *(source(level) for source in sources)]:
        if (bullet := _bullet(properties)) is not None:
            return bullet
    return None


def _bullet_sources(shape: Any) -> list[Any]:
    """Where a paragraph's bullet comes from when it has none of its own, nearest first:
    each a function of the paragraph's level giving a ``lvlNpPr`` element (or None)."""

    def list_style(element: Any) -> Any:
        return lambda level: element.find(f".//{_A}lstStyle/{_A}lvl{level + 1}pPr")

    sources = [list_style(shape._element)]
    if not shape.is_placeholder:
        return sources
    if shape.placeholder_format.type in _TITLES:
        return [lambda level: _NO_BULLET]
    base = shape._base_placeholder
    while base is not None:
        sources.append(list_style(base._element))
        base = getattr(base, "_base_placeholder", None)
    body = shape.part.slide_layout.slide_master._element.find(".//{*}txStyles/{*}bodyStyle")
    if body is not None:
        sources.append(lambda level: body.find(f"{_A}lvl{level + 1}pPr"))
    return sources


_NO_BULLET = lxml.etree.fromstring(f'<a:pPr xmlns:a="{_A[1:-1]}"><a:buNone/></a:pPr>')


def _bullet(properties: Any) -> tuple[str, int] | None:
    """("bullet" or a number format, start) as a paragraph's properties set it; ("none", 1)
    when they take bullets off; None when they say nothing (it is inherited)."""
    if properties is None:
        return None
    if properties.find(f"{_A}buNone") is not None:
        return ("none", 1)
    if properties.find(f"{_A}buChar") is not None or properties.find(f"{_A}buBlip") is not None:
        return ("bullet", 1)
    if (auto := properties.find(f"{_A}buAutoNum")) is not None:
        scheme = auto.get("type", "arabicPeriod")
        style = next(
            (s for prefix, s in _AUTO_NUMBERS.items() if scheme.startswith(prefix)), "decimal"
        )
        return (style, whole_number(auto.get("startAt"), 1))
    return None


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
    hidden = len(workbook.worksheets) - len(sheets)
    details: dict[str, object] = {"sheets": len(sheets), "hidden_sheets": hidden}
    return Extraction([PageText(None, outline.text())], None, details, markdown=True)


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
        return formatted_number(value, number_format)
    return cell_text(value)


# The symbols a currency format shows, longest first ("R$" before "$").
_CURRENCIES = ("R$", "US$", "€", "£", "$")
_DECIMALS = re.compile(r"\.(0+)")


def formatted_number(value: float, number_format: str) -> str:
    """What a number format says that changes what a figure means: a percentage (0.15 shown
    as 15%) and a currency (49.9 shown as 49.90 €). Thousands separators, colours and the
    styles of negative numbers leave the figure as stored."""
    positive = number_format.split(";")[0]
    decimals = len(found.group(1)) if (found := _DECIMALS.search(positive)) else 0
    if "%" in positive:
        return f"{value * 100:.{decimals}f}%"
    symbol = next((sign for sign in _CURRENCIES if sign in positive), None)
    if symbol is None:
        return cell_text(value)
    figure = f"{value:.{decimals}f}"
    digits_at = min((positive.find(c) for c in "0#" if c in positive), default=len(positive))
    return f"{symbol} {figure}" if positive.find(symbol) < digits_at else f"{figure} {symbol}"


def cell_text(value: object) -> str:
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
