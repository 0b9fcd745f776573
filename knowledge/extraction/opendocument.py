"""OpenDocument text (.odt): its ``content.xml`` parsed by defusedxml (no DTD, no entities)
and read in order: headings with their outline level, paragraphs, lists, tables, each footnote
or endnote after the block citing it; then its page headers and footers (``styles.xml``)."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree.ElementTree import Element

import defusedxml.ElementTree
from defusedxml import DefusedXmlException
from django.utils.translation import gettext_noop

from knowledge.extraction.archives import DAMAGED_ARCHIVE
from knowledge.extraction.base import (
    PAGE_MARK,
    Budget,
    Extraction,
    IngestionError,
    Outline,
    PageText,
    list_marker,
    margin_text,
    whole_number,
)
from knowledge.extraction.office import checked_archive, damaged, section_words
from knowledge.extraction.pictures import PictureReader

TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
_SVG = "{urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0}"
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
# A paragraph styled as a heading without being a text:h (LibreOffice writes a document's
# first heading so when it starts a page style): "Heading_20_2" is "Heading 2".
_HEADING_STYLE = re.compile(r"^(?:Heading_20_(\d)|Title)$")
# Generated lists repeat what the document says elsewhere (a table of contents repeats
# every heading); tracked deletions and page numbers are not the body's text; a picture's
# description is read with its picture (``write_picture``), not as its paragraph's words.
_SKIPPED = {
    f"{TEXT}{name}"
    for name in (
        "table-of-content", "alphabetical-index", "illustration-index", "table-index",
        "object-index", "user-index", "bibliography", "tracked-changes", "sequence-decls",
        "soft-page-break",
    )
} | {f"{_SVG}title", f"{_SVG}desc"}  # fmt: skip
_PAGE_NUMBERS = {f"{TEXT}page-number", f"{TEXT}page-count"}
_MARGINS = {
    f"{STYLE}{name}"
    for name in ("header", "header-left", "header-first", "footer", "footer-left", "footer-first")
}


def parsed_parts(path: Path, budget: Budget) -> tuple[Element, Element | None]:
    """An OpenDocument file's ``content.xml`` and ``styles.xml``, parsed without DTDs or
    entities, after its archive was checked."""
    checked_archive(path, budget)
    try:
        with zipfile.ZipFile(path) as archive:
            content = archive.read("content.xml")
            named_styles = archive.read("styles.xml") if "styles.xml" in archive.namelist() else b""
        root = defusedxml.ElementTree.fromstring(content, forbid_dtd=True)
        styles_root = (
            defusedxml.ElementTree.fromstring(named_styles, forbid_dtd=True)
            if named_styles
            else None
        )
    except KeyError as exc:
        raise IngestionError(
            gettext_noop("This OpenDocument file has no text content (content.xml is missing).")
        ) from exc
    except (DefusedXmlException, SyntaxError, LookupError, *DAMAGED_ARCHIVE) as exc:
        raise damaged("OpenDocument", exc) from exc
    return root, styles_root


def styles_setting(root: Element, properties: str, attribute: str, value: str) -> set[str]:
    """The automatic styles whose ``properties`` say ``attribute="value"`` (a hidden
    sheet's table style, a hidden slide's page style)."""
    return {
        style.get(f"{STYLE}name", "")
        for style in root.iter(f"{STYLE}style")
        if any(found.get(attribute) == value for found in style.iter(f"{STYLE}{properties}"))
    }


def new_reading(root: Element, styles_root: Element | None, pictures: PictureReader) -> Reading:
    return Reading(_heading_styles(root), _list_styles(root, styles_root), pictures)


def extract_odt(path: Path, *, budget: Budget, pictures: PictureReader | None = None) -> Extraction:
    root, styles_root = parsed_parts(path, budget)
    body = root.find(f"{OFFICE}body/{OFFICE}text")
    outline = Outline()
    words = section_words()
    pictures = pictures or PictureReader.descriptions_only(words.picture)
    reading = new_reading(root, styles_root, pictures)
    if body is not None:
        walk(body, outline, reading)
    outline.back_matter(words.footnotes, reading.pending)  # cited only where nothing is read
    outline.back_matter(words.margins, _margins(styles_root, reading))
    return Extraction([PageText(None, outline.text())], None, {}, markdown=True)


def _heading_styles(root: Element) -> dict[str, int]:
    """Paragraph styles that are headings: the named ones, and automatic styles based on them."""
    levels: dict[str, int] = {}
    for style in root.iter(f"{STYLE}style"):
        for name in (style.get(f"{STYLE}parent-style-name", ""), style.get(f"{STYLE}name", "")):
            if match := _HEADING_STYLE.match(name):
                levels[style.get(f"{STYLE}name", "")] = int(match.group(1) or 1)
    return levels


# ODF's style:num-format as Word's number formats (base.list_marker); "" numbers nothing.
_NUMBER_FORMATS = {
    "1": "decimal", "a": "lowerLetter", "A": "upperLetter", "i": "lowerRoman",
    "I": "upperRoman", "": "none",
}  # fmt: skip


@dataclass
class Reading:
    headings: dict[str, int]
    # list style name → level (1-based) → (number format, start); a bullet level is absent
    lists: dict[str, dict[int, tuple[str, int]]]
    pictures: PictureReader
    notes: int = 0  # how many the body has cited so far: the next one's number
    pending: list[str] = field(default_factory=list)  # "[^1]: …", for after the block
    # where a list that continues another's numbering starts: by list style and by xml:id
    next_numbers: dict[str, int] = field(default_factory=dict)


def _list_styles(*roots: Element | None) -> dict[str, dict[int, tuple[str, int]]]:
    """The numbered levels of every list style: automatic ones (content.xml) and named ones
    (styles.xml, "Numbering 123")."""
    styles: dict[str, dict[int, tuple[str, int]]] = {}
    for root in roots:
        for list_style in root.iter(f"{TEXT}list-style") if root is not None else ():
            styles[list_style.get(f"{STYLE}name", "")] = {
                whole_number(level.get(f"{TEXT}level"), 1): (
                    _NUMBER_FORMATS.get(level.get(f"{STYLE}num-format", "1"), "decimal"),
                    whole_number(level.get(f"{TEXT}start-value"), 1),
                )
                for level in list_style.iter(f"{TEXT}list-level-style-number")
            }
    return styles


def _styled_level(style: str, heading_styles: dict[str, int]) -> int:
    if style in heading_styles:
        return heading_styles[style]
    match = _HEADING_STYLE.match(style)
    return int(match.group(1) or 1) if match else 0


def walk(element: Element, outline: Outline, reading: Reading) -> None:
    for child in element:
        _block(child, outline, reading)


def _block(block: Element, outline: Outline, reading: Reading) -> None:
    if block.tag in _SKIPPED:
        return
    style = block.get(f"{TEXT}style-name", "")
    if block.tag == f"{TEXT}h":
        outline_level = block.get(f"{TEXT}outline-level", "1")
        outline.heading(
            int(outline_level) if outline_level.isdigit() else 1, inline_text(block, reading)
        )
    elif block.tag == f"{TEXT}p" and (level := _styled_level(style, reading.headings)):
        outline.heading(level, inline_text(block, reading))
    elif block.tag == f"{TEXT}p":
        outline.paragraph(inline_text(block, reading))
        for frame in block.iter(f"{DRAW}frame"):
            write_picture(frame, outline, reading)
    elif block.tag == f"{TABLE}table":
        outline.table(_rows(block, reading))
    elif block.tag == f"{TEXT}list":
        _walk_list(block, outline, reading, style, depth=1)
    else:  # sections and the like: their paragraphs in order
        walk(block, outline, reading)
    _write_notes(outline, reading)


def write_picture(frame: Element, outline: Outline, reading: Reading) -> None:
    """A frame's picture (its description, then what OCR reads in it), when it holds one."""
    for text in _picture_texts(frame, reading):
        outline.paragraph(text)


