"""A PDF's headings, from the size its lines are drawn at.

A PDF keeps no structure a reader can rely on (tagged PDFs are rare), only text drawn at a
size: "Horario de verano" at 18 pt above paragraphs at 12 pt is a heading. Its lines are
marked as Markdown headings ("## Horario de verano"), so its chunks get a section path as
Word and OpenDocument files do, a chunk does not run across two sections, and a title is
not quoted glued to the sentence after it («Avisos del club Las reservas se hacen…»).

The sizes come from pypdf's own text extraction (its visitor sees each piece of text with
its font size and matrices, in the order the text is produced): nothing is parsed twice.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from knowledge.extraction.base import escaped_heading

# A line drawn this much larger than the body text is a heading: Word's Heading 2 is 13 pt
# over 11 pt (1.18), LibreOffice's 115 %, LaTeX's subsection 12 pt over 10.95 pt (1.10).
HEADING_RATIO = 1.08
MAX_HEADING_WORDS = 15
# When "headings" would hold this share of the text, the body size was misjudged (a poster,
# slides of large type): no line is marked.
MAX_HEADING_SHARE = 0.3
LEVELS = 6
_GAP = re.compile(r"\S {2,}\S")
# Dots leading from an item to its figure: a menu's "Prawn cocktail ........ £8.95", a
# contents page's line. Each such line is an item of its own (a menu's ran into one
# paragraph, "… £6.50 Garlic mushrooms… £7.25 …", quoted whole for "How much is the
# soup?"), its dots read as what they mean: "Prawn cocktail: £8.95".
_DOT_LEADER = re.compile(r"(?<=\S)\s*(?:\.\s?){4,}\s*(?=\S)|(?<=\S)\s*…{2,}\s*(?=\S)")


@dataclass
class SizedLine:
    text: str
    size: float  # the size most of its letters are drawn at (points); 0 when none
    pieces: int = 1  # pieces of text drawn apart on it: a table's row has one per cell
    alone: bool = False  # a paragraph of its own (a table's row)


@dataclass
class PageLines:
    """Collects one page's text as pypdf produces it, with each line's size."""

    lines: list[SizedLine] = field(default_factory=list)
    _parts: list[str] = field(default_factory=list)
    _letters: Counter[float] = field(default_factory=Counter)
    _pieces: int = 0

    def visitor(self) -> Callable[..., None]:
        def visit(text: str, cm: list[float], tm: list[float], font: object, size: float) -> None:
            self._add(text, _drawn_size(size, tm, cm))

        return visit

    def _add(self, text: str, size: float) -> None:
        for n, piece in enumerate(text.split("\n")):
            if n:
                self._end_line()
            self._parts.append(piece)
            self._letters[size] += sum(c.isalnum() for c in piece)
            self._pieces += bool(piece.strip())

    def _end_line(self) -> None:
        # The size most of its letters are drawn at: a footnote mark or a drop cap does
        # not make a heading body text, nor body text a heading.
        sizes = +self._letters
        size = sizes.most_common(1)[0][0] if sizes else 0.0
        self.lines.append(SizedLine("".join(self._parts), size, self._pieces))
        self._parts, self._letters, self._pieces = [], Counter(), 0

    def finish(self, text: str) -> list[SizedLine]:
        """The lines of ``text``, the page's text as pypdf returned it; without sizes if
        what the visitor saw is not that text (a pypdf that calls it differently)."""
        self._end_line()
        if "\n".join(line.text for line in self.lines) != text:
            return [SizedLine(line, 0.0) for line in text.split("\n")]
        return self.lines

    def may_hold_a_table(self) -> bool:
        """A line drawn in pieces, or with a wide gap inside: a table's rows are (one piece
        per cell, or cells apart). A page of plain paragraphs is not laid out again."""
        return any(line.pieces >= 2 or _GAP.search(line.text.strip()) for line in self.lines)


def _drawn_size(size: float, tm: list[float], cm: list[float]) -> float:
    """The font size times the vertical scale of the text and graphics matrices."""
    try:
        c = tm[2] * cm[0] + tm[3] * cm[2]
        d = tm[2] * cm[1] + tm[3] * cm[3]
        scaled = abs(size) * math.hypot(c, d)
    except (IndexError, TypeError):
        return 0.0
    # to half a point: the same style comes out 14.3 or 14.4 from rounding in the file
    return round(scaled * 2) / 2 if math.isfinite(scaled) else 0.0


def marked_pages(pages: list[list[SizedLine]]) -> list[str]:
    """Each page's text with its heading lines marked "#" to "######" (the largest size
    first); a heading drawn on two lines is one. Other lines that would read as a heading
    are escaped ("\\# 1 priority")."""
    body = _body_size([line for page in pages for line in page])
    levels = _heading_levels(pages, body) if body else {}
    # A blank line after a heading: the line after it is never taken for its wrap.
    return [
        "\n".join(line + "\n" if line.startswith("#") else line for line in lines)
        for lines in (_page_lines(page, body, levels) for page in pages)
    ]


def plain(text: str) -> str:
    """``text`` (what OCR read) with no line that would read as a heading."""
    return "\n".join(map(escaped_heading, text.split("\n")))


def _page_lines(page: list[SizedLine], body: float, levels: dict[float, int]) -> list[str]:
    marked: list[str] = []
    previous_level = 0
    for line in page:
        text = line.text.strip()
        level = levels.get(line.size, 0) if _looks_like_heading(line, body) else 0
        if level and level == previous_level:
            marked[-1] += " " + text  # the title's second line
        elif level:
            marked.append("#" * level + " " + text)
        else:
            text, alone = escaped_heading(text), line.alone
            if _DOT_LEADER.search(text):
                text, alone = _DOT_LEADER.sub(": ", text, count=1), True
            if alone and marked and _runs_on(marked[-1]):
                # A paragraph of its own from the line above too: a table's first row,
                # under the sentence that introduces the table, was read as its end.
                text = "\n" + text
            marked.append(text + "\n" if alone else text)
        previous_level = level
    return marked


def _runs_on(marked: str) -> bool:
    """Whether the line after ``marked`` would be read as part of its paragraph: not after
    a blank line, a heading or a paragraph of its own (each is followed by a blank line)."""
    return bool(marked.strip()) and not marked.endswith("\n") and not marked.startswith("#")


def _body_size(lines: list[SizedLine]) -> float:
    """The size most of the letters are drawn at."""
    letters: Counter[float] = Counter()
    for line in lines:
        if line.size:
            letters[line.size] += sum(c.isalnum() for c in line.text)
    return letters.most_common(1)[0][0] if letters else 0.0


def _heading_levels(pages: list[list[SizedLine]], body: float) -> dict[float, int]:
    lines = [line for page in pages for line in page]
    headings = [line for line in lines if _looks_like_heading(line, body)]
    total = sum(len(line.text) for line in lines)
    if not headings or sum(len(line.text) for line in headings) > MAX_HEADING_SHARE * total:
        return {}
    sizes = sorted({line.size for line in headings}, reverse=True)
    return {size: min(n + 1, LEVELS) for n, size in enumerate(sizes)}


def _looks_like_heading(line: SizedLine, body: float) -> bool:
    text = line.text.strip()
    return (
        line.size >= body * HEADING_RATIO
        and 0 < len(text.split()) <= MAX_HEADING_WORDS
        and sum(c.isalpha() for c in text) >= 2  # not a symbol of a formula drawn large
        and not text.endswith((".", ",", ";"))
    )
