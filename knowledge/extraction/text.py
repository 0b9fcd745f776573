"""Plain text, Markdown and CSV: decoded by their encoding; a CSV row is read with its
column headers."""

from __future__ import annotations

import codecs
import csv
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from charset_normalizer import from_bytes
from django.utils.translation import gettext_noop
from markdown_it import MarkdownIt
from markdown_it.token import Token
from w3lib.encoding import html_body_declared_encoding, http_content_type_encoding, read_bom

from knowledge.extraction.base import (
    Budget,
    Deadline,
    Extraction,
    IngestionError,
    Outline,
    PageText,
    stored_file_missing,
    titled_plain_text,
)


def decode_text(data: bytes) -> tuple[str, dict[str, object]]:
    """UTF-8 (with or without BOM), UTF-16 with BOM, else the detected legacy encoding."""
    if data.startswith(codecs.BOM_UTF8):
        return data[3:].decode("utf-8", errors="replace"), {"encoding": "utf-8-sig"}
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace"), {"encoding": "utf-16"}
    try:
        return data.decode("utf-8"), {"encoding": "utf-8"}
    except UnicodeDecodeError:
        pass  # not UTF-8: damaged UTF-8, or a legacy encoding to detect below
    damaged = _damaged_utf8(data)
    if damaged is not None:
        return damaged, {"encoding": "utf-8", "invalid_bytes_replaced": True}
    western = _western_latin(data)
    if western is not None:
        return western, {"encoding": "cp1252", "encoding_detected": True}
    best = from_bytes(data).best()
    if best is None:
        raise IngestionError(
            gettext_noop(
                "The text's character encoding could not be recognised. Save it as UTF-8 and "
                "upload it again."
            )
        )
    return str(best), {"encoding": best.encoding, "encoding_detected": True}


def decode_html(data: bytes, content_type: str = "") -> tuple[str, dict[str, object]]:
    """A page as a browser reads it: by its byte-order mark, else by the charset its
    server's Content-Type or its own ``<meta>`` declares (w3lib reads both with the WHATWG
    labels: "iso-8859-1" is cp1252), else detected like any text."""
    if read_bom(data)[0] is not None:
        return decode_text(data)
    declared = http_content_type_encoding(content_type) or html_body_declared_encoding(data)
    return decode_declared(data, declared)


def decode_declared(data: bytes, declared: str | None) -> tuple[str, dict[str, object]]:
    """A text in the charset declared for it, unless its bytes say otherwise: letters beyond
    ASCII that are valid UTF-8 are UTF-8 (a legacy text next to never is, while a site moved
    to UTF-8 often keeps its old declaration), and bytes the declared charset cannot read
    (a UTF-8 template around text pasted from Windows) are detected. A UTF-8 or UTF-16
    declaration is left to detection (UTF-8 is tried first; UTF-16 without a byte-order
    mark is a copied template's, which browsers ignore too), and so is a charset no browser
    reads."""
    if declared not in _WEB_ENCODINGS or (not data.isascii() and _is_utf8(data)):
        return decode_text(data)
    try:
        text = data.decode(declared)
    except UnicodeError:
        return decode_text(data)
    return text, {"encoding": declared, "encoding_declared": True}


# The legacy encodings of the WHATWG Encoding Standard, by Python's names for them. w3lib
# resolves any label Python knows, so a page may declare "base64", "rot13" or EBCDIC
# ("cp037"), which no browser reads: such a declaration is ignored, as browsers do.
_WEB_ENCODINGS = frozenset(
    codecs.lookup(name).name
    for name in (
        "cp866", "iso8859-2", "iso8859-3", "iso8859-4", "iso8859-5", "iso8859-6",
        "iso8859-7", "iso8859-8", "iso8859-10", "iso8859-13", "iso8859-14", "iso8859-15",
        "iso8859-16", "koi8-r", "koi8-u", "mac-roman", "mac-cyrillic", "cp874", "cp1250",
        "cp1251", "cp1252", "cp1253", "cp1254", "cp1255", "cp1256", "cp1257", "cp1258",
        "gbk", "gb18030", "big5", "big5hkscs", "euc_jp", "iso2022_jp", "shift_jis", "cp932",
        "euc_kr", "cp949",
    )
)  # fmt: skip


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _damaged_utf8(data: bytes) -> str | None:
    """UTF-8 with a few invalid bytes (a file cut mid-character, pasted together from two
    sources) is UTF-8: detection read a whole Spanish text as ISO-8859-10 for one stray byte
    ("niños" became "niÃąos" throughout). A legacy text has next to no valid multi-byte
    sequences; damaged UTF-8 has many more of them than invalid ones."""
    text = data.decode("utf-8", errors="replace")
    invalid = text.count("\ufffd")
    valid = sum(1 for character in text if ord(character) > 127) - invalid
    return text if valid >= 10 * invalid else None


