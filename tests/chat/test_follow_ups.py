"""A short question that follows another ("¿cuánto cuesta?" after "¿y el gimnasio?") is
answered about what the earlier one named, not with "no information"."""

from __future__ import annotations

import html

import pytest

from chat.extractive import ExtractiveLLM
from chat.services import chat_answer
from chat.session import Session
from chat.texts import NO_INFORMATION
from conversations.models import Exchange
from conversations.services import exchange_search_again
from licenses.principals import principal_for_license
from tests.conftest import forget_prepared_statements
from tests.conversations.support import staff
from tests.factories import make_document, make_sample_handbook_license

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root")]


def asked(*texts: str) -> Session:
    return Session(id="s", turns=[{"role": "user", "text": text} for text in texts])


class TestWhatAShortQuestionFollows:
    def test_it_follows_the_previous_questions(self):
        session = asked("¿A qué hora abre la piscina?", "¿y el gimnasio?")
        assert session.followed("¿cuánto cuesta?") == (
            "¿A qué hora abre la piscina? ¿y el gimnasio? ¿cuánto cuesta?"
        )

    def test_back_to_the_last_question_that_said_more(self):
        session = asked("When does the gym open?", "How much is it?")
        assert session.followed("how much?") == "When does the gym open? How much is it? how much?"
        longer = asked("¿A qué hora abre el gimnasio los sábados?", "¿Y el salón de fiestas?")
        assert longer.followed("¿fianza?") == "¿Y el salón de fiestas? ¿fianza?"

    def test_three_earlier_questions_at_most(self):
        session = asked("¿Abre la piscina?", "¿y?", "¿y?", "¿y?", "¿y?")
        assert session.followed("¿cuándo?") == "¿y? ¿y? ¿y? ¿cuándo?"

    def test_a_question_that_says_enough_follows_nothing(self):
        session = asked("¿A qué hora abre la piscina?")
        assert session.followed("¿Cuánto cuesta la cuota mensual del gimnasio?") == ""
        assert asked().followed("¿cuánto cuesta?") == ""

    @pytest.mark.parametrize(
        "then",
        [
            "How much does it cost?",
            "until what time can they stay?",
            "¿y cuánto cuesta eso al mes?",
        ],
    )
    def test_a_longer_question_saying_it_or_they_follows_the_one_before(self, then):
        session = asked("When does the gym open?")
        assert session.followed(then) == f"When does the gym open? {then}"
        assert session.followed("How much does the monthly gym fee cost?") == ""


@pytest.fixture
def handbook():
    """The sample handbook, searched with the local model (the offline answerer's floor is
    calibrated on its similarities)."""
    yield principal_for_license(make_sample_handbook_license())
    forget_prepared_statements()


def ask(principal, question: str, session_id: str | None = None):
    return chat_answer(
        principal=principal, question=question, session_id=session_id, llm=ExtractiveLLM()
    )


@pytest.mark.parametrize(
    ("first", "then", "answer"),
    [
        (
            "¿A qué hora abre el gimnasio?",
            "¿cuánto cuesta?",
            "«La cuota mensual es de veinte euros.»",
        ),
        ("Quando abre a academia?", "quanto custa?", "«A mensalidade é de vinte euros.»"),
        ("¿Cómo reservo el salón de fiestas?", "¿y el precio?", "«La fianza es de cien euros"),
    ],
)
def test_a_follow_up_is_answered_about_what_the_question_before_named(
    handbook, first, then, answer
):
    """ "¿cuánto cuesta?" alone is "no information" or the first price found; after
    "¿A qué hora abre el gimnasio?", the gym's fee."""
    session_id = ask(handbook, first).session_id
    followed = ask(handbook, then, session_id)
    assert followed.answer.startswith(answer), followed.answer


def test_a_price_asked_of_what_the_question_before_named_is_its_own(handbook):
    """The pool has no price: "¿y cuánto cuesta eso?" after its hours quoted the gym's fee,
    the gym's page sharing "abre" with the two questions."""
    session_id = ask(handbook, "¿A qué hora abre la piscina?").session_id
    assert ask(handbook, "¿y cuánto cuesta eso?", session_id).answer == NO_INFORMATION["es"]


