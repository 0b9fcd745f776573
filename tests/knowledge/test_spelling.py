"""knowledge.search.spelling: which words of a question are read as the passages spell them
(the scope's check, ``unknown``, is a fake here; tests/knowledge/test_word_shares.py runs
the real one)."""

from __future__ import annotations

from knowledge.search.spelling import respelt

PASSAGE = "La piscina abre todos los días de ocho a nueve; el gimnasio cierra los domingos."


def nothing_known(words: list[str]) -> set[str]:
    return set(words)


def test_a_typo_is_spelt_as_the_passage_spells_it():
    assert respelt("a que ora abre la piscna", [PASSAGE], nothing_known) == (
        "a que ora abre la piscina"
    )
    assert respelt("cuando cierra el gimansio", [PASSAGE], nothing_known) == (
        "cuando cierra el gimnasio"
    )


def test_accents_are_the_passage_s_and_a_word_it_holds_unaccented_is_left():
    assert respelt("que dias abre", ["Abre todos los días."], nothing_known) == "que dias abre"


def test_the_scope_is_asked_only_when_a_near_spelling_exists():
    asked: list[list[str]] = []

    def unknown(words: list[str]) -> set[str]:
        asked.append(words)
        return set(words)

    assert respelt("horario del comedor", [PASSAGE], unknown) == "horario del comedor"
    assert asked == []


def test_a_word_the_scope_holds_stays():
    assert respelt("cuando abre la piscna", [PASSAGE], lambda words: set()) == (
        "cuando abre la piscna"
    )


def test_short_words_another_first_letter_and_names_stay():
    assert respelt("abr la pisc", [PASSAGE], nothing_known) == "abr la pisc"
    assert respelt("la oiscina", [PASSAGE], nothing_known) == "la oiscina"
    assert respelt("¿Vive Piscna aquí?", [PASSAGE], nothing_known) == "¿Vive Piscna aquí?"
    # the first word is capitalised as any sentence's is: not taken for a name
    assert respelt("¿Piscna abierta?", [PASSAGE], nothing_known) == "¿piscina abierta?"


def test_a_question_word_is_never_respelt():
    """A music school's "¿Cuánto cuesta la clase de piano?" was searched as "¿canto cuesta
    la clase de piano?": no page holds the stopword "cuánto", and "canto" (singing) is
    spelt nearly alike."""
    passage = "Enseñamos piano, guitarra, violín, batería y canto."
    assert respelt("¿Cuánto cuesta el piano?", [passage], nothing_known) == (
        "¿Cuánto cuesta el piano?"
    )


def test_the_passage_s_word_comes_back_with_its_accents():
    passage = "La conserjería abre el sábado por la mañana."
    assert respelt("abre el sabdo", [passage], nothing_known) == "abre el sábado"
    assert respelt("Conserjeia abierta", [passage], nothing_known) == "conserjería abierta"


def test_a_long_query_has_its_first_words_respelt_only():
    """A 4,000-character query of near-misses cost ~0.1 s of comparisons."""
    asked: list[list[str]] = []

    def unknown(words: list[str]) -> set[str]:
        asked.append(words)
        return set(words)

    typos = {
        w[:i] + w[i + 1 :] for w in ("piscina", "gimnasio", "domingos") for i in (2, 3, 4, 5, 6)
    }
    query = " ".join(sorted(typos) * 30)
    assert len(typos) > 12
    respelt(query, [PASSAGE], unknown)
    assert len(asked) == 1 and len(asked[0]) == 12


def test_a_word_written_joined_is_read_as_the_passage_hyphenates_it():
    """A tour: "wifi" alone found the coworking's "Wi-Fi" page by meaning only, and its
    share of the question was 0 ("no information"): PostgreSQL keeps "wi-fi", never
    "wifi". Four letters are enough, as a compound's."""
    page = "Wi-Fi\nThe network is HarbourDesk-Members. Check your e-mail for the code."
    assert respelt("wifi", [page], nothing_known) == "wi-fi"
    assert respelt("wifi password", [page], nothing_known) == "wi-fi password"
    assert respelt("Qual o tamanho do email?", [page], nothing_known) == (
        "Qual o tamanho do e-mail?"
    )
    assert respelt("wifi", [page], lambda words: set()) == "wifi"  # the scope writes "wifi"
    assert respelt("wifi", ["The wifi is free."], nothing_known) == "wifi"
