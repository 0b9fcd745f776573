"""Documents of every supported format, built in memory, each holding its own facts in
Spanish, Portuguese and English: in headings, body text, a table and, where the format has
them, slides, speaker notes and sheets. ``facts(kind)`` says what each one holds."""

from __future__ import annotations

import csv
import io
import zipfile
from dataclasses import dataclass
from pathlib import Path

import docx
import openpyxl
import pptx
from ebooklib import epub
from pptx.util import Inches

# Files written by real programs (LibreOffice, Word's own markup): README.md there says how.
DOCUMENTS = Path(__file__).resolve().parent / "data" / "documents"
KINDS = ("docx", "pptx", "xlsx", "csv", "html", "odt", "epub", "ods", "odp")


@dataclass(frozen=True)
class Facts:
    """Numbers differ per format so that a hit proves which file it came from."""

    kind: str
    days: int  # es: vacation days
    ferias: int  # pt: holiday days in Brazil
    closes: int  # en: hour the parking garage closes
    price: int  # table: price of the Pro plan

    @property
    def es(self) -> str:
        return f"Los empleados disfrutan de {self.days} días de vacaciones al año."

    @property
    def pt(self) -> str:
        return f"Os funcionários no Brasil têm {self.ferias} dias de férias por ano."

    @property
    def en(self) -> str:
        return f"The parking garage closes at {self.closes}:00 on weekdays."

    @property
    def table(self) -> list[list[str]]:
        return [
            ["Plan", "Precio", "Usuarios"],
            ["Pro", f"{self.price} €", "10"],
            ["Básico", "9 €", "1"],
        ]

    @property
    def table_row(self) -> str:
        return f"Plan: Pro · Precio: {self.price} € · Usuarios: 10"


def facts(kind: str) -> Facts:
    n = KINDS.index(kind)
    return Facts(kind, days=21 + n, ferias=30 + n, closes=17 + n, price=41 + n)


SECTIONS = ("Política de vacaciones", "Férias no Brasil", "Parking garage")


def build(kind: str) -> bytes:
    return _BUILDERS[kind](facts(kind))


def _docx(f: Facts) -> bytes:
    document = docx.Document()
    document.add_heading("Manual del empleado", level=0)
    for heading, text in zip(SECTIONS, (f.es, f.pt, f.en), strict=True):
        document.add_heading(heading, level=1)
        document.add_paragraph(text)
    document.add_heading("Planes y precios", level=1)
    table = document.add_table(rows=0, cols=3)
    for row in f.table:
        cells = table.add_row().cells
        for cell, value in zip(cells, row, strict=True):
            cell.text = value
    return _saved(document)


def _pptx(f: Facts) -> bytes:
    presentation = pptx.Presentation()
    layout = presentation.slide_layouts[1]  # title and content
    for heading, text in zip(SECTIONS, (f.es, f.pt, f.en), strict=True):
        slide = presentation.slides.add_slide(layout)
        slide.shapes.title.text = heading
        slide.placeholders[1].text_frame.text = text
    slide = presentation.slides.add_slide(presentation.slide_layouts[5])  # title only
    slide.shapes.title.text = "Planes y precios"
    shape = slide.shapes.add_table(3, 3, Inches(1), Inches(2), Inches(6), Inches(2))
    for r, row in enumerate(f.table):
        for c, value in enumerate(row):
            shape.table.cell(r, c).text = value
    notes = slide.notes_slide.notes_text_frame
    notes.text = f"Recordar que el código de descuento es PROMO{f.price}."
    return _saved(presentation)


def _xlsx(f: Facts) -> bytes:
    """A sheet per section, each with a header row; a hidden sheet that must stay out."""
    workbook = openpyxl.Workbook()
    sheets = [workbook.active, *(workbook.create_sheet() for _ in range(3))]
    for sheet, heading, row in zip(
        sheets,
        (*SECTIONS, "Planes y precios"),
        (["Vacaciones", f.es], ["Brasil", f.pt], ["Weekdays", f.en], None),
        strict=True,
    ):
        sheet.title = heading
        for values in [["Tema", "Detalle"], row] if row else f.table:
            sheet.append(values)
    days = workbook.create_sheet("Días")
    days.append(["País", "Dias de férias por ano"])
    days.append(["Brasil", f.ferias])
    hidden = workbook.create_sheet("Internal")
    hidden.append(["secret", "never shown"])
    hidden.sheet_state = "hidden"
    return _saved(workbook)


