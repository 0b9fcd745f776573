"""Split text into chunks, by structure (Markdown headings, paragraphs, sentences) or in
fixed windows of tokens.

Sizes and overlaps per source type follow seed 004 §3.2, measured in the embedder's own
tokens and capped by its input limit (heading included, since it is embedded with the
chunk); an upload or its scope may choose others (``ChunkSize``). By structure, a chunk
never ends mid-sentence unless one sentence alone exceeds the limit, nor mid-paragraph
unless the paragraph alone does; in fixed windows it ends where the window does, at a word
boundary, and carries the section path of the words it starts with.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from knowledge.extraction import PageText
from knowledge.extraction.base import HEADING_LINE
from text.sentences import split_sentences


@dataclass(frozen=True)
class ChunkSize:
    target: int
    overlap: int
    fixed: bool = False  # windows of tokens instead of the document's structure


# seed 004 §3.2 (tokens). Types the seed does not list take the middle ground of seed 002
# (1000 characters with 200 overlap is about 250/50 tokens).
CHUNK_SIZES: dict[str, ChunkSize] = {
    "regulation": ChunkSize(650, 100),
    "policy": ChunkSize(650, 100),
    "minutes": ChunkSize(400, 50),
    "record": ChunkSize(150, 0),
    "decision": ChunkSize(300, 0),
    "manual": ChunkSize(400, 50),
    "note": ChunkSize(300, 50),
    "other": ChunkSize(350, 50),
}


@dataclass
class Block:
    """A paragraph with the heading path above it and the page it sits on."""

    text: str
    heading: str
    page: int | None


class _Sentence(NamedTuple):
    text: str
    tokens: int
    page: int | None
    # The first of its paragraph (or table row, or list item): the chunk keeps the line
    # break before it, so the answerer can quote one row of a table rather than all of them.
    opens_paragraph: bool = False


@dataclass
class Piece:
    text: str
    heading: str
    page_start: int | None
    page_end: int | None
    token_count: int


def blocks_from_pages(
    pages: list[PageText], *, markdown: bool, headings: bool = False
) -> Iterator[Block]:
    """Paragraphs under their heading path. ``markdown``: Markdown text, each line kept;
    ``headings``: plain text (a line break is a wrap) but for its "#" heading lines."""
    headings = headings or markdown
    # The open heading at each level: a "##" heading replaces the "##" before it (and
    # closes deeper ones) even when the document has no "#" above them.
    open_headings: dict[int, str] = {}
    path: list[str] = []
    for page in pages:
        for paragraph in re.split(r"\n\s*\n", page.text):
            lines = paragraph.strip().split("\n")
            body: list[str] = []
            for line in lines:
                match = HEADING_LINE.match(line) if headings else None
                if match:
                    if body:
                        yield Block(" ".join(body), " > ".join(path), page.number)
                        body = []
                    level = len(match.group(1))
                    open_headings = {n: h for n, h in open_headings.items() if n < level}
                    open_headings[level] = match.group(2).strip()
                    path = [open_headings[n] for n in sorted(open_headings)]
                elif line.strip():
                    body.append(_unescaped(line.strip()) if headings else line.strip())
            if body:
                yield Block(
                    " ".join(body) if not markdown else "\n".join(body),
                    " > ".join(path),
                    page.number,
                )


def _unescaped(line: str) -> str:
    """Markdown's escape of a line that would read as a heading ("\\# 1 priority")."""
    return line[1:] if line.startswith("\\#") else line


