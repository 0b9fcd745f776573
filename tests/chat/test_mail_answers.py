"""Offline answers from e-mail messages: who sent a notice is in its first paragraph
("From: Ana <[EMAIL]> · To: …"), which shares no word with "¿Quién envió el aviso…?" (a
newcomer's tour quoted the notice's text instead)."""

from __future__ import annotations

from email.message import EmailMessage

import pytest

from chat.extractive import ExtractiveLLM
from chat.services import chat_answer
from licenses.principals import principal_for_license
from tests.conftest import forget_prepared_statements
from tests.factories import make_document, make_license

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root")]


def message(subject: str, sender: str, text: str) -> bytes:
    built = EmailMessage()
    built["Subject"] = subject
    built["From"] = sender
    built["To"] = "vecinos@example.org"
    built["Date"] = "Fri, 27 Nov 2026 09:30:00 +0000"
    built.set_content(text)
    return bytes(built)


def notices_license():
    """A building's notices: two e-mails from different senders, and a page of hours."""
    license = make_license()
    make_document(
        "La piscina abre de 7:00 a 21:00. El gimnasio cierra los domingos.",
        filename="horarios.txt",
        license=license,
    )
    water = message(
        "Aviso: corte de agua el jueves",
        "Ana Prado <ana@example.org>",
        "El jueves no habrá agua de 9:00 a 13:00 por obras en la calle.\n\n"
        "Disculpen las molestias.",
    )
    make_document(water, filename="agua.eml", license=license)
    boiler = message(
        "Revisión de la caldera",
        "Luis <luis@example.org>",
        "El técnico revisará la caldera del edificio el lunes por la mañana.",
    )
    make_document(boiler, filename="caldera.eml", license=license)
    return license


@pytest.fixture(autouse=True)
def local_model_statements():
    yield
    forget_prepared_statements()  # the local model's search statement


def answer_to(license, question: str) -> str:
    principal = principal_for_license(license)
    return chat_answer(principal=principal, question=question, llm=ExtractiveLLM()).answer


@pytest.mark.parametrize(
    ("language", "asked", "sender"),
    [
        ("en", "¿Quién envió el aviso del corte de agua?", "«From: Ana Prado"),
        ("es", "¿Quién mandó el aviso del corte de agua?", "«De: Ana Prado"),
        ("es", "¿Quién escribió lo de la revisión de la caldera?", "«De: Luis"),
        ("pt-br", "Quem enviou o aviso do corte de água?", "«De: Ana Prado"),
        ("pt-br", "Quem mandou o aviso da revisão da caldeira?", "«De: Luis"),
        ("es", "¿Cuál es el remitente del aviso del corte de agua?", "«De: Ana Prado"),
        # in fewer words the e-mail is under the similarity floor: found by its words
        ("es", "¿Quién envió el aviso del agua?", "«De: Ana Prado"),
        ("es", "¿Quién mandó el aviso del agua?", "«De: Ana Prado"),
        ("en", "Who has sent the notice about the water cut?", "«From: Ana Prado"),
    ],
)
def test_who_sent_a_message_is_answered_by_its_sender(settings, language, asked, sender):
    settings.LANGUAGE_CODE = language  # the deployment's: it writes "From" or "De"
    assert answer_to(notices_license(), asked).startswith(sender)


def test_a_question_on_what_a_message_says_is_answered_by_its_text():
    answer = answer_to(notices_license(), "¿A qué hora vuelve el agua el jueves?")
    assert answer.startswith("«El jueves no habrá agua de 9:00 a 13:00"), answer


def test_who_is_asked_otherwise_is_not_answered_by_a_sender():
    """ "Who checks the boiler?" is the technician, not whoever sent the notice."""
    answer = answer_to(notices_license(), "¿Quién revisará la caldera?")
    assert answer.startswith("«El técnico revisará la caldera"), answer


def test_a_who_question_naming_a_remote_control_is_not_asking_for_a_sender():
    """Spanish "mando" is "sent" after "¿quién…?" ("¿quién mandó…?") and a remote control
    anywhere else: "¿Quién tiene el mando del garaje?" asks for its keeper."""
    license = notices_license()
    garage = message(
        "Mando del garaje",
        "Ana Prado <ana@example.org>",
        "Quien necesite un mando del garaje nuevo puede pedirlo en la conserjería.",
    )
    make_document(garage, filename="garaje.eml", license=license)
    make_document(
        "Normas del garaje. El conserje, Luis Pérez, guarda los mandos del garaje de repuesto.",
        filename="garaje.txt",
        license=license,
    )
    answer = answer_to(license, "¿Quién tiene el mando del garaje de repuesto?")
    assert answer.startswith("«El conserje, Luis Pérez"), answer
    assert "«From:" not in answer and "«De:" not in answer, answer


@pytest.mark.parametrize(
    ("first", "then", "sender"),
    [
        ("¿A qué hora vuelve el agua el jueves?", "¿Quién envió el correo?", "«De: Ana Prado"),
        ("¿Cuándo revisan la caldera?", "¿Y quién mandó el mensaje?", "«De: Luis"),
    ],
)
def test_who_sent_the_e_mail_is_asked_of_the_one_talked_about(settings, first, then, sender):
    """A tour over a hotel's e-mail: "¿Quién envió el correo?", after the breakfast's hours
    quoted from it, was "no information": "correo" is in no message's text."""
    settings.LANGUAGE_CODE = "es"
    principal = principal_for_license(notices_license())
    before = chat_answer(principal=principal, question=first, llm=ExtractiveLLM())
    answer = chat_answer(
        principal=principal, question=then, session_id=before.session_id, llm=ExtractiveLLM()
    ).answer
    assert answer.startswith(sender), answer
