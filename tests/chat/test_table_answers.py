"""Offline answers from the rows of a table: a spreadsheet's row, or a Word table's, answers
on its own (a newcomer's tour: "¿A qué hora cierra la sauna?" quoted the gym's row too, and
"Com quem falo sobre férias?" quoted two rows of leave days instead of whom to ask)."""

from __future__ import annotations

import io

import docx
import openpyxl
import pytest

from chat.extractive import ExtractiveLLM
from chat.services import chat_answer
from licenses.principals import principal_for_license
from tests.conftest import forget_prepared_statements
from tests.factories import make_document, make_license

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root")]


def price_list() -> bytes:
    book = openpyxl.Workbook()
    prices = book.active
    prices.title = "Tarifas 2026"
    prices.append(["Servicio", "Precio (€)", "Notas"])
    prices.append(["Alquiler de bicicleta (día)", 12, "Casco incluido"])
    prices.append(["Clase de pádel (1 h)", 25, "Reservar en recepción"])
    prices.append(["Lavandería (carga)", 6.5, "Fichas en conserjería"])
    prices.append(["Parking cubierto (mes)", 80, "Plazas limitadas"])
    hours = book.create_sheet("Horarios")
    hours.append(["Instalación", "Apertura", "Cierre"])
    hours.append(["Gimnasio", "07:00", "22:00"])
    hours.append(["Sauna", "10:00", "21:00"])
    data = io.BytesIO()
    book.save(data)
    return data.getvalue()


def leave_policy() -> bytes:
    document = docx.Document()
    document.add_heading("Política de férias e ausências", 0)
    document.add_paragraph(
        "Cada colaborador tem direito a 22 dias úteis de férias por ano. O pedido deve ser "
        "feito no portal de RH com pelo menos 30 dias de antecedência."
    )
    document.add_heading("Licença médica", 1)
    document.add_paragraph(
        "Em caso de doença, avise o seu gestor antes das 10h e envie o atestado em até 48 horas."
    )
    table = document.add_table(rows=3, cols=2)
    for row, cells in zip(
        table.rows,
        [("Tipo de ausência", "Dias por ano"), ("Casamento", "15 dias"),
         ("Falecimento de familiar", "5 dias")],
        strict=True,
    ):  # fmt: skip
        for cell, text in zip(row.cells, cells, strict=True):
            cell.text = text
    document.add_paragraph("Dúvidas: fale com a Joana Ribeiro, do RH, pelo ramal 2231.")
    data = io.BytesIO()
    document.save(data)
    return data.getvalue()


@pytest.fixture
def office():
    """One license holding both, embedded with the local model (the answerer's scores are
    calibrated on its similarities), sentence vectors included."""
    license = make_license()
    make_document(price_list(), filename="tarifas.xlsx", license=license)
    make_document(leave_policy(), filename="ferias.docx", license=license)
    yield principal_for_license(license)
    forget_prepared_statements()


def answer(principal, question: str) -> str:
    return chat_answer(principal=principal, question=question, llm=ExtractiveLLM()).answer


def test_a_row_asked_about_is_quoted_without_its_neighbours(office):
    said = answer(office, "¿A qué hora cierra la sauna?")
    assert said.startswith("«Instalación: Sauna · Apertura: 10:00 · Cierre: 21:00»"), said
    assert "Gimnasio" not in said
    said = answer(office, "¿Cuánto cuesta alquilar una bicicleta?")
    assert said.startswith("«Servicio: Alquiler de bicicleta (día) · Precio (€): 12"), said
    assert "pádel" not in said and "Lavandería" not in said


def test_a_question_asking_whom_quotes_the_line_naming_a_person_not_the_table_s_rows(office):
    said = answer(office, "Com quem falo sobre férias?")
    assert "«Dúvidas: fale com a Joana Ribeiro, do RH, pelo ramal 2231.»" in said, said
    assert "Casamento" not in said