def _csv(f: Facts) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";")
    writer.writerow(["Tema", "Respuesta"])
    writer.writerow(["Vacaciones", f.es])
    writer.writerow(["Férias", f.pt])
    writer.writerow(["Parking", f.en])
    writer.writerow(["Plan Pro", f"{f.price} €"])
    return out.getvalue().encode()


def _html(f: Facts) -> bytes:
    rows = "".join(
        "<tr>"
        + "".join(f"<{'th' if i == 0 else 'td'}>{v}</{'th' if i == 0 else 'td'}>" for v in row)
        + "</tr>"
        for i, row in enumerate(f.table)
    )
    return f"""<!DOCTYPE html><html lang="es"><head><meta charset="utf-8"><title>Manual</title></head>
<body><nav><a href="/">Inicio</a> <a href="/ayuda">Ayuda</a> <a href="/precios">Precios</a></nav>
<div class="cookie-banner" id="cookie-consent">Usamos cookies de terceros para analizar el tráfico. <button>Aceptar todas</button></div>
<main><article><h1>Manual del empleado</h1>
<h2>{SECTIONS[0]}</h2><p>{f.es}</p><p>Las solicitudes se envían con dos semanas de antelación al responsable del equipo.</p>
<h2>{SECTIONS[1]}</h2><p>{f.pt}</p><p>As férias podem ser divididas em até três períodos, conforme a legislação.</p>
<h2>{SECTIONS[2]}</h2><p>{f.en}</p><p>Visitors park on level minus two and register at the front desk.</p>
<h2>Planes y precios</h2><table>{rows}</table></article></main>
<footer>© 2026 Empresa Ejemplo S.L. · Aviso legal · Política de cookies</footer>
<script>document.write("never read")</script></body></html>""".encode()


_ODF_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
    'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"'
)


def _odf_rows(rows: list[list[str]]) -> str:
    return "".join(
        "<table:table-row>"
        + "".join(f"<table:table-cell><text:p>{v}</text:p></table:table-cell>" for v in row)
        + "</table:table-row>"
        for row in rows
    )


def _ods(f: Facts) -> bytes:
    """As the Excel file: a sheet per section, the price table, a hidden sheet."""
    sheets = "".join(
        f'<table:table table:name="{heading}">{_odf_rows([["Tema", "Detalle"], [topic, text]])}'
        "</table:table>"
        for heading, topic, text in zip(
            SECTIONS, ("Vacaciones", "Brasil", "Weekdays"), (f.es, f.pt, f.en), strict=True
        )
    )
    content = f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document-content {_ODF_NS} office:version="1.3"><office:automatic-styles>
<style:style style:name="ta2" style:family="table"><style:table-properties table:display="false"/></style:style>
</office:automatic-styles><office:body><office:spreadsheet>{sheets}
<table:table table:name="Planes y precios">{_odf_rows(f.table)}</table:table>
<table:table table:name="Oculta" table:style-name="ta2">{_odf_rows([["secret", "never shown"]])}</table:table>
</office:spreadsheet></office:body></office:document-content>"""
    return odf_package("application/vnd.oasis.opendocument.spreadsheet", content)


def _odp(f: Facts) -> bytes:
    """As the PowerPoint file: a slide per section, the price table with speaker notes."""

    def frame(y: int, inner: str, kind: str = "") -> str:
        placeholder = f' presentation:class="{kind}"' if kind else ""
        return f'<draw:frame svg:x="1cm" svg:y="{y}cm"{placeholder}>{inner}</draw:frame>'

    def box(text: str) -> str:
        return f"<draw:text-box><text:p>{text}</text:p></draw:text-box>"

    slides = "".join(
        f"<draw:page>{frame(5, box(text), 'outline')}{frame(1, box(heading), 'title')}</draw:page>"
        for heading, text in zip(SECTIONS, (f.es, f.pt, f.en), strict=True)
    )
    notes = f"Recordar que el código de descuento es PROMO{f.price}."
    prices = (
        f"<draw:page>{frame(1, box('Planes y precios'), 'title')}"
        f"{frame(5, f'<table:table>{_odf_rows(f.table)}</table:table>')}"
        f"{frame(18, box('3'), 'page-number')}"
        f"<presentation:notes>{frame(12, box(notes), 'notes')}</presentation:notes></draw:page>"
    )
    content = f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document-content {_ODF_NS} office:version="1.3"><office:body><office:presentation>
{slides}{prices}</office:presentation></office:body></office:document-content>"""
    return odf_package("application/vnd.oasis.opendocument.presentation", content)


