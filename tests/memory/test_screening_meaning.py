"""Memory screening read for its meaning (memory.screening.nearest_kind): an illness, a
conviction or a debt no word list names is refused, as the category it belongs to, while
the preferences and habits memories exist for are kept. Before it, 60% of a batch of such
phrasings written as an outside run would were kept (BENCHMARKS.md "Memory screening")."""

from __future__ import annotations

from unittest import mock

import pytest
from redis.exceptions import RedisError

from knowledge.embeddings import LocalE5
from memory import screening
from memory.models import Memory
from memory.screening import forbidden_category, nearest_kind
from memory.services import MemoryRejected
from tests.memory.support import ORIGIN, consent, propose, token_client

# No word list named these when they were written; each is its category's by meaning.
READ_FOR_MEANING = [
    ("I'm on sick leave", "health"),
    ("fiquei internado na clínica", "health"),
    ("I have kidney stones", "health"),
    ("I had my appendix removed", "health"),
    ("I have a conviction for assault", "sensitive"),
    ("me detuvo la policía", "sensitive"),
    ("me denunciaron por robo", "sensitive"),
    ("I'm being sued for fraud", "sensitive"),
    ("I owe the IRS money", "financial"),
    ("I have bad credit", "financial"),
    ("born 12.04.1978", "personal_data"),
]
KEPT = [
    "Prefiere que le envíen el acta de la junta por correo",
    "Reserva el salón para el cumpleaños de su hija",
    "Tem medo de altura e prefere o térreo",
    "Está estudando para um concurso",
    "Prefers the stairs to the lift",
    "Is training for a half marathon",
    "Le gusta cocinar para sus vecinos los domingos",
    "Prefiere respuestas con enlaces al reglamento",
]


@pytest.mark.parametrize(("text", "category"), READ_FOR_MEANING)
def test_what_no_word_list_names_is_refused_for_its_meaning(text, category):
    assert nearest_kind(text) == category
    assert forbidden_category(text) == category


@pytest.mark.parametrize("text", KEPT)
def test_preferences_and_habits_are_kept(text):
    assert nearest_kind(text) is None
    assert forbidden_category(text) is None


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("El usuario tiene cálculos renales", "health"),
        ("User was convicted of fraud", "sensitive"),
        ("O usuário tem dívidas com o banco", "financial"),
        ("Usuária faz hemodiálise três vezes por semana", "health"),
        ("El usuario va a misa los domingos", "sensitive"),
    ],
)
def test_what_a_proposer_writes_of_the_user_is_screened_alike(text, category):
    """Gemini proposes memories in the third person ("El usuario prefiere…")."""
    assert forbidden_category(text) == category


@pytest.mark.parametrize(
    "text", ["I h4ve k1dney st0nes", "t3ngo c4lculos r3nales", "I have k i d n e y stones"]
)
def test_the_meaning_is_read_past_what_hides_the_words(text):
    """Digits for letters and spaced letters hid the meaning from the model as from the
    lists: each reading of the text is read for its meaning too."""
    assert forbidden_category(text) == "health"


def test_each_sentence_is_judged_alone():
    """A preference beside it does not dilute what may not be kept."""
    text = "Prefiero respuestas cortas y en listas. I have kidney stones."
    assert forbidden_category(text) == "health"


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("Prefiero respuestas cortas porque tengo cálculos renales", "health"),
        ("Prefiere que no le llamen los jueves porque tiene juicio por robo", "sensitive"),
        ("I prefer mornings since I have kidney stones", "health"),
    ],
)
def test_the_reason_a_preference_gives_is_read_alone(text, category):
    """Read whole, the preference outweighed its reason: each was kept."""
    assert forbidden_category(text) == category


@pytest.mark.parametrize(
    "text",
    [
        "Prefiere las reservas por la mañana porque trabaja de tarde",
        "Prefere respostas curtas, pois lê no celular",
        "Prefiere que le escriban en español; entiende poco portugués",
    ],
)
def test_a_preference_with_an_ordinary_reason_is_kept(text):
    assert forbidden_category(text) is None


def test_the_examples_are_embedded_once_for_every_process():
    """Embedding them takes seconds: a second process reads them from the shared cache."""
    screening._examples.cache_clear()  # this process's copy may predate a flushed Redis
    first = screening._examples()
    screening._examples.cache_clear()
    with mock.patch.object(LocalE5, "embed_query", side_effect=AssertionError("embedded")):
        labels, vectors = screening._examples()
    assert (labels == first[0]).all() and vectors.shape == first[1].shape


def test_the_examples_are_embedded_again_when_the_cache_is_down():
    screening._examples.cache_clear()
    failing = mock.Mock(side_effect=RedisError("down"))
    with (
        mock.patch.object(screening.shared_cache, "get", failing),
        mock.patch.object(screening.shared_cache, "set", failing),
    ):
        labels, vectors = screening._examples()
    assert len(labels) == len(vectors) > 100
    assert nearest_kind("I have kidney stones") == "health"
    screening._examples.cache_clear()


@pytest.mark.django_db
@pytest.mark.usefixtures("fake_embedder")
def test_a_memory_read_for_its_meaning_is_refused_on_create_and_on_patch(license):
    consent(license)
    with pytest.raises(MemoryRejected) as refused:
        propose(license, "I have a conviction for assault")
    assert refused.value.code == "sensitive"
    kept = propose(license, "Prefiero respuestas cortas")
    license.allowed_origins = [ORIGIN]
    license.save()
    response = token_client(license, "ana").patch(
        f"/api/v1/me/memories/{kept.pk}", {"description": "I owe the IRS money"}, format="json"
    )
    assert response.status_code == 400
    kept.refresh_from_db()
    assert kept.description == "Prefiero respuestas cortas"
    assert Memory.objects.count() == 1


