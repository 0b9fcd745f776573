"""A PDF's tables, from where their text stands (pypdf's layout mode): each row with its
column headers, as Word tables are read."""

from __future__ import annotations

from knowledge.extraction import Budget, extract
from knowledge.extraction.pdf_headings import SizedLine
from knowledge.extraction.pdf_tables import table_rows, with_tables
from tests.conftest import PDFS
from tests.documents import DOCUMENTS

BUDGET = Budget(max_pages=2000, max_content_bytes=10**8, max_seconds=120)

PRICES = """\
Tarifas

 Servicio          Tarifa        Plazo

Traducción  0,08 € por palabra  5 días

Revisión    0,03 € por palabra  2 días
"""


def test_a_price_list_reads_row_by_row_with_its_headers():
    assert table_rows(PRICES) == {
        "Servicio Tarifa Plazo": "",
        "Traducción 0,08 € por palabra 5 días":
            "Servicio: Traducción · Tarifa: 0,08 € por palabra · Plazo: 5 días",
        "Revisión 0,03 € por palabra 2 días":
            "Servicio: Revisión · Tarifa: 0,03 € por palabra · Plazo: 2 días",
    }  # fmt: skip


def test_a_row_whose_cell_wraps_does_not_lose_the_headers_below_it():
    layout = """\
Plan        Precio      Incluye
Básico      20 €        Piscina
Familiar    45 €        Piscina, gimnasio y
                        clases dirigidas
Joven       15 €        Gimnasio
Senior      18 €        Piscina
"""
    rows = table_rows(layout)

    assert rows["Joven 15 € Gimnasio"] == "Plan: Joven · Precio: 15 € · Incluye: Gimnasio"
    assert rows["Senior 18 € Piscina"] == "Plan: Senior · Precio: 18 € · Incluye: Piscina"


def test_a_first_row_of_figures_is_a_row_not_headers():
    layout = "2023    1.200    Valencia\n2024    1.350    Valencia\n2025    1.410    Madrid\n"

    assert table_rows(layout)["2024 1.350 Valencia"] == "2024 · 1.350 · Valencia"


def test_text_that_only_looks_like_columns_is_left_alone():
    justified = """\
El  reglamento del club fija las normas de uso de las instalaciones para
los socios y sus  invitados durante todo el año, también en los meses de
verano, cuando la piscina  abre por la tarde y el gimnasio cierra antes.
"""
    contents = "1 Introducción ........ 3\n2 Normas ............... 5\n3 Tarifas .............. 8\n"
    labelled = "Autor:     Ana López\nFecha:     20-10-2026\nVersión:   0.2\n"
    items = "1.   Pide cita.\n2.   Trae el DNI.\n3.   Firma el alta.\n"
    references = (
        "[9]        Internet media type. Wikipedia, the free encyclopedia. Link:\n"
        "         http://en.wikipedia.org/wiki/Internet_media_type (accessed 2009)\n"
        "[10]      Digital signature. Wikipedia, the free encyclopedia. Link:\n"
        "         http://en.wikipedia.org/wiki/Digital_signature (accessed 2009)\n"
        "[11]      Chou, C., 2006. Guidelines for Creating Archival Quality PDF Files.\n"
    )  # hanging lines under each item, as a wrapped cell's
    for text in (justified, contents, labelled, items, references):
        assert table_rows(text) == {}, text


def test_a_report_s_tables_read_with_their_headers():
    """The 56-page preservation report: its colour-depth table, its headers in bold."""
    extraction = extract(
        PDFS / "test_fontArialNotEmbedded.pdf", "pdf", password="", budget=BUDGET,
        ocr_languages="eng",
    )  # fmt: skip
    text = "\n".join(page.text for page in extraction.pages)

    assert "Colour depth: 16 bits · Support from version: PDF 1.5" in text


# A LibreOffice table saved as PDF: padded cells set the rows apart by blank lines, and a
# long cell wraps in any column, the first included.
ACTIVITIES = """\
Actividad            Día                  Hora                 Edad

Cuentacuentos        Sábados 10, 17 y     11:00                De 3 a 7 años
                     24 de octubre

Club de lectura      Martes               18:00                De 12 a 16 años
juvenil

Curso de             Lunes y              10:00                Mayores de 60
informática          miércoles de                              años
básica               octubre

Si no puedes venir a una actividad en la que te has inscrito, avísanos con un
día de antelación para dar tu plaza a otra persona.
"""


def test_a_cell_that_wraps_is_read_whole_with_its_row():
    """A library's activities, a table saved as PDF: every row wrapped, so no three lines
    lined up and the whole table read as one run-on paragraph ("Actividad Día Hora Edad
    Cuentacuentos Sábados 10, 17 y 24 de octubre 11:00…")."""
    rows = table_rows(ACTIVITIES)

    assert rows["Club de lectura juvenil Martes 18:00 De 12 a 16 años"] == (
        "Actividad: Club de lectura juvenil · Día: Martes · Hora: 18:00 · Edad: De 12 a 16 años"
    )
    assert rows[
        "Curso de informática básica Lunes y miércoles de octubre 10:00 Mayores de 60 años"
    ] == (
        "Actividad: Curso de informática básica · Día: Lunes y miércoles de octubre · "
        "Hora: 10:00 · Edad: Mayores de 60 años"
    )
    assert len(rows) == 4  # the header, three rows: not the paragraph under them


def test_a_row_whose_cells_wrapped_replaces_the_lines_its_pieces_were_drawn_on():
    """The plain text holds a wrapped row's pieces in the order they were drawn, each
    cell's lines apart: "Cuentacuentos Sábados 10, 17 y", "24 de octubre", "11:00 De 3 a 7
    años"."""
    lines = [
        SizedLine(text, 11.0)
        for text in (
            "",
            "Actividad Día Hora Edad",
            "Cuentacuentos Sábados 10, 17 y",
            "24 de octubre",
            "11:00 De 3 a 7 años",
            "Club de lectura ",
            "juvenil",
            "Martes 18:00 De 12 a 16 años",
            "Si no puedes venir a una actividad en la que te has inscrito, avísanos con un",
        )
    ]

    written = [line.text for line in with_tables(lines, table_rows(ACTIVITIES))]

    assert written == [
        "",  # a blank line stays: the header is left out alone
        "Actividad: Cuentacuentos · Día: Sábados 10, 17 y 24 de octubre · Hora: 11:00 · "
        "Edad: De 3 a 7 años",
        "Actividad: Club de lectura juvenil · Día: Martes · Hora: 18:00 · Edad: De 12 a 16 años",
        "Si no puedes venir a una actividad en la que te has inscrito, avísanos con un",
    ]


def test_a_word_processor_s_table_saved_as_pdf_reads_row_by_row():
    extraction = extract(
        DOCUMENTS / "actividades.pdf", "pdf", password="", budget=BUDGET, ocr_languages="spa"
    )
    text = extraction.pages[0].text

    assert (
        "Actividad: Taller de cómic · Día: Miércoles 4, 11 y 18 de noviembre · Hora: 17:30 · "
        "Edad: De 8 a 12 años"
    ) in text
    assert "Actividad Día Hora Edad" not in text
    # the first row is a paragraph of its own, not the end of the sentence above the table
    assert "Las plazas son limitadas.\n\nActividad: Cuentacuentos" in text
