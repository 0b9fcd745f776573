"""A PDF's tables, from where their text stands (pypdf's layout mode): each row with its
column headers, as Word tables are read."""

from __future__ import annotations

from knowledge.extraction import Budget, extract
from knowledge.extraction.pdf_tables import table_rows
from tests.conftest import PDFS

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
    for text in (justified, contents, labelled, items):
        assert table_rows(text) == {}, text


def test_a_report_s_tables_read_with_their_headers():
    """The 56-page preservation report: its colour-depth table, its headers in bold."""
    extraction = extract(
        PDFS / "test_fontArialNotEmbedded.pdf", "pdf", password="", budget=BUDGET,
        ocr_languages="eng",
    )  # fmt: skip
    text = "\n".join(page.text for page in extraction.pages)

    assert "Colour depth: 16 bits · Support from version: PDF 1.5" in text