# Spanish, Portuguese and English text saved by Windows (Excel's CSV above all) is cp1252.
# charset_normalizer guesses short texts badly: cp1250 ("niños" read "nińos"), or cp437 for a
# price list ("49 €" read "49 Ç"). When every byte reads in cp1252 and what is not ASCII is
# (nearly all) these languages' letters and signs, it is cp1252.
_WESTERN_LATIN = frozenset("áéíóúàèìòùâêîôûãõäëïöüçñÁÉÍÓÚÀÈÌÒÙÂÊÎÔÛÃÕÄËÏÖÜÇÑ¿¡ºª€£°·«»“”‘’–—…")


def _western_latin(data: bytes) -> str | None:
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:  # five bytes cp1252 leaves undefined
        return None
    beyond_ascii = [ch for ch in text if ord(ch) > 127]
    known = sum(ch in _WESTERN_LATIN for ch in beyond_ascii)
    return text if beyond_ascii and known >= 0.9 * len(beyond_ascii) else None


def read_decoded(
    path: Path, decode: Callable[[bytes], tuple[str, dict[str, object]]] = decode_text
) -> tuple[str, dict[str, object]]:
    if not path.exists():
        raise stored_file_missing(path)
    return decode(path.read_bytes())


def extract_text_file(path: Path, *, markdown: bool) -> Extraction:
    text, details = read_decoded(path)
    if markdown:
        return Extraction([PageText(None, tables_as_rows(text))], None, details, markdown=True)
    return Extraction([PageText(None, titled_plain_text(text))], None, details, headings=True)


# GitHub's pipe tables, as markdown-it-py reads them (CommonMark has none). Blocks only:
# the inline rules run on a table's cells alone, and a file is read a piece at a time
# (``_pieces``): its tokens take about a hundred times a text's size.
_TABLES = MarkdownIt("commonmark", {"html": False}).enable("table").disable("inline")
_CELLS = MarkdownIt("commonmark", {"html": False})
# A table's delimiter row ("|---|:--:|"): a file without one has no table, and is not parsed.
_DELIMITER_ROW = re.compile(
    r"^ {0,3}(?=[^\n]*\|)\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-*:?[ \t]*)*$", re.M
)
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_PIECE_CHARS = 256 * 1024


def tables_as_rows(markdown: str) -> str:
    """``markdown`` with each pipe table written as every other format's table is, a row
    per paragraph with its columns' names ("Tratamiento: Limpieza · Precio: 45 €"): a row
    alone in a chunk still says what its cells are. "| Limpieza | 45 € | 30 minutos |" did
    not, and "¿Y cuánto dura?" after the cleaning's price quoted three rows. A table inside
    a list, a quote or a code block stays as written."""
    markdown = markdown.replace("\r\n", "\n").replace("\r", "\n")
    if not _DELIMITER_ROW.search(markdown):
        return markdown
    lines = markdown.split("\n")
    for first, end in reversed(list(_pieces(lines))):
        piece = "\n".join(lines[first:end])
        if not _DELIMITER_ROW.search(piece):
            continue
        tokens = _TABLES.parse(piece)
        tables = [
            (index, token.map)
            for index, token in enumerate(tokens)
            if token.type == "table_open" and token.level == 0 and token.map
        ]
        for index, (start, stop) in reversed(tables):
            outline = Outline()
            outline.table(_table_rows(tokens[index:]))
            lines[first + start : first + stop] = [outline.text()]
    return "\n".join(lines)


def _pieces(lines: list[str]) -> Iterator[tuple[int, int]]:
    """Line ranges of about _PIECE_CHARS each, cut at a blank line outside a fenced code
    block, where no table can be cut in two."""
    first, size, fence = 0, 0, ""
    for number, line in enumerate(lines):
        size += len(line) + 1
        if marker := _FENCE.match(line):
            opening = marker.group(1)
            if not fence:
                fence = opening
            elif opening[0] == fence[0] and len(opening) >= len(fence):
                fence = ""
        elif not line.strip() and not fence and size >= _PIECE_CHARS:
            yield first, number
            first, size = number, 0
    yield first, len(lines)


