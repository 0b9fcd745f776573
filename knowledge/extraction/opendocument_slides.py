"""OpenDocument presentations (.odp, LibreOffice Impress): each slide a section ("Slide 3:
title") with its shapes' text top to bottom (lists, tables, text boxes), then its speaker
notes; hidden slides, page numbers and footers left out, as for PowerPoint."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from xml.etree.ElementTree import Element

from knowledge.extraction.base import Budget, Extraction, Outline, PageText
from knowledge.extraction.office import SectionWords, section_words
from knowledge.extraction.opendocument import (
    DRAW,
    OFFICE,
    TEXT,
    Reading,
    inline_text,
    new_reading,
    parsed_parts,
    styles_setting,
    walk,
    write_picture,
)
from knowledge.extraction.pictures import PictureReader

PRESENTATION = "{urn:oasis:names:tc:opendocument:xmlns:presentation:1.0}"
_SVG = "{urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0}"
_CLASS = f"{PRESENTATION}class"
# What every slide repeats from its master, not its own text.
_LEFT_OUT = {"page-number", "footer", "date-time", "header", "page"}
_LENGTH = re.compile(r"^\s*(-?[\d.]+)\s*(cm|mm|in|pt|pc|px)?\s*$")
_CENTIMETRES = {"cm": 1.0, "mm": 0.1, "in": 2.54, "pt": 2.54 / 72, "pc": 2.54 / 6, "px": 2.54 / 96}


def extract_odp(path: Path, *, budget: Budget, pictures: PictureReader | None = None) -> Extraction:
    root, styles_root = parsed_parts(path, budget)
    words = section_words()
    pictures = pictures or PictureReader.descriptions_only(words.picture)
    reading = new_reading(root, styles_root, pictures)
    # Impress's "Hide Slide"
    hidden_styles = styles_setting(
        root, "drawing-page-properties", f"{PRESENTATION}visibility", "hidden"
    )
    deadline = budget.deadline()
    outline = Outline()
    pages = root.findall(f"{OFFICE}body/{OFFICE}presentation/{DRAW}page")
    hidden = 0
    for number, page in enumerate(pages, start=1):
        # A hidden slide is not shown, printed or exported; the rest keep their numbers.
        if page.get(f"{DRAW}style-name") in hidden_styles:
            hidden += 1
            continue
        _slide(page, number, outline, reading, words)
        deadline.check(f"slide {number}")
    details: dict[str, object] = {"slides": len(pages), "hidden_slides": hidden}
    return Extraction([PageText(None, outline.text())], None, details, markdown=True)


def _slide(
    page: Element, number: int, outline: Outline, reading: Reading, words: SectionWords
) -> None:
    shapes = [shape for shape in page if shape.tag != f"{PRESENTATION}notes"]
    title_shape = next((s for s in shapes if s.get(_CLASS) == "title"), None)
    title = " ".join(inline_text(p, reading) for p in _paragraphs(title_shape)).strip()
    outline.heading(1, f"{words.slide} {number}: {title}" if title else f"{words.slide} {number}")
    for shape in sorted(_shapes(shapes), key=_position):
        if shape is not title_shape and shape.get(_CLASS) not in _LEFT_OUT:
            walk(shape, outline, reading)
            if shape.tag == f"{DRAW}frame":
                write_picture(shape, outline, reading)
    notes = page.find(f"{PRESENTATION}notes")
    note_shapes = [
        s
        for s in _shapes(list(notes) if notes is not None else [])
        if s.get(_CLASS) not in _LEFT_OUT
    ]
    if any(inline_text(p, reading).strip() for s in note_shapes for p in _paragraphs(s)):
        outline.heading(2, words.notes)
        for shape in note_shapes:
            walk(shape, outline, reading)


def _shapes(elements: list[Element]) -> Iterator[Element]:
    """The shapes that may hold text, a group's one by one."""
    for element in elements:
        if element.tag == f"{DRAW}g":
            yield from _shapes(list(element))
        elif element.tag.startswith(DRAW) and element.tag != f"{DRAW}page-thumbnail":
            yield element


def _paragraphs(shape: Element | None) -> Iterator[Element]:
    if shape is not None:
        yield from shape.iter(f"{TEXT}p")


def _position(shape: Element) -> tuple[float, float]:
    """Top to bottom, then left to right, as the slide shows its shapes."""
    return _centimetres(shape.get(f"{_SVG}y")), _centimetres(shape.get(f"{_SVG}x"))


def _centimetres(length: str | None) -> float:
    match = _LENGTH.match(length or "")
    if match is None:
        return 0.0
    try:
        value = float(match.group(1))
    except ValueError:  # "1.2.3cm"
        return 0.0
    return value * _CENTIMETRES[match.group(2) or "cm"]
