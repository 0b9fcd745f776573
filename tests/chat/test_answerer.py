"""The offline answerer's reading of the passages (chat/answerer.py)."""

from __future__ import annotations

import pytest

from chat import answerer
from chat.llm import ExtractiveLLM, Prompt, Source
from tests.fakes import FakeEmbedder


@pytest.mark.parametrize(
    ("passage", "sentences"),
    [
        (
            "La peste, causada por Y. pestis, llegó en 1347. El Sr. Pérez la estudió en 1894.",
            ["La peste, causada por Y. pestis, llegó en 1347.", "El Sr. Pérez la estudió en 1894."],
        ),
        (
            "O Sr. Silva chegou ao porto em 1990. A Dra. Costa ficou no art. 5 do contrato.",
            ["O Sr. Silva chegou ao porto em 1990.", "A Dra. Costa ficou no art. 5 do contrato."],
        ),
        (
            "Dr. Smith arrived in 1901, e.g. by ship. Mrs. Jones met him at St. Paul's wharf.",
            ["Dr. Smith arrived in 1901, e.g. by ship.", "Mrs. Jones met him at St. Paul's wharf."],
        ),
    ],
)
def test_sentences_are_not_cut_at_abbreviations(passage, sentences):
    # The old answerer's bare regex quoted "pestis asociados…" after cutting at "Y.".
    assert [c.sentence for c in answerer.candidates([(1, passage)])] == sentences


def test_fragments_and_repeats_are_not_candidates():
    found = answerer.candidates(
        [(1, "Historia. La piscina abre a las ocho."), (2, "La piscina abre a las ocho.")]
    )
    assert [(c.sentence, c.number) for c in found] == [("La piscina abre a las ocho.", 1)]


def embed_by_table(table: dict[str, list[float]]):
    def embed_passages(texts):
        return [table[text] for text in texts]

    return embed_passages


def test_the_sentence_holding_what_is_asked_wins_a_tie_of_meaning():
    found = answerer.candidates(
        [(1, "La piscina es muy popular entre todos. La piscina cuenta con 300 inscritos.")]
    )
    scored = answerer.ranked(
        "¿Cuántos socios tiene la piscina?",
        found,
        embed_query=lambda text: [1.0, 0.0],
        embed_passages=lambda texts: [[1.0, 0.0]] * len(texts),  # the same meaning
    )
    assert scored[0][1].sentence == "La piscina cuenta con 300 inscritos."
    assert scored[0][0] - scored[1][0] == pytest.approx(answerer.WEIGHTS.asked)


def test_a_number_the_question_already_says_is_not_an_answer():
    found = answerer.candidates(
        [(1, "El bloque 3 tiene piscina propia. El bloque tiene 40 plazas.")]
    )
    asked = answerer._asked_scores("¿Cuántas plazas tiene el bloque 3?", found)
    assert asked == [0.0, 1.0]


def test_meaning_finds_a_sentence_worded_unlike_the_question():
    sentences = ["El inventor falleció en 1943.", "Tesla vivía en un hotel de Nueva York."]
    vectors = {sentences[0]: [0.9, 0.1], sentences[1]: [0.1, 0.9]}
    scored = answerer.ranked(
        "¿Cuándo murió Tesla?",
        answerer.candidates([(1, " ".join(sentences))]),
        embed_query=lambda text: [1.0, 0.0],
        embed_passages=embed_by_table(vectors),
    )
    assert scored[0][1].sentence == sentences[0]


def test_the_answer_is_the_best_sentence_then_what_fits_in_the_budget():
    long = "palabra " * 50 + "final."
    found = [
        answerer.Candidate(text, 1, 0)
        for text in ("Primera frase del todo.", long, "Tercera frase corta aquí.")
    ]
    scored = [(3.0, found[0]), (2.0, found[1]), (1.0, found[2])]
    chosen = answerer.compose(scored, max_words=20)
    assert [c.sentence for c in chosen] == ["Primera frase del todo.", "Tercera frase corta aquí."]
    # The best sentence is said whatever its length.
    assert answerer.compose([(1.0, found[1])], max_words=20) == [found[1]]


def test_the_offline_answer_leads_with_the_best_sentence_each_cited(fake_embedder: FakeEmbedder):
    prompt = Prompt(
        system="",
        messages=[],
        question="¿Cuántas plazas tiene el garaje?",
        language="es",
        sources=[
            Source(
                1,
                "garaje.md",
                "",
                body="El garaje está en el sótano del edificio. Tiene 40 plazas numeradas.",
            ),
            Source(2, "normas.md", "", body="Las normas del garaje prohíben lavar coches."),
        ],
    )
    answer = "".join(ExtractiveLLM().stream(prompt))
    lines = answer.splitlines()
    assert lines[0].startswith("Modo sin conexión")
    quoted = [line for line in lines[1:] if line]
    assert all(line.startswith("«") and line.rstrip().endswith(("[1]", "[2]")) for line in quoted)
    assert len(" ".join(quoted).split()) <= answerer.MAX_WORDS + 6  # markers and quotes aside