class Chunker:
    def __init__(self, *, count_tokens: Callable[[str], int], max_tokens: int, size: ChunkSize):
        self.count_tokens = count_tokens
        self.max_tokens = max_tokens
        self.target = min(size.target, max_tokens)
        self.overlap = min(size.overlap, self.target // 2)
        self.fixed = size.fixed

    def chunk(self, blocks: Iterator[Block]) -> list[Piece]:
        return self._fixed(blocks) if self.fixed else self._by_structure(blocks)

    def _by_structure(self, blocks: Iterator[Block]) -> list[Piece]:
        pieces: list[Piece] = []
        current: list[_Sentence] = []
        heading = ""
        for block in blocks:
            if block.heading != heading and current:
                pieces.append(self._piece(current, heading))
                current = []
            heading = block.heading
            budget = self.target - self._heading_tokens(heading)
            sentences = [
                _Sentence(text, self.count_tokens(text), block.page, index == 0)
                for index, text in enumerate(self._sentences(block.text, budget))
            ]
            paragraph = sum(s.tokens for s in sentences)
            # A paragraph that fits a chunk of its own is not cut to fill the end of another.
            if current and paragraph <= budget < sum(s.tokens for s in current) + paragraph:
                pieces.append(self._piece(current, heading))
                current = self._overlap_tail(current, budget - paragraph)
            for sentence in sentences:
                if current and sum(s.tokens for s in current) + sentence.tokens > budget:
                    pieces.append(self._piece(current, heading))
                    current = self._overlap_tail(current, budget - sentence.tokens)
                current.append(sentence)
        if current:
            pieces.append(self._piece(current, heading))
        return [piece for piece in pieces if piece.text.strip()]

    def _fixed(self, blocks: Iterator[Block]) -> list[Piece]:
        """Windows of ``target`` tokens, each starting ``overlap`` tokens before the last
        one ended. A word's tokens are counted alone (its share of the text's)."""
        empty = self.count_tokens("")  # the tokenizer's own markers, counted once per text
        words = [
            (word, max(1, self.count_tokens(word) - empty), block.heading, block.page)
            for block in blocks
            for word in block.text.split()
        ]
        pieces: list[Piece] = []
        start = 0
        while start < len(words):
            end, total = start, 0
            budget = self.target - self._heading_tokens(words[start][2])
            while end < len(words) and (end == start or total + words[end][1] <= budget):
                total += words[end][1]
                end += 1
            window = [_Sentence(word, tokens, page) for word, tokens, _, page in words[start:end]]
            pieces.append(self._piece(window, words[start][2]))
            if end == len(words):
                break
            start = max(start + 1, self._overlap_start(words, start, end))
        return pieces

    def _overlap_start(
        self, words: list[tuple[str, int, str, int | None]], start: int, end: int
    ) -> int:
        back, total = end, 0
        while back > start and total + words[back - 1][1] <= self.overlap:
            back -= 1
            total += words[back][1]
        return back

    def _heading_tokens(self, heading: str) -> int:
        return self.count_tokens(heading) if heading else 0

    def _sentences(self, text: str, budget: int) -> Iterator[str]:
        for sentence in split_sentences(text):
            if self.count_tokens(sentence) <= budget:
                yield sentence
            else:
                yield from self._split_long(sentence, budget)

    def _split_long(self, sentence: str, budget: int) -> Iterator[str]:
        """A sentence over the limit is cut at word boundaries (the only mid-sentence cut).
        Each word's tokens are counted alone, as in fixed windows: counting the growing part
        again at every word took 0.4 s a piece (a 24 MB line without a stop, 50 minutes)."""
        empty = self.count_tokens("")
        part: list[str] = []
        total = 0
        for word in sentence.split():
            tokens = max(1, self.count_tokens(word) - empty)
            if part and total + tokens > budget:
                yield " ".join(part)
                part, total = [], 0
            part.append(word)
            total += tokens
        if part:
            yield " ".join(part)

    def _overlap_tail(self, sentences: list[_Sentence], room: int) -> list[_Sentence]:
        tail: list[_Sentence] = []
        total = 0
        for sentence in reversed(sentences):
            if total + sentence.tokens > min(self.overlap, room):
                break
            tail.insert(0, sentence)
            total += sentence.tokens
        return tail

    def _piece(self, sentences: list[_Sentence], heading: str) -> Piece:
        text = "".join(
            ("\n" if s.opens_paragraph else " ") + s.text if n else s.text
            for n, s in enumerate(sentences)
        )
        pages = [s.page for s in sentences if s.page is not None]
        tokens = self.count_tokens(f"{heading}\n{text}" if heading else text)
        return Piece(
            text=text,
            heading=heading,
            page_start=min(pages) if pages else None,
            page_end=max(pages) if pages else None,
            token_count=tokens,
        )


def embedding_text(heading: str, content: str) -> str:
    """What is embedded: the heading path gives a chunk its context."""
    return f"{heading}\n{content}" if heading else content


# A sentence group has at least this many words: shorter sentences ("Veja a tabela 3.")
# say too little to match a question on their own and are joined to the next one.
SENTENCE_GROUP_MIN_WORDS = 8


def sentence_groups(content: str, min_words: int = SENTENCE_GROUP_MIN_WORDS) -> list[str]:
    """The chunk's sentences, short ones joined to the next, for the sentence vectors.

    Line by line, as the offline answerer quotes them: a line is a paragraph, a list item
    or a table row, and a row has no full stop to end it (a sheet's rows made one group, so
    "¿A qué hora cierra la sauna?" scored the gym's row as the sauna's). A table row is a
    group of its own however short: it is a record that answers alone.

    Empty when the chunk is a single group: its own vector already is that sentence's."""
    groups: list[str] = []
    pending = ""
    for line in content.splitlines():
        line = " ".join(line.split())
        sentences = [line] if is_table_row(line) else split_sentences(line)
        for sentence in sentences:
            pending = f"{pending} {sentence}".strip()
            if len(pending.split()) >= min_words or is_table_row(sentence):
                groups.append(pending)
                pending = ""
    if pending:
        if groups:
            groups[-1] = f"{groups[-1]} {pending}"
        else:
            groups.append(pending)
    return groups if len(groups) > 1 else []


def is_table_row(line: str) -> bool:
    """A table's row as knowledge.extraction writes it, its cells named by their columns
    ("Servicio: Sauna · Precio (€): 12"): two cells so named at least, so that prose with a
    colon and a middle dot is not one."""
    return sum(1 for cell in line.split(" · ") if _NAMED_CELL.match(cell)) >= 2


_NAMED_CELL = re.compile(r"[^:\n]{1,80}: \S")
