"""One language detector for documents, passages and four-word questions alike."""

from __future__ import annotations

import pytest

from text.languages import detect_language


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("El reglamento de la piscina establece que los usuarios deben ducharse.", "es"),
        ("O regulamento da piscina diz que os moradores não podem levar vidro.", "pt"),
        ("The pool rules say that residents are not allowed to bring glass.", "en"),
        ("Los envíos a las islas Canarias tardan cinco días.", "es"),
        # Questions without their opening mark, as people type them on a phone.
        ("Cuantos puntos dejaron escapar en defensa los Panthers?", "es"),
        ("Como pode ser definido um sistema de informação?", "pt"),
        ("How long does shipping take?", "en"),
    ],
)
def test_the_three_languages_are_told_apart(text, language):
    assert detect_language(text) == language


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("vc sabe qnd abre a piscina?", "pt"),
        ("qnt custa o gym?", "pt"),
        ("sabes dnd esta el gimnasio?", "es"),
        ("xq no abre la piscina hoy", "es"),
    ],
)
def test_words_typed_on_a_phone_tell_their_language(text, language):
    assert detect_language(text) == language


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("¿Hay parking?", "es"),  # English by its n-grams
        ("Hay wifi?", "es"),
        ("¡Hay sauna!", "es"),
        ("Tem wifi?", "pt"),  # Polish by its n-grams
        ("Tem piscina?", "pt"),  # Latin
        ("Onde estaciono?", "pt"),  # Spanish
        ("to em casa, abre hj?", "pt"),  # Brazil's "tô", not English's "to"
        ("Where do I park?", "en"),
    ],
)
def test_a_short_question_s_own_words_tell_its_language(text, language):
    assert detect_language(text) == language


def test_words_of_two_languages_leave_it_to_the_n_grams():
    assert detect_language("Where is Casa del Sol?") == "en"


def test_who_asked_in_spanish_or_portuguese_weighs_against_a_roman_numeral():
    """FaQuAD's "Quem criou o Mark I?" was English: its "I" the one marker it held. Asked in
    English, it got English's lower floor over Portuguese passages (knowledge.search.types.
    ACROSS_ENGLISH_MARGIN)."""
    assert detect_language("Quem criou o Mark I?") == "pt"
    assert detect_language("¿Quién creó el Mark I?") == "es"
    assert detect_language("Who created the Mark I?") == "en"


def test_a_spanish_u_is_no_english_you():
    assert detect_language("siete u ocho personas en la piscina") == "es"


@pytest.mark.parametrize(
    "text",
    [
        "Einführung in die Geometrie und Topologie",
        "Das Schwimmbad ist samstags geöffnet",
        "Dove si trova la stazione?",
        "Het zwembad is open op zaterdag",
    ],
)
def test_another_language_is_none_of_ours(text):
    assert detect_language(text) is None


@pytest.mark.parametrize("text", ["piscina", "Lisboa", "", "   ", "12345"])
def test_too_little_to_tell_is_none(text):
    assert detect_language(text) is None


@pytest.mark.parametrize(
    ("text", "language"), [("Fale conosco: [PHONE]", "pt"), ("Contáctanos: [PHONE]", "es")]
)
def test_what_redaction_put_in_is_no_word_of_a_language(text, language):
    """ "[PHONE]" and "[EMAIL]" are English words in every language's text: a Portuguese
    contact line was "too little to tell" beside them."""
    assert detect_language(text) == language


def test_a_long_document_is_read_from_its_first_pages():
    page = "La piscina abre a las ocho de la mañana y cierra a las diez de la noche. "
    assert detect_language(page * 2000) == "es"


@pytest.mark.parametrize(
    ("text", "conversation", "language"),
    [
        ("Abre domingo?", "pt", "pt"),  # read alone as Spanish
        ("Abre domingo?", "es", "es"),
        ("¿Y el sábado?", "pt", "es"),  # not meant in Portuguese
        ("Cuánto cuesta?", "pt", "es"),
        ("Quanto custa?", "es", "pt"),
    ],
)
def test_a_conversation_s_language_keeps_a_short_question_that_could_be_in_it(
    text, conversation, language
):
    assert detect_language(text, leaning=conversation) == language
