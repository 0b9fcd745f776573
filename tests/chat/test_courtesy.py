"""A message of courtesy alone ("hola", "gracias!", "ok 👍") is answered in kind: it got "no
information" from the offline answerer and from a model alike (nothing passes the threshold
for "hola"), and was counted as a knowledge gap."""

from __future__ import annotations

import pytest

from chat.services import chat_answer
from conversations.models import Exchange
from knowledge.models import SearchLog
from licenses.principals import principal_for_license
from licenses.services import license_forge
from tests.factories import make_document
from tests.fakes import SpyLLM

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]


@pytest.fixture
def marta():
    license = license_forge(user_name="Marta", machine_id="sala").license
    make_document("La piscina abre a las ocho.", filename="piscina.md", license=license)
    return principal_for_license(license)


@pytest.mark.parametrize(
    ("message", "reply"),
    [
        ("hola", "Hola, Marta. Soy Savara. ¿En qué puedo ayudarte?"),
        ("Buenos días!", "Hola, Marta. Soy Savara. ¿En qué puedo ayudarte?"),
        ("holaaa ¿qué tal?", "Hola, Marta. Soy Savara. ¿En qué puedo ayudarte?"),
        ("¡Muchas gracias!", "¡De nada! Si tienes otra pregunta, aquí estoy."),
        ("obrigada!!", "De nada! Se tiver outra pergunta, estou aqui."),
        ("thanks a lot", "You're welcome! If you have another question, I'm here."),
        ("tchau", "Até logo!"),
        ("bye!", "Goodbye!"),
        ("ok", "De acuerdo. Si tienes otra pregunta, aquí estoy."),  # no telling: Spanish
    ],
)
def test_courtesy_is_answered_in_kind_without_a_search_or_a_gap(marta, message, reply):
    spy = SpyLLM()
    answer = chat_answer(principal=marta, question=message, llm=spy)

    assert answer.answer == reply and answer.citations == []
    assert spy.prompts == [] and not SearchLog.objects.exists()
    # nothing to review or rate, no gap: the widget shows no 👍 / 👎 without an answer id
    assert answer.answer_id == "" and not Exchange.objects.exists()


def test_ok_is_answered_in_the_conversation_s_language(marta):
    asked = "Que horas abre a piscina do condomínio?"
    session_id = chat_answer(principal=marta, question=asked).session_id
    answer = chat_answer(principal=marta, question="ok 👍", session_id=session_id)
    assert answer.answer == "Combinado. Se tiver outra pergunta, estou aqui."


@pytest.mark.parametrize(
    "question", ["hola, ¿a qué hora abre la piscina?", "ok, ¿y la piscina?", "gracias, ¿abre hoy?"]
)
def test_a_question_beside_the_courtesy_is_searched(marta, question):
    chat_answer(principal=marta, question=question)
    assert SearchLog.objects.count() == 1
