"""Answers people can trust: their language, the sources they used (once each), and memory
commands answered for what they are."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from chat.extractive import ExtractiveLLM
from chat.language import accept_language_hints, answer_language
from chat.services import chat_answer
from chat.texts import NO_INFORMATION
from licenses.principals import principal_for_license
from memory.models import Memory
from memory.services import memory_consent_set
from tests.factories import make_document
from tests.fakes import SpyLLM
from tests.memory.support import ORIGIN, token_client
from text.languages import detect_language

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]


def widget_client(forged, user):
    forged.license.allowed_origins = [ORIGIN]
    forged.license.save()
    return token_client(forged.license, user)


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("Que horas abre a piscina aos sábados?", "pt"),
        ("Quando abre o ginásio?", "pt"),
        ("Tem estacionamento?", "pt"),
        ("Qual o horário da piscina?", "pt"),
        ("A qué hora abre la piscina?", "es"),
        ("What time is dinner served?", "en"),
        ("Is there parking?", "en"),
        ("¿A qué hora abre la piscina?", "es"),
        ("Hay estacionamiento?", "es"),
        ("Cuándo cierra el gimnasio?", "es"),
    ],
)
def test_short_questions_are_recognised(question, language):
    assert detect_language(question) == language


def test_an_ambiguous_question_follows_the_hints_in_order():
    assert detect_language("piscina") is None
    # Four words that Spanish and Portuguese nearly share: the detector leans Portuguese
    # (0.54 of the three's probability) but is not sure, so the hints decide.
    assert answer_language("Que horas abre a piscina?", ["pt"]) == "pt"
    assert answer_language("piscina", ["pt", "en"]) == "pt"
    assert answer_language("piscina", [None, *accept_language_hints("en-GB,en;q=0.9")]) == "en"
    assert answer_language("piscina", []) == "es"
    assert accept_language_hints("es;q=0.5, pt-BR, en;q=0.8") == ["pt-BR", "en", "es"]


def test_a_short_question_that_could_be_in_the_hint_s_language_is_in_it():
    """ "Abre domingo?" reads as Spanish (0.64 of the three); over a Portuguese vet's FAQ it
    was answered "La fuente está en portugués"."""
    assert answer_language("Abre domingo?", []) == "es"
    assert answer_language("Abre domingo?", [], found="pt") == "pt"
    assert answer_language("Abre domingo?", ["pt-BR"]) == "pt"
    # a question this long says its language: what was found does not lean it
    assert answer_language("Quanto custa a bicicleta elétrica por dia?", [], found="es") == "pt"
    # nor a question that could not be in it
    assert answer_language("¿Abrís el domingo?", [], found="pt") == "es"


@pytest.mark.parametrize(
    ("question", "offline", "nothing"),
    [
        ("Que horas abre a piscina aos sábados?", "Modo offline", "Não tenho informações"),
        ("When does the piscina abre?", "Offline mode", "I have no information"),
        ("¿A qué hora abre la piscina?", "Modo sin conexión", "No tengo información"),
    ],
)
def test_the_offline_answer_and_no_information_speak_the_question_s_language(
    marta, question, offline, nothing
):
    answer = chat_answer(
        principal=principal_for_license(marta.license), question=question, llm=ExtractiveLLM()
    )
    assert answer.answer.startswith("«") and answer.answer.splitlines()[-1].startswith(
        f"({offline}"
    )

    empty = chat_answer(
        principal=principal_for_license(marta.license),
        question=question.replace("piscina", "zxqv").replace("pool", "zxqv"),
        llm=ExtractiveLLM(),
    )
    assert empty.answer.startswith(nothing) and empty.citations == []


def test_the_widget_lang_decides_a_question_that_does_not(marta):
    client = widget_client(marta, "u1")
    body = client.post("/api/v1/chat", {"message": "zxqv", "lang": "pt"}, format="json").json()
    assert body["answer"] == NO_INFORMATION["pt"]
    body = client.post(
        "/api/v1/chat", {"message": "zxqv"}, format="json", HTTP_ACCEPT_LANGUAGE="en-US,en"
    ).json()
    assert body["answer"] == NO_INFORMATION["en"]


def test_citations_are_the_sources_used_renumbered_in_order_of_first_use(marta):
    make_document(
        "# Piscina\n\nLa piscina climatizada abre a las nueve.", filename="climatizada.md"
    )
    llm = SpyLLM("Abre a las ocho [2], pero la climatizada a las nueve [1]. Otra vez [2][9].")
    answer = chat_answer(
        principal=principal_for_license(marta.license), question="piscina abre", llm=llm
    )
    sources = llm.prompts[0].sources
    assert len(sources) >= 2
    assert answer.answer == (
        "Abre a las ocho [1], pero la climatizada a las nueve [2]. Otra vez [1]."
    )
    assert [(c.number, c.document) for c in answer.citations] == [
        (1, sources[1].label.split(",")[0].split(" — ")[0]),
        (2, sources[0].label.split(",")[0].split(" — ")[0]),
    ]


def test_a_marker_split_across_deltas_is_still_renumbered(marta):
    class Splitting(SpyLLM):
        def stream(self, prompt):
            self.prompts.append(prompt)
            yield from ["Abre a las ocho [", "1", "]. Fin [", "1]"]

    answer = chat_answer(
        principal=principal_for_license(marta.license), question="piscina abre", llm=Splitting()
    )
    assert answer.answer == "Abre a las ocho [1]. Fin [1]" and len(answer.citations) == 1


def test_bracketed_numbers_inside_a_quote_are_the_passage_s_own(marta):
    """A quoted passage's "[3]" (a paper's reference) or "[^1]" (a document's note) was
    read as a citation marker: renumbered into a source it is not, or dropped."""
    make_document(
        "# Socorrismo\n\nSegún el artículo [3] del reglamento, el socorrista vigila la piscina "
        "climatizada.[^1]",
        filename="reglamento.md",
    )
    offline = chat_answer(
        principal=principal_for_license(marta.license),
        question="¿Quién vigila la piscina climatizada?",
        llm=ExtractiveLLM(),
    )
    assert "Según el artículo [3] del reglamento, el socorrista vigila" in offline.answer
    assert "climatizada.[^1]» [1]" in offline.answer

    # A model's «…» are its own words: a marker inside them still cites.
    llm = SpyLLM("«El socorrista vigila [2]», y abre a las ocho [1].")
    answer = chat_answer(
        principal=principal_for_license(marta.license), question="piscina socorrista", llm=llm
    )
    assert answer.answer == "«El socorrista vigila [1]», y abre a las ocho [2]."
    assert [c.number for c in answer.citations] == [1, 2]


def test_one_file_in_global_and_in_a_license_is_one_source_and_the_license_s(marta):
    text = "# Comedor\n\nEl comedor sirve la cena de ocho a diez de la noche."
    make_document(text, filename="normas-global.md")
    make_document(text, filename="normas-sala.md", license=marta.license)
    make_document("# Lorem\n\nLorem ipsum dolor sit amet consectetur.", filename="lorem.md")

    out = StringIO()
    call_command(
        "chat",
        "¿A qué hora sirve la cena el comedor?",
        "--license",
        "sala-chat",
        "--json",
        stdout=out,
    )
    payload = json.loads(out.getvalue())
    documents = [c["document"] for c in payload["citations"]]

    assert documents and len(documents) == len({c["chunk_id"] for c in payload["citations"]})
    assert "normas-global.md" not in documents and "lorem.md" not in documents
    assert "normas-sala.md" in documents
    for citation in payload["citations"]:
        assert f"[{citation['number']}]" in payload["answer"]
    assert "Comedor" not in payload["answer"].split("»")[0][:8]


def test_remember_through_the_api_is_acknowledged_without_sources(marta):
    client = widget_client(marta, "ana")

    refused = client.post(
        "/api/v1/chat", {"message": "Recuerda que prefiero respuestas cortas."}, format="json"
    ).json()
    assert "Mis recuerdos" in refused["answer"] and refused["citations"] == []
    assert not Memory.objects.exists()

    memory_consent_set(license=marta.license, user_ref="ana", given=True, actor="user:ana")
    saved = client.post(
        "/api/v1/chat", {"message": "Recuerda que prefiero respuestas cortas."}, format="json"
    ).json()
    assert saved["answer"].startswith("Entendido, lo recordaré: «Prefiero respuestas cortas»")
    assert saved["citations"] == []
    listed = client.get("/api/v1/me/memories").json()["memories"]
    assert [m["description"] for m in listed] == ["Prefiero respuestas cortas"]

    health = client.post(
        "/api/v1/chat", {"message": "Remember that I have diabetes."}, format="json"
    ).json()
    assert health["answer"] == "I did not keep it: I cannot remember health data."