# A second outside batch (BENCHMARKS.md "Memory screening", held out 2 and 3): the word
# "hospital" or "farmacia" refused a nurse's job, while orientation told in a sentence and
# blood pressure in everyday words were kept.
HEALTH_WORK_AND_PLACES = [
    "Trabalha como enfermeira no hospital",
    "Trabaja en el hospital de noche",
    "Es enfermera de quirófano",
    "Works as a pharmacist",
    "Pregunta a menudo por la farmacia más cercana",
    "Pergunta sempre pelo horário da farmácia",
    "Volunteers at the blood drive",
    # the last note's leftovers (2026-12-02, twenty-ninth): "as" read as "because" cut
    # "Works as a paramedic" into "a paramedic", read alone as health
    "Is a paramedic",
    "Works as a paramedic",
    "Works as a dental nurse",
]
A_STAY_IN_HOSPITAL = [
    "Estuve ingresado en el hospital",
    "me dejaron ingresada tres días",
    "Fiquei três dias no hospital",
    "I was in hospital for a week",
    "I was hospitalised in May",
]
TOLD_IN_A_SENTENCE = [
    ("tengo la tensión por las nubes", "health"),
    ("tenho pressão alta", "health"),
    ("I'm hard of hearing", "health"),
    ("estoy perdiendo oído", "health"),
    ("me gustan los hombres", "sensitive"),
    ("mi pareja es otro hombre", "sensitive"),
    ("estoy casada con una mujer", "sensitive"),
    ("tengo novio y soy chico", "sensitive"),
    ("I'm into women", "sensitive"),
    ("A usuária gosta de mulheres", "sensitive"),
    ("Al usuario le gustan los hombres", "sensitive"),
    ("eu namoro uma mulher e também sou mulher", "sensitive"),
    ("vou ao culto todo domingo", "sensitive"),
    ("celebra su bautismo", "sensitive"),
    ("voto sempre no PSDB", "sensitive"),
    ("tengo la condicional", "sensitive"),
    ("faço fisioterapia", "health"),
    ("tengo piedras en el riñón", "health"),
    ("tenho nome no SPC", "financial"),
    ("tengo un embargo", "financial"),
    ("tengo 17 años", "personal_data"),
    ("quebrei o braço", "health"),
    ("me quitaron la vesícula en junio", "health"),
    ("tenho pedra nos rins", "health"),
    ("I'm 34 years old", "personal_data"),
    ("I turn 40 in May", "personal_data"),
    # the last note's leftovers: eyesight told as a difficulty, misspellings no sound
    # reaches, an age the proposer writes without its subject (refused as health before)
    ("me cuesta ver de cerca", "health"),
    ("não consigo enxergar de longe", "health"),
    ("I struggle to read small print", "health"),
    ("tengo epilecsia", "health"),
    ("tenho bih", "health"),
    ("Turned 30 last week", "personal_data"),
    ("Cumplió 45 años en marzo", "personal_data"),
    ("Prefers the quiet room as loud noise triggers her panic attacks", "health"),
    # a sixth batch's kinds (tests/bench/screening.py held out 6: 0.800 at first run), in
    # other words
    ("Es de una comunidad quilombola", "sensitive"),
    ("Vive en España sin papeles", "sensitive"),
    ("É refugiada da Venezuela", "sensitive"),
    ("Salió de la cárcel el año pasado", "sensitive"),
    ("Uses his fingerprint to open the gym", "sensitive"),
    ("Mi hija va al colegio Santa Ana", "personal_data"),
    ("He lives at number 221, top floor", "personal_data"),
    ("Vivo en la planta 4 del edificio", "personal_data"),
]
KEPT_NEAR_THE_NEW_WORDS = [
    "Vive con su pareja y dos gatos",
    "Mora com a esposa e o filho",
    "Lives with his partner",
    "Sale con sus amigos los viernes",
    "I like women's football",
    "Sin embargo, prefiere las mañanas",
    "Tiene 3 años de experiencia en ventas",
    "Tiene un hijo de 3 años",
    "Her lease is 2 years long",
    "I have 10 years of experience",
    "Trabaja como fisioterapeuta en una clínica",
    "Usa o bicicletário todo dia",
    "No puedo ver el horario en la web",
    "Can't see the gym hours on the app",
    "Turned the heating down to 20",
    "Completó 3 años de servicio",
    "Works in Bosnia and Herzegovina (BiH)",
    "Le gustan los documentales sobre cárceles",
    "Lee sobre la historia de la prisión de Alcatraz",
    "Enseña historia de las religiones en la universidad",
    "Studies criminal law",
    "Aparca en la planta 2 del garaje",
    "Prefere o bloco 3 para as visitas",
    "Asks whether the pool has a fingerprint reader",
]


@pytest.mark.parametrize("text", HEALTH_WORK_AND_PLACES)
def test_working_in_health_or_asking_for_a_pharmacy_is_kept(text):
    assert forbidden_category(text) is None


@pytest.mark.parametrize("text", A_STAY_IN_HOSPITAL)
def test_a_stay_in_hospital_is_health(text):
    assert forbidden_category(text) == "health"


@pytest.mark.parametrize(("text", "category"), TOLD_IN_A_SENTENCE)
def test_what_a_sentence_tells_without_the_category_s_word_is_refused(text, category):
    assert forbidden_category(text) == category


@pytest.mark.parametrize("text", KEPT_NEAR_THE_NEW_WORDS)
def test_a_partner_a_liking_or_a_length_of_service_is_kept(text):
    assert forbidden_category(text) is None