def _cell_texts(cell: Element, reading: Reading) -> Iterator[str]:
    """A table cell's paragraphs, each followed by its pictures' texts."""
    for paragraph in cell.iter(f"{TEXT}p"):
        yield inline_text(paragraph, reading)
        for frame in paragraph.iter(f"{DRAW}frame"):
            yield from _picture_texts(frame, reading)


def _picture_texts(frame: Element, reading: Reading) -> list[str]:
    image = frame.find(f"{DRAW}image")
    if image is None:
        return []
    described = frame.find(f"{_SVG}desc")
    if described is None:
        described = frame.find(f"{_SVG}title")
    description = "".join(described.itertext()) if described is not None else ""
    picture = reading.pictures.member(image.get(_XLINK_HREF, ""))
    return reading.pictures.texts(picture, description)


def _write_notes(outline: Outline, reading: Reading) -> None:
    """The notes a block cited, right after it: in its chunk, found and quoted with it."""
    for note in reading.pending:
        outline.paragraph(note)
    reading.pending.clear()


def _walk_list(
    element: Element, outline: Outline, reading: Reading, inherited: str, depth: int
) -> None:
    """Each item's first paragraph with its bullet or number; a nested list one level down,
    in the style of the list around it unless it names its own. A list may continue the
    numbering of the list before it in its style, or of one it names."""
    name = element.get(f"{TEXT}style-name") or inherited
    number_format, number = reading.lists.get(name, {}).get(depth, ("bullet", 1))
    if depth == 1:
        continued = element.get(f"{TEXT}continue-list")
        if continued or element.get(f"{TEXT}continue-numbering") == "true":
            number = reading.next_numbers.get(f"#{continued}" if continued else name, number)
    for item in element:
        if item.tag not in (f"{TEXT}list-item", f"{TEXT}list-header"):
            continue
        number = whole_number(item.get(f"{TEXT}start-value"), number)
        marker: str | None = (
            list_marker(number_format, number) if item.tag.endswith("list-item") else ""
        )
        for part in item:
            if part.tag == f"{TEXT}list":
                _walk_list(part, outline, reading, name, depth + 1)
            elif part.tag in (f"{TEXT}p", f"{TEXT}h") and marker is not None:
                outline.item(marker, inline_text(part, reading))
                _write_notes(outline, reading)
                marker = None  # the item's later paragraphs are plain
            else:
                _block(part, outline, reading)
        number += 1
    if depth == 1:
        reading.next_numbers[name] = number
        if list_id := element.get("{http://www.w3.org/XML/1998/namespace}id"):
            reading.next_numbers[f"#{list_id}"] = number