def _odt(f: Facts) -> bytes:
    sections = "".join(
        f'<text:h text:outline-level="2">{h}</text:h><text:p>{t}</text:p>'
        for h, t in zip(SECTIONS, (f.es, f.pt, f.en), strict=True)
    )
    rows = "".join(
        "<table:table-row>"
        + "".join(f"<table:table-cell><text:p>{v}</text:p></table:table-cell>" for v in row)
        + "</table:table-row>"
        for row in f.table
    )
    content = f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document-content {_ODF_NS} office:version="1.3"><office:body><office:text>
<text:table-of-content><text:index-body><text:p>Índice que repite los títulos</text:p></text:index-body></text:table-of-content>
<text:h text:outline-level="1">Manual del empleado</text:h>{sections}
<text:h text:outline-level="2">Planes y precios</text:h>
<table:table table:name="Planes"><table:table-column table:number-columns-repeated="3"/>{rows}</table:table>
</office:text></office:body></office:document-content>"""
    return odf_package("application/vnd.oasis.opendocument.text", content)


def odf_package(mimetype: str, content: str, *, encrypted: bool = False) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("mimetype", mimetype, compress_type=zipfile.ZIP_STORED)
        archive.writestr("content.xml", content, compress_type=zipfile.ZIP_DEFLATED)
        manifest = (
            '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest='
            '"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">'
            '<manifest:file-entry manifest:full-path="/" manifest:media-type="'
            f'{mimetype}"/><manifest:file-entry manifest:full-path="content.xml" '
            'manifest:media-type="text/xml">'
            + ("<manifest:encryption-data/>" if encrypted else "")
            + "</manifest:file-entry></manifest:manifest>"
        )
        archive.writestr("META-INF/manifest.xml", manifest)
    return out.getvalue()


def _epub(f: Facts) -> bytes:
    book = epub.EpubBook()
    book.set_identifier(f"manual-{f.kind}")
    book.set_title("Manual del empleado")
    book.set_language("es")
    chapters = []
    for number, (heading, text) in enumerate(zip(SECTIONS, (f.es, f.pt, f.en), strict=True), 1):
        chapter = epub.EpubHtml(title=heading, file_name=f"chap_{number}.xhtml", lang="es")
        chapter.content = f"<h1>{heading}</h1><p>{text}</p>"
        chapters.append(chapter)
    rows = "".join("<tr>" + "".join(f"<td>{v}</td>" for v in row) + "</tr>" for row in f.table)
    table = epub.EpubHtml(title="Planes", file_name="chap_4.xhtml", lang="es")
    table.content = f"<h1>Planes y precios</h1><table>{rows}</table>"
    chapters.append(table)
    for chapter in chapters:
        book.add_item(chapter)
    book.toc = chapters
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *chapters]
    out = io.BytesIO()
    epub.write_epub(out, book)
    return out.getvalue()


def _saved(document) -> bytes:  # noqa: ANN001 - python-docx, python-pptx or openpyxl
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


_BUILDERS = {
    "docx": _docx,
    "pptx": _pptx,
    "xlsx": _xlsx,
    "csv": _csv,
    "html": _html,
    "odt": _odt,
    "epub": _epub,
    "ods": _ods,
    "odp": _odp,
}


def with_bad_checksum(data: bytes, member: str) -> bytes:
    """The ZIP ``data`` with ``member``'s CRC-32 wrong in its central directory: what a file
    damaged in transit looks like to a reader (the part fails when read back whole)."""
    raw = bytearray(data)
    at = raw.find(b"PK\x01\x02")
    while at != -1:
        length = int.from_bytes(raw[at + 28 : at + 30], "little")
        if raw[at + 46 : at + 46 + length] == member.encode():
            raw[at + 16] ^= 0xFF
            return bytes(raw)
        at = raw.find(b"PK\x01\x02", at + 46)
    raise LookupError(member)