def _table_rows(tokens: list[Token]) -> Iterator[list[str]]:
    row: list[str] = []
    for token in tokens:
        if token.type == "inline":
            row.append(_plain(token.content))
        elif token.type == "tr_close":
            yield row
            row = []
        elif token.type == "table_close":
            return


def _plain(cell: str) -> str:
    """A cell's text without its Markdown ("**49 €**", "[Pro](…)", "`x`", "a \\| b")."""
    if not _MARKED.search(cell):
        return cell
    children = _CELLS.parseInline(cell)[0].children or []
    return "".join(_text_of(child) for child in children)


_MARKED = re.compile(r"[*_`\[\]\\<>&!~]")


def _text_of(token: Token) -> str:
    if token.type in ("text", "code_inline"):
        return token.content
    return " " if token.type in ("softbreak", "hardbreak") else ""


_DELIMITERS = ",;\t|"
_ROWS_BETWEEN_CHECKS = 2000
_ROWS_TO_TELL = 200  # rows read to tell the delimiter


def extract_csv(path: Path, *, budget: Budget) -> Extraction:
    """The first row names the columns (the common case; a CSV says nothing about it)."""
    text, details = read_decoded(path)
    delimiter, lines = _delimiter_and_lines(text)
    deadline = budget.deadline()
    outline = Outline()
    try:
        # Quoting as Excel and RFC 4180 write it ("" inside quotes is a quote): the sniffer
        # guessed that from one row and read 'copias y ""extras""' as written.
        rows = list(_rows(csv.reader(lines, csv.excel, delimiter=delimiter), deadline))
    except csv.Error as exc:
        raise IngestionError(
            gettext_noop("This CSV file could not be read: %(detail)s."),
            params={"detail": str(exc)},
        ) from exc
    outline.table(rows)
    details["rows"] = len(rows)
    return Extraction([PageText(None, outline.text())], None, details, markdown=True)


_EXCEL_SEPARATOR = re.compile(r"sep=(.)")


def _delimiter_and_lines(text: str) -> tuple[str, list[str]]:
    """The delimiter and the lines to read: Excel's "sep=X" first line names the delimiter
    and is not a row; else the one of , ; tab | that splits the most rows into as many
    fields as the first row names columns, the sniffed one on a tie; commas when none
    splits the first row."""
    lines = text.splitlines()
    if lines and (declared := _EXCEL_SEPARATOR.fullmatch(lines[0].strip())):
        return declared.group(1), lines[1:]
    try:
        sniffed = csv.Sniffer().sniff(text[:8192], delimiters=_DELIMITERS).delimiter
    except csv.Error:
        sniffed = ","
    # The sniffer counts each character's frequency per line: a ";" file whose answers
    # are sentences with commas ("Sí, perros y gatos…") it read as commas, or not at all.
    # CleverCSV read that one right but a regular 300-row ";" file as commas (its type
    # score prefers cells that look like numbers or dates): the first row names the
    # columns, and the rows that agree with it tell the delimiter.
    sample = lines[:_ROWS_TO_TELL]
    fits = {d: _rows_fitting_the_header(sample, d) for d in _DELIMITERS}
    best = max(fits.values())
    if best == 0:
        return ",", lines
    return (
        sniffed if fits.get(sniffed) == best else next(d for d in fits if fits[d] == best)
    ), lines


def _rows_fitting_the_header(lines: list[str], delimiter: str) -> int:
    """How many rows have as many fields as the first, when it has two or more."""
    try:
        rows = [row for row in csv.reader(lines, csv.excel, delimiter=delimiter) if row]
    except csv.Error:  # a sample cut inside a quoted field, a NUL: not this one
        return 0
    if not rows or len(rows[0]) < 2:
        return 0
    return sum(len(row) == len(rows[0]) for row in rows[1:]) + 1


def _rows(reader: Iterator[list[str]], deadline: Deadline) -> Iterator[list[str]]:
    for number, row in enumerate(reader, start=1):
        if number % _ROWS_BETWEEN_CHECKS == 0:
            deadline.check(f"row {number}")
        yield row
