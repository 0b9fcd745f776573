"""HTML pages and EPUB books: headings become sections, paragraphs and list items blocks, a
table row is read with its column headers. A web page's main content is found by
trafilatura (navigation, footers, cookie banners and comments dropped); an EPUB's chapters
are read whole, in reading order, by EbookLib."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import lxml.etree
import lxml.html
import trafilatura
from django.utils.translation import gettext_noop
from ebooklib import ITEM_DOCUMENT, epub

from knowledge.extraction.archives import (
    DAMAGED_ARCHIVE,
    check_inventory,
    check_xml_parts,
    open_zip,
)
from knowledge.extraction.base import (
    Budget,
    Extraction,
    IngestionError,
    Outline,
    PageText,
    list_marker,
    one_line,
    whole_number,
)
from knowledge.extraction.text import decode_html, read_decoded

logger = logging.getLogger(__name__)

_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_SKIPPED = {
    "script", "style", "noscript", "template", "nav", "footer", "header", "aside", "form",
    "button", "select", "svg", "iframe", "head",
}  # fmt: skip
# A book's chapter is all content: its <header> holds the chapter's title, an <aside> a
# sidebar or a footnote (taken out first, see _take_notes).
_BOOK_SKIPPED = _SKIPPED - {"header", "footer", "aside"}
_NOTE_TYPES = {"footnote", "endnote", "rearnote", "note"}
_NOTE_ANCHORS = {
    "p", "li", "td", "th", "dd", "dt", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6",
}  # fmt: skip
_NOTE_LABEL = re.compile(r"^\[?(\d{1,4}|[ivxlc]{1,6}|\*{1,3})[\].)]?\s+", re.I)
_LINE_BLOCKS = (
    "p", "div", "li", "tr", "td", "th", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6",
    "blockquote", "pre", "section", "article", "ul", "ol", "table", "caption", "figcaption",
    "address",
)  # fmt: skip
_BLOCKS = {"p", "pre", "blockquote", "dt", "dd", "figcaption", "caption", "address", "summary"}
_CONTAINERS_IN_ITEMS = {"ul", "ol", "dl", "table", "p", "div", "blockquote", "pre"}
_BLOCK_TAGS = (
    set(_HEADINGS) | _BLOCKS | _CONTAINERS_IN_ITEMS | {"li", "section", "article", "main", "body"}
)


def extract_html(path: Path) -> Extraction:
    html, details = read_decoded(path, decode_html)
    page = _parse(html)
    if page is not None:  # numbers written into the items: trafilatura turns <ol> into <ul>
        number_ordered_lists(page)
        html = lxml.html.tostring(page, encoding="unicode")
    main = main_content(html, output_format="html")
    root = _parse(main) if main else None
    if root is None or (page is not None and _flattened(root, page)):
        root, main = page, None
    outline = Outline()
    if root is not None:
        title = _title(html)
        if title and root.find(".//h1") is None:
            outline.heading(1, title)
        walk(root, outline)
    details["main_content"] = bool(main)
    return Extraction([PageText(None, outline.text())], None, details, markdown=True)


def html_outline(html: str, outline: Outline) -> None:
    """An HTML text written into ``outline`` whole: an e-mail's body has no navigation or
    footer for trafilatura to tell from its main content."""
    root = _parse(html)
    if root is not None:
        number_ordered_lists(root)
        walk(root, outline, _BOOK_SKIPPED)  # a message's <header> or <footer> is its text


_BLOCK_ELEMENTS = ("p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "dt", "dd", "pre")


def _flattened(main: lxml.html.HtmlElement, page: lxml.html.HtmlElement) -> bool:
    """trafilatura's fallback for a short page is its whole text in one paragraph: headings
    and list items run together ("Alta de socios Para darte de alta… Piscina Gimnasio").
    The page read whole, navigation and footers left out by ``walk``, keeps them apart."""
    if sum(1 for _ in main.iter(*_BLOCK_ELEMENTS)) > 1:
        return False
    # One real paragraph is one line; the fallback keeps each former block on a line.
    lines = [line for line in main.text_content().splitlines() if line.strip()]
    return len(lines) >= 3 and sum(1 for _ in page.iter(*_BLOCK_ELEMENTS)) > 1


def main_content(html: str, *, output_format: str = "txt") -> str | None:
    """The page's main content (trafilatura), or None when it finds none or fails: the
    caller then reads the whole page (a reader library must not fail a hostile page)."""
    try:
        return trafilatura.extract(
            html,
            output_format=output_format,
            include_tables=True,
            include_links=False,
            include_images=False,
            include_comments=False,
            favor_recall=True,
        )
    except Exception:  # noqa: BLE001 - any failure of the extractor means "no main content"
        logger.warning("trafilatura failed on a page; reading it whole", exc_info=True)
        return None


def extract_epub(path: Path, *, budget: Budget) -> Extraction:
    with open_zip(path.open("rb")) as archive:
        check_inventory(archive, budget.max_unpacked_bytes)
        check_xml_parts(archive)
    try:
        book = epub.read_epub(str(path), options={"ignore_ncx": True})
    # A damaged package descriptor fails deep inside EbookLib, in any of these ways.
    except (
        epub.EpubException, KeyError, AttributeError, TypeError, ValueError, IndexError,
        AssertionError, *DAMAGED_ARCHIVE, lxml.etree.LxmlError,
    ) as exc:  # fmt: skip
        raise IngestionError(
            gettext_noop(
                "This EPUB is damaged (its table of contents or chapters cannot be read). "
                "Export it again and upload that copy."
            ),
            extra={"technical": str(exc)},
        ) from exc
    deadline = budget.deadline()
    pages = []
    for number, (idref, _linear) in enumerate(book.spine, start=1):
        item = book.get_item_with_id(idref)
        if item is None or item.get_type() != ITEM_DOCUMENT:
            continue
        outline = Outline()
        root = _parse(item.get_content())
        if root is not None:
            number_ordered_lists(root)
            notes = _take_notes(root)
            walk(root, outline, _BOOK_SKIPPED)
            for note in notes:
                outline.paragraph(note)
        if outline:
            pages.append(PageText(None, outline.text()))
        deadline.check(f"chapter {number}")
    return Extraction(pages, None, {"chapters": len(pages)}, markdown=True)


def _parse(markup: str | bytes) -> lxml.html.HtmlElement | None:
    parser = lxml.html.HTMLParser()
    try:
        root = lxml.html.document_fromstring(markup, parser=parser)
    except (lxml.etree.ParserError, ValueError) as exc:  # empty, or nothing but comments
        logger.info("HTML without a document: %s", exc)
        return None
    # Past 256 levels libxml2 drops the rest of the page without raising: the page would
    # read as empty. extract() turns this into its "nested too deeply" sentence.
    if any("Excessive depth" in error.message for error in parser.error_log):
        raise RecursionError("HTML nested deeper than libxml2's limit")
    _break_lines(root)
    for element in [element for element in root.iter() if _hidden(element)]:
        if element.getparent() is not None:  # what a browser does not show is not read
            element.drop_tree()
    return root


def _break_lines(root: lxml.html.HtmlElement) -> None:
    """A line break, and the edges of a block, read as a line break: an element's text runs
    its children's together, so an address's lines ("Calle Mayor 5<br>41001 Sevilla") read
    "Calle Mayor 541001 Sevilla", and a cell trafilatura splits into paragraphs
    ("9:00<p>14:00</p>") read "9:0014:00". Written text collapses them to spaces."""
    for element in root.iter("br", *_LINE_BLOCKS):
        # a line break of its own mark: a paragraph's lines are told from its source's
        # wrapping (``lines_of_a_paragraph``); written elsewhere, it is a space as "\n" is.
        # A paragraph inside a cell is a line of it (trafilatura writes a cell's <br> so).
        mark = LINE_BREAK if element.tag == "br" or _in_a_cell(element) else "\n"
        # libxml2 keeps control characters it parsed, and refuses them when set back
        if element.tag != "br":
            element.text = mark + _XML_UNSAFE.sub("", element.text or "")
        element.tail = mark + _XML_UNSAFE.sub("", element.tail or "")


def _in_a_cell(element: lxml.html.HtmlElement) -> bool:
    return element.tag in ("p", "div") and next(element.iterancestors("td", "th"), None) is not None


# U+2028 LINE SEPARATOR: whitespace to ``str.split``, so a space wherever it is not read.
LINE_BREAK = "\u2028"
_BROKEN_AFTER_A_PHRASE = re.compile(rf"(?<=[^\s.,;:!?…])\s*{LINE_BREAK}\s*(?=\S)")


def lines_of_a_paragraph(text: str) -> str:
    """A paragraph's lines, broken by ``<br>``, as one: a line ending with no stop is
    parted from the next by a comma, as an address is written on one line. A bakery's
    "Horário:<br>Segunda a sábado: 6h às 21h<br>Domingos e feriados: 7h às 13h" read
    "…6h às 21h Domingos e feriados…"; now "…6h às 21h, Domingos e feriados: 7h às 13h"."""
    return _BROKEN_AFTER_A_PHRASE.sub(", ", text)


def _lines_of(element: lxml.html.HtmlElement) -> str:
    """A paragraph's, list item's or table cell's text, its ``<br>`` lines parted: an
    address in an item ("Rua das Flores, 230<br>Jardim América") or a cell's hours
    ("Segunda a sexta: 8h às 18h<br>Sábado: 8h às 12h") are lines of one paragraph."""
    return lines_of_a_paragraph(element.text_content())


_XML_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _title(html: str) -> str:
    root = _parse(html)
    return (root.findtext(".//title") or "").strip() if root is not None else ""


def _take_notes(root: lxml.html.HtmlElement) -> list[str]:
    """A chapter's footnotes and endnotes (``epub:type``) moved next to what cites them:
    each reference written "[^1]" (Markdown's footnotes) instead of a "1" that runs into
    the word before it, each note "[^1]: …" right after the block holding its first
    reference (one chunk: found and quoted together). The notes nothing in the chapter
    cites are returned, for its end."""
    references = _mark_note_references(root)
    found = [
        element
        for element in root.iter()
        if isinstance(element.tag, str)
        and _NOTE_TYPES & set((element.get("epub:type") or "").split())
    ]
    uncited: list[str] = []
    for element in found:
        text = one_line(element.text_content())
        own = _NOTE_LABEL.match(text)  # the note's own "1." before its text
        label, link = references.get(element.get("id") or "", ("", None))
        note = f"[^{label or (own.group(1) if own else len(uncited) + 1)}]: "
        note += text[own.end() if own else 0 :]
        if element.getparent() is not None:
            element.drop_tree()
        block = _citing_block(link) if link is not None else None
        if block is None:
            uncited.append(note)
        else:
            paragraph = lxml.html.Element("p")
            paragraph.text = note
            block.addnext(paragraph)
    return uncited


def _mark_note_references(
    root: lxml.html.HtmlElement,
) -> dict[str, tuple[str, lxml.html.HtmlElement]]:
    """Each note reference written "[^label]"; by the id of the note it opens, its label
    and the first link citing it."""
    references: dict[str, tuple[str, lxml.html.HtmlElement]] = {}
    for link in root.iter("a"):
        if "noteref" in (link.get("epub:type") or "").split():
            label = link.text_content().strip().strip("[]()") or str(len(references) + 1)
            references.setdefault((link.get("href") or "").rpartition("#")[2], (label, link))
            for child in list(link):
                link.remove(child)
            link.text = f"[^{label}]"
    return references


def _citing_block(link: lxml.html.HtmlElement) -> lxml.html.HtmlElement | None:
    """The paragraph, item, cell's table or heading a note reference sits in."""
    block = next(link.iterancestors(*_NOTE_ANCHORS), None)
    if block is not None and block.tag in ("td", "th"):  # after the table, not in its cell
        block = next(block.iterancestors("table"), block)
    return block if block is not None and block.getparent() is not None else None


def walk(element: lxml.html.HtmlElement, outline: Outline, skipped: set[str] = _SKIPPED) -> None:
    """Write an element's blocks in document order (``skipped``: elements left out, with
    what they hold)."""
    tag = element.tag if isinstance(element.tag, str) else ""
    if tag in skipped or not tag:
        return
    if tag in _HEADINGS:
        outline.heading(_HEADINGS[tag], element.text_content())
    elif tag == "table":
        outline.table(table_rows(element))
    elif tag == "li" and not _has_blocks(element):
        text = _lines_of(element)
        outline.item("" if _NUMBERED.match(text.lstrip()) else "-", text)
    elif tag in _BLOCKS:
        outline.paragraph(_lines_of(element))
    elif not _has_blocks(element):
        outline.paragraph(_lines_of(element))  # a div or span of inline text
    else:
        _walk_children(element, outline, skipped)


def _hidden(element: lxml.html.HtmlElement) -> bool:
    """Not shown by a browser or a reader: ``hidden``, or styled ``display: none``."""
    if not isinstance(element.tag, str):  # a comment or a processing instruction
        return False
    style = (element.get("style") or "").replace(" ", "").lower()
    return element.get("hidden") is not None or "display:none" in style


def _walk_children(element: lxml.html.HtmlElement, outline: Outline, skipped: set[str]) -> None:
    outline.paragraph(element.text or "")  # loose text before the first child
    for child in element:
        walk(child, outline, skipped)
        outline.paragraph(child.tail or "")


# An ordered list's ``type`` (HTML) as Word's number formats (base.list_marker).
_OL_TYPES = {"a": "lowerLetter", "A": "upperLetter", "i": "lowerRoman", "I": "upperRoman"}
_NUMBERED = re.compile(r"(?:\d{1,3}\.|[a-zA-Z]{1,2}\)|[ivxlcIVXLC]{1,6}\.)\s")


def number_ordered_lists(root: lxml.html.HtmlElement) -> None:
    """Write each numbered item's number at its start, as a browser shows it ("2. Entrega
    el DNI"), from its list's ``start`` and ``type``: "the second step" is then found, and
    the number survives the main-content extraction."""
    for ordered in root.iter("ol"):
        style = _OL_TYPES.get(ordered.get("type", "1"), "decimal")
        items = [child for child in ordered if child.tag == "li"]
        for number, item in enumerate(items, start=whole_number(ordered.get("start"), 1)):
            item.text = f"{list_marker(style, number)} {(item.text or '').lstrip()}"


def _has_blocks(element: lxml.html.HtmlElement) -> bool:
    return any(
        isinstance(child.tag, str) and (child.tag in _BLOCK_TAGS or child.tag in _SKIPPED)
        for child in element.iterdescendants()
    )


def table_rows(table: lxml.html.HtmlElement) -> list[list[str]]:
    rows = []
    for row in table.iter("tr"):
        if _nearest_table(row) is not table:
            continue  # a nested table's row is read with its own table
        rows.append([_lines_of(cell) for cell in row if cell.tag in ("td", "th")])
    return rows


def _nearest_table(element: lxml.html.HtmlElement) -> lxml.html.HtmlElement | None:
    parent = element.getparent()
    while parent is not None and parent.tag != "table":
        parent = parent.getparent()
    return parent
