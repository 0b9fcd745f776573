"""Citations a reader can check: one per passage, told apart by their section, each with the
sentence of the passage the answer relied on, opening in the console at that passage."""

from __future__ import annotations

import pytest

from chat.extractive import ExtractiveLLM
from chat.services import chat_answer
from knowledge.models import Chunk
from licenses.principals import principal_for_license
from tests.factories import as_owner, make_document
from tests.fakes import SpyLLM

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]

HOURS = (
    "# Normas\n\n## Piscina\n\nLa piscina del condominio abre a las ocho. En invierno cierra "
    "los lunes.\n\n## Gimnasio\n\nEl gimnasio del condominio abre a las siete. Las toallas son "
    "obligatorias."
)


def ask(forged, question, llm):
    return chat_answer(principal=principal_for_license(forged.license), question=question, llm=llm)


class CitingLLM(SpyLLM):
    """Cites as a model does: each fact by the number of the passage that holds it."""

    def stream(self, prompt):
        def number(word):
            return next(s.number for s in prompt.sources if word in (s.body or s.text).lower())

        self.answer = (
            f"La piscina abre a las ocho [{number('piscina')}]; "
            f"el gimnasio, a las siete [{number('gimnasio')}]."
        )
        yield from super().stream(prompt)


def test_a_citation_carries_its_passage_its_section_and_the_sentence_the_answer_used(marta):
    make_document(HOURS, filename="normas.md", license=marta.license)
    llm = CitingLLM()
    answer = ask(marta, "¿A qué hora abren la piscina y el gimnasio del condominio?", llm)

    by_section = {c.section.removeprefix("Normas › "): c for c in answer.citations}
    assert set(by_section) >= {"Piscina", "Gimnasio"}  # one page, two passages told apart
    assert by_section["Piscina"].quote == "La piscina del condominio abre a las ocho."
    assert by_section["Gimnasio"].quote == "El gimnasio del condominio abre a las siete."
    assert by_section["Piscina"].quote in by_section["Piscina"].excerpt


def test_offline_quotes_are_the_sentences_it_quoted(marta):
    make_document(HOURS, filename="normas.md", license=marta.license)
    answer = ask(marta, "¿Qué días cierra la piscina en invierno?", ExtractiveLLM())

    first_quote = {}  # a source's first quoted sentence, by its number
    for line in answer.answer.splitlines():
        if "«" in line:
            first_quote.setdefault(int(line.rsplit("[", 1)[1].rstrip("]")), line[1:].split("»")[0])
    assert {c.number: c.quote for c in answer.citations} == first_quote
    assert all(c.quote in c.excerpt for c in answer.citations)


def test_the_quote_of_a_table_is_the_row_quoted(marta):
    """A sheet's rows have no full stop between them: the quote was every row of the passage,
    and not a piece of its text the console could mark."""
    rows = "Instalación: Gimnasio · Cierre: 22:00 horas\nInstalación: Sauna · Cierre: 21:00 horas"
    make_document(rows, filename="horarios.md", license=marta.license)
    answer = ask(marta, "¿A qué hora cierra la sauna?", ExtractiveLLM())

    assert answer.answer.startswith("«Instalación: Sauna · Cierre: 21:00 horas» [1]")
    assert answer.citations[0].quote == "Instalación: Sauna · Cierre: 21:00 horas"
    assert answer.citations[0].quote in answer.citations[0].excerpt


def test_the_console_opens_a_cited_passage_on_its_page_with_the_quote_marked(
    client, django_user_model
):
    as_owner(django_user_model.objects.create_user("owner", password="pw", is_staff=True))
    client.force_login(django_user_model.objects.get(username="owner"))
    sections = "\n\n".join(
        f"## Parte {n}\n\nEl artículo {n} dice que la regla {n} se cumple." for n in range(1, 80)
    )
    document = make_document(f"# Reglamento\n\n{sections}", filename="largo.md")
    chunk = Chunk.objects.filter(document=document).order_by("-ordinal").first()
    quote = chunk.content.split("\n")[-1]

    opened = client.get(f"/knowledge/chunks/{chunk.pk}/", {"quote": quote})
    assert opened.status_code == 302
    page_number = (
        Chunk.objects.filter(document=document, ordinal__lt=chunk.ordinal).count() // 50 + 1
    )
    assert f"page={page_number}" in opened.url and opened.url.endswith(f"#chunk-{chunk.pk}")
    html = client.get(opened.url).content.decode()
    assert (
        '<mark class="quote" id="quote">' in html
        and f'id="chunk-{chunk.pk}" class="chunk opened"' in html
    )

    gone = client.get(f"/knowledge/chunks/{chunk.pk + 10_000}/", follow=True)
    assert gone.redirect_chain[-1][0] == "/knowledge/"
    assert "no longer in the knowledge" in gone.content.decode()


def test_a_passage_read_again_since_it_was_cited_is_found_by_its_words(client, django_user_model):
    """A new version (or a web page's change) that changes a cited passage gives it a new
    chunk: a reviewer's citation link answered 404; now it searches for the quote where it
    was answered."""
    import io

    from knowledge import ingestion, reingestion
    from tests.factories import make_license

    as_owner(django_user_model.objects.create_user("owner", password="pw", is_staff=True))
    client.force_login(django_user_model.objects.get(username="owner"))
    sala = make_license(machine_id="sala-cita")
    document = make_document(HOURS, filename="normas.md", license=sala)
    cited = Chunk.objects.filter(document=document).first()
    quote = cited.content.split(". ")[0]
    changed = HOURS.replace("cierra los lunes", "cierra los martes")
    reingestion.document_new_version(
        document=document, file=io.BytesIO(changed.encode()), filename="normas.md", enqueue=False
    )
    ingestion.document_ingest(document_id=document.pk)
    assert not Chunk.objects.filter(pk=cited.pk).exists()

    opened = client.get(
        f"/knowledge/chunks/{cited.pk}/", {"quote": quote, "scope": "sala-cita"}, follow=True
    )

    assert opened.redirect_chain[-1][0].startswith("/knowledge/search/?query=")
    html = opened.content.decode()
    assert "Here is where its words are now" in html
    assert "normas.md" in html and "sala-cita" in html


def test_a_quote_cannot_inject_markup(client, django_user_model):
    as_owner(django_user_model.objects.create_user("owner", password="pw", is_staff=True))
    client.force_login(django_user_model.objects.get(username="owner"))
    document = make_document("# A\n\nUna frase <b>con</b> marcas.", filename="a.md")
    chunk = document.chunks.first()
    html = client.get(
        f"/knowledge/{document.pk}/", {"open": chunk.pk, "quote": "<b>con</b>"}
    ).content.decode()
    assert "<b>con</b>" not in html and "&lt;b&gt;con&lt;/b&gt;" in html


def test_a_slide_is_cited_by_its_number_and_title_and_named_so_to_the_model(marta):
    from tests.documents import build  # noqa: PLC0415 - builds Office files for this test only

    make_document(build("pptx"), filename="deck.pptx", license=marta.license)
    llm = SpyLLM("El código de descuento es PROMO42 [1].")
    answer = ask(marta, "¿Cuál es el código de descuento?", llm)

    assert answer.citations[0].section == "Slide 4: Planes y precios › Speaker notes"
    assert "deck.pptx — Slide 4: Planes y precios › Speaker notes" in llm.prompts[0].as_text()
