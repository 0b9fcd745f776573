"""Stems from the Snowball stemmers, in the text's language."""

from __future__ import annotations

import threading

from text.words import content_words, stem, words_to_match


def test_inflections_share_a_stem_in_their_language():
    assert stem("reservas", "es") == stem("reservar", "es")
    assert stem("informação", "pt") == stem("informações", "pt")
    assert stem("Sábados", "es") == stem("sábado", "es") == "sab"
    assert stem("opens", "en") == stem("opening", "en")


def test_a_word_in_no_known_language_is_only_folded():
    assert stem("Schwimmbäder", None) == "schwimmbader"


def test_content_words_leave_out_stopwords_and_question_words():
    assert content_words("¿A qué hora abre la piscina los sábados?", "es") == {
        "hor", "abre", "piscin", "sab",
    }  # fmt: skip
    assert content_words("Quantos alunos há em 2015?", "pt") == {"alun", "2015"}


def test_words_that_only_ask_to_be_told_are_left_out_of_word_matching():
    assert words_to_match("¿Qué dice el anexo firmado?") == "¿Qué el anexo firmado?"
    assert words_to_match("O que DIZ a norma?") == "O que a norma?"
    assert words_to_match("Explícame el reglamento") == "el reglamento"
    assert words_to_match("Tell me what the contract says") == "me the contract"
    assert content_words("¿De qué trata el anexo?", "es") == {"anex"}
    assert words_to_match("¿Cuánto cuesta la revisión?") == "¿ cuesta la revisión?"
    assert words_to_match("Quantos alunos há em 2015?") == "alunos há em 2015?"


def test_a_request_word_stays_when_it_is_all_there_is_or_quoted():
    assert words_to_match("¿Qué dice?") == "¿Qué dice?"
    assert words_to_match('el cartel "dice la verdad"') == 'el cartel "dice la verdad"'
    assert words_to_match("¿Cuál es?") == "¿Cuál es?"


def test_each_thread_stems_with_its_own_stemmer():
    results: list[str] = []

    def work():
        results.extend(stem("reservaciones", "es") for _ in range(2000))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert set(results) == {stem("reservaciones", "es")}