def test_a_question_saying_it_is_answered_about_what_the_one_before_named(handbook):
    """A tour: "How much does it cost?" after "When does the gym open?" was searched alone,
    five words being past a follow-up's four, and quoted a coworking's meeting-room
    price; "it" is the gym."""
    make_document(
        "Each member has eight hours of meeting-room time per month; extra hours cost 15 "
        "euros each.",
        filename="coworking.md",
        license=handbook.license,
    )
    session_id = ask(handbook, "When does the gym open?").session_id
    followed = ask(handbook, "How much does it cost?", session_id)
    assert followed.answer.startswith("«The monthly fee is twenty euros.»"), followed.answer


BAKERY_FAQ = (
    "# Preguntas frecuentes\n\n**¿Hacéis envíos a domicilio?**\nHacemos envíos dentro de "
    "Madrid capital; el envío cuesta cuatro euros.\n\n**¿Se puede pagar con tarjeta?**\n"
    "Sí, aceptamos tarjeta, Bizum y efectivo."
)
STAFF_POLICY = (
    "# Política de Recursos Humanos\n\n## Férias\nCada colaborador tem direito a 30 dias de "
    "férias por ano, que podem ser divididos em até três períodos. O pedido deve ser feito "
    "ao gestor com 45 dias de antecedência.\n\n## Uniforme\nO uniforme é fornecido pela "
    "empresa: duas camisetas e um avental por ano."
)


@pytest.fixture
def handbook_and_bakery():
    """A newcomer's tour: the sample handbook beside a bakery's FAQ and staff policy."""
    license = make_sample_handbook_license()
    make_document(BAKERY_FAQ, filename="faq.md", license=license)
    make_document(STAFF_POLICY, filename="politica-rh.md", license=license)
    yield principal_for_license(license)
    forget_prepared_statements()


@pytest.mark.parametrize(
    ("earlier", "then", "answer"),
    [
        # "cuesta" is the FAQ's delivery: the question alone named something a page holds
        (
            ["¿A qué hora abre la piscina?", "¿Y el gimnasio?"],
            "¿Cuánto cuesta?",
            "«La cuota mensual es de veinte euros.»",
        ),
        # alone it found the party room's "antecedência", and was "no information"
        (
            ["Quantos dias de férias eu tenho?"],
            "Com quanta antecedência peço?",
            "«O pedido deve ser feito ao gestor com 45 dias de antecedência.»",
        ),
        # a new subject, said in full, is answered about itself
        (["¿A qué hora abre la piscina?"], "¿Hacéis envíos?", "«**¿Hacéis envíos a domicilio?**"),
    ],
)
def test_a_follow_up_is_answered_about_the_conversation_when_another_page_shares_its_words(
    handbook_and_bakery, earlier, then, answer
):
    session_id = None
    for question in earlier:
        session_id = ask(handbook_and_bakery, question, session_id).session_id
    followed = ask(handbook_and_bakery, then, session_id)
    assert followed.answer.startswith(answer), followed.answer


def test_a_short_question_the_knowledge_does_not_answer_still_gets_no_information(handbook):
    session_id = ask(handbook, "¿A qué hora abre la piscina?").session_id
    answer = ask(handbook, "¿y el wifi?", session_id).answer
    assert answer == NO_INFORMATION["es"]


def test_a_follow_up_is_searched_again_as_the_chat_searched_it(handbook, django_user_model):
    """A reviewer's search again of "¿cuánto cuesta?" is of what the chat searched: the
    question after the one before it, not the two words alone."""
    session_id = ask(handbook, "¿A qué hora abre el gimnasio?").session_id
    followed = ask(handbook, "¿cuánto cuesta?", session_id)
    exchange = Exchange.objects.select_related("license").get(pk=followed.answer_id)
    again = exchange_search_again(exchange=exchange, actor="reviewer")
    assert again.query == "¿A qué hora abre el gimnasio? ¿cuánto cuesta?"
    assert "veinte euros" in again.results[0].content
    page = staff(django_user_model, "support").get(f"/conversations/answers/{exchange.pk}/search")
    assert "Searched for «¿A qué hora abre el gimnasio? ¿cuánto cuesta?»: a follow-up" in (
        html.unescape(page.content.decode())
    )