def _rows(table: Element, reading: Reading) -> list[list[str]]:
    rows = []
    for row in table.iter(f"{TABLE}table-row"):
        cells = [
            " ".join(_cell_texts(cell, reading)) for cell in row if cell.tag == f"{TABLE}table-cell"
        ]
        rows.append(cells)
    return rows


def inline_text(element: Element, reading: Reading, page_mark: str = "") -> str:
    """A paragraph's text: spans and links opened, ``text:s`` spaces and tabs kept, a note
    cited as "[^1]" and its text kept for the end, a page number as ``page_mark``."""
    parts = [element.text or ""]
    for child in element:
        if child.tag == f"{TEXT}s":
            count = child.get(f"{TEXT}c", "1")
            parts.append(" " * (min(int(count), 8) if count.isdigit() else 1))
        elif child.tag == f"{TEXT}tab":
            parts.append("\t")
        elif child.tag == f"{TEXT}line-break":
            parts.append(" ")
        elif child.tag == f"{TEXT}note":
            parts.append(_note(child, reading))
        elif child.tag in _PAGE_NUMBERS:
            parts.append(page_mark)
        elif child.tag not in _SKIPPED:
            parts.append(inline_text(child, reading, page_mark))
        parts.append(child.tail or "")
    return "".join(parts)


def _note(note: Element, reading: Reading) -> str:
    body = note.find(f"{TEXT}note-body")
    paragraphs = body.iter(f"{TEXT}p") if body is not None else ()
    text = " ".join(inline_text(paragraph, reading) for paragraph in paragraphs).strip()
    if not text:
        return ""
    reading.notes += 1
    reading.pending.append(f"[^{reading.notes}]: {text}")
    return f"[^{reading.notes}]"


def _margins(styles_root: Element | None, reading: Reading) -> list[str]:
    """What the page headers and footers say, each once, without their page numbers."""
    texts: dict[str, None] = {}
    for page in styles_root.iter(f"{STYLE}master-page") if styles_root is not None else ():
        for margin in (child for child in page if child.tag in _MARGINS):
            for paragraph in margin.iter(f"{TEXT}p"):
                if text := margin_text(inline_text(paragraph, reading, PAGE_MARK)):
                    texts.setdefault(text)
    return list(texts)
