"""OpenDocument text (.odt): its ``content.xml`` parsed by defusedxml (no DTD, no entities)
and read in order: headings with their outline level, paragraphs, lists, tables."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from xml.etree.ElementTree import Element

import defusedxml.ElementTree
from defusedxml import DefusedXmlException
from django.utils.translation import gettext_noop

from knowledge.extraction.base import Budget, Extraction, IngestionError, Outline, PageText
from knowledge.extraction.office import checked_archive, damaged

_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
# A paragraph styled as a heading without being a text:h (LibreOffice writes a document's
# first heading so when it starts a page style): "Heading_20_2" is "Heading 2".
_HEADING_STYLE = re.compile(r"^(?:Heading_20_(\d)|Title)$")
# Generated lists repeat what the document says elsewhere (a table of contents repeats
# every heading); notes and tracked deletions are not the body's text.
_SKIPPED = {
    f"{_TEXT}{name}"
    for name in (
        "table-of-content", "alphabetical-index", "illustration-index", "table-index",
        "object-index", "user-index", "bibliography", "tracked-changes", "sequence-decls",
        "note", "soft-page-break",
    )
}  # fmt: skip


def extract_odt(path: Path, *, budget: Budget) -> Extraction:
    checked_archive(path, budget)
    try:
        with zipfile.ZipFile(path) as archive:
            content = archive.read("content.xml")
        root = defusedxml.ElementTree.fromstring(content, forbid_dtd=True)
    except KeyError as exc:
        raise IngestionError(
            gettext_noop("This OpenDocument file has no text content (content.xml is missing).")
        ) from exc
    except (DefusedXmlException, SyntaxError, zipfile.BadZipFile) as exc:
        raise damaged("OpenDocument", exc) from exc
    body = root.find(f"{_OFFICE}body/{_OFFICE}text")
    outline = Outline()
    if body is not None:
        _walk(body, outline, _heading_styles(root))
    return Extraction([PageText(None, outline.text())], None, {}, markdown=True)


def _heading_styles(root: Element) -> dict[str, int]:
    """Paragraph styles that are headings: the named ones, and automatic styles based on them."""
    levels: dict[str, int] = {}
    for style in root.iter(f"{_STYLE}style"):
        for name in (style.get(f"{_STYLE}parent-style-name", ""), style.get(f"{_STYLE}name", "")):
            if match := _HEADING_STYLE.match(name):
                levels[style.get(f"{_STYLE}name", "")] = int(match.group(1) or 1)
    return levels


def _styled_level(style: str, heading_styles: dict[str, int]) -> int:
    if style in heading_styles:
        return heading_styles[style]
    match = _HEADING_STYLE.match(style)
    return int(match.group(1) or 1) if match else 0


def _walk(element: Element, outline: Outline, heading_styles: dict[str, int]) -> None:
    for child in element:
        if child.tag in _SKIPPED:
            continue
        style = child.get(f"{_TEXT}style-name", "")
        if child.tag == f"{_TEXT}h":
            outline_level = child.get(f"{_TEXT}outline-level", "1")
            outline.heading(
                int(outline_level) if outline_level.isdigit() else 1, inline_text(child)
            )
        elif child.tag == f"{_TEXT}p" and (level := _styled_level(style, heading_styles)):
            outline.heading(level, inline_text(child))
        elif child.tag == f"{_TEXT}p":
            outline.paragraph(inline_text(child))
        elif child.tag == f"{_TABLE}table":
            outline.table(_rows(child))
        else:  # lists, list items, sections: their paragraphs in order
            _walk(child, outline, heading_styles)


def _rows(table: Element) -> list[list[str]]:
    rows = []
    for row in table.iter(f"{_TABLE}table-row"):
        cells = [
            " ".join(inline_text(p) for p in cell.iter(f"{_TEXT}p"))
            for cell in row
            if cell.tag == f"{_TABLE}table-cell"
        ]
        rows.append(cells)
    return rows


def inline_text(element: Element) -> str:
    """A paragraph's text: spans and links opened, ``text:s`` spaces and tabs kept, notes
    left out."""
    parts = [element.text or ""]
    for child in element:
        if child.tag == f"{_TEXT}s":
            count = child.get(f"{_TEXT}c", "1")
            parts.append(" " * (min(int(count), 8) if count.isdigit() else 1))
        elif child.tag in (f"{_TEXT}tab", f"{_TEXT}line-break"):
            parts.append(" ")
        elif child.tag not in _SKIPPED:
            parts.append(inline_text(child))
        parts.append(child.tail or "")
    return "".join(parts)
