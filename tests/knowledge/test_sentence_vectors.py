"""Sentence vectors: the second embedding pass and how the search mixes them in."""

from __future__ import annotations

import numpy as np
import pytest

from knowledge import forgetting, ingestion
from knowledge.chunking import embedding_text, is_table_row, sentence_groups
from knowledge.models import Document, Embedding, SentenceEmbedding
from knowledge.search import search, sentence_vectors
from knowledge.search.types import SearchOptions
from licenses.principals import principal_for_license
from tests.factories import make_document, make_license
from tests.fakes import hashed_vector

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root")]

REGLAMENTO = (
    "# Reglamento\n\n"
    "La piscina del condominio abre de ocho a veinte horas todos los días del año. "
    "Las mascotas pueden pasear por los jardines siempre con correa y con su dueño. "
    "El salón de fiestas se reserva en la administración con una semana de antelación."
)
LONG_TEXT = "\n\n".join(
    f"Artículo {n}. La zona común {n} abre de ocho a veinte horas. Se reserva con antelación "
    f"en la administración. El aforo máximo del espacio {n} es de veinte personas."
    for n in range(120)
)
GROUPS = [
    "La piscina del condominio abre de ocho a veinte horas todos los días del año.",
    "Las mascotas pueden pasear por los jardines siempre con correa y con su dueño.",
    "El salón de fiestas se reserva en la administración con una semana de antelación.",
]


class TestSentenceGroups:
    def test_each_sentence_is_a_group(self):
        assert sentence_groups(" ".join(GROUPS)) == GROUPS

    def test_short_sentences_join_the_next_and_a_short_tail_the_last(self):
        text = "Ver tabla. " + GROUPS[0] + " " + GROUPS[1] + " Fin del texto."
        assert sentence_groups(text) == [
            "Ver tabla. " + GROUPS[0],
            GROUPS[1] + " Fin del texto.",
        ]

    def test_a_single_group_needs_no_vectors_of_its_own(self):
        assert sentence_groups(GROUPS[0]) == []
        assert sentence_groups("Hola. Adiós.") == []

    def test_abbreviations_do_not_end_a_sentence(self):
        text = (
            "Según el art. 5 del reglamento interno, la piscina abre a las ocho horas. " + GROUPS[1]
        )
        assert sentence_groups(text) == [
            "Según el art. 5 del reglamento interno, la piscina abre a las ocho horas.",
            GROUPS[1],
        ]

    def test_a_line_break_ends_a_sentence(self):
        """A list item or a paragraph without a full stop ends at its line."""
        items = [
            "- La piscina abre de ocho a veinte horas todos los días",
            "- Las mascotas pasean por los jardines siempre con correa",
        ]
        assert sentence_groups("\n".join(items)) == items

    def test_each_row_of_a_table_is_a_group_however_short(self):
        """A newcomer's tour: a sheet's rows have no full stop and made one group, so "¿A qué
        hora cierra la sauna?" weighed the gym's row as much as the sauna's."""
        rows = [
            "Instalación: Gimnasio · Apertura: 07:00 · Cierre: 22:00",
            "Instalación: Sauna · Cierre: 21:00",
            "Instalación: Pádel · Notas: reservar en recepción",
        ]
        assert sentence_groups("\n".join(rows)) == rows
        assert sentence_groups("Horarios de verano\n" + "\n".join(rows)) == [
            "Horarios de verano " + rows[0],
            *rows[1:],
        ]

    def test_a_line_holding_a_colon_and_a_middle_dot_in_prose_is_not_a_row(self):
        assert not is_table_row("Nota: el club · como cada año · cierra en agosto")
        assert is_table_row("Nota: cierra en agosto · Precio: 12")
        assert not is_table_row("Horario · de ocho a veinte")


def without_sentences():
    """Embeddings the pass has not reached (counted independently of the code under test)."""
    return Embedding.objects.filter(sentences__isnull=True).count()


class EmbedderClock:
    """``time`` for the sentence pass: the embedder's work is the clock, each text it has
    embedded a simulated ``seconds_per_text``."""

    def __init__(self, embedder, *, seconds_per_text):
        self.embedder = embedder
        self.seconds_per_text = seconds_per_text

    def monotonic(self):
        return len(self.embedder.passages) * self.seconds_per_text


def stored_vectors(embedding):
    return [np.array(s.vector) for s in embedding.sentences.order_by("pk")]


class TestTheSentencePass:
    def test_each_group_is_embedded_with_the_chunks_heading(self, fake_embedder):
        document = make_document(REGLAMENTO, filename="reglamento.md")

        embedding = Embedding.objects.get(chunk__document=document)
        assert embedding.sentences.count() == 3
        for stored, group in zip(stored_vectors(embedding), GROUPS, strict=True):
            expected = hashed_vector(embedding_text("Reglamento", group), 384)
            assert stored == pytest.approx(expected, abs=1e-3)  # half precision

    def test_a_one_sentence_chunk_keeps_its_own_vector_without_embedding_again(self, fake_embedder):
        document = make_document("# Nota\n\n" + GROUPS[0], filename="nota.md", ingest=False)
        ingestion.document_ingest(document_id=document.pk)
        calls = fake_embedder.calls

        assert sentence_vectors.document_embed_sentences(document_id=document.pk) == 0
        embedding = Embedding.objects.get(chunk__document=document)
        assert stored_vectors(embedding) == [pytest.approx(np.array(embedding.vector))]
        assert fake_embedder.calls == calls

    def test_a_second_pass_writes_nothing(self, fake_embedder):
        document = make_document(REGLAMENTO, filename="reglamento.md")
        calls = fake_embedder.calls

        assert sentence_vectors.document_embed_sentences(document_id=document.pk) == 0
        assert SentenceEmbedding.objects.count() == 3
        assert fake_embedder.calls == calls

    def test_a_document_forgotten_meanwhile_gets_nothing_written(self, fake_embedder):
        document = make_document(REGLAMENTO, filename="reglamento.md", ingest=False)
        ingestion.document_ingest(document_id=document.pk)
        batch = list(Embedding.objects.select_related("chunk"))
        forgetting.document_forget(document=document)

        assert sentence_vectors._embed_batch(batch, fake_embedder) == 0
        assert not SentenceEmbedding.objects.exists()

    def test_the_catch_up_takes_what_is_left_a_bounded_batch_at_a_time(self, fake_embedder):
        for n in range(3):
            make_document(REGLAMENTO + f" Edificio {n}.", filename=f"r{n}.md", ingest=False)
        for document in Document.objects.all():
            ingestion.document_ingest(document_id=document.pk)
        assert without_sentences() == 3

        assert sentence_vectors.sentences_embed_missing(limit=2) == 6
        assert without_sentences() == 1
        assert sentence_vectors.sentences_embed_missing() == 3
        assert without_sentences() == 0

    def test_the_catch_up_starts_where_it_last_found_work_until_the_mark_expires(
        self, fake_embedder
    ):
        from django.core.cache import cache

        old = make_document(REGLAMENTO, filename="viejo.md")
        make_document(REGLAMENTO + " Anexo.", filename="nuevo.md", ingest=False)
        newer = Document.objects.get(filename="nuevo.md")
        ingestion.document_ingest(document_id=newer.pk)
        # A gap below the mark the next catch-up leaves (a row that lost its vectors).
        SentenceEmbedding.objects.filter(embedding__chunk__document=old).delete()
        key = sentence_vectors._caught_up_key(fake_embedder.model)
        first_new = Embedding.objects.get(chunk__document=newer).pk
        cache.set(key, first_new)

        assert sentence_vectors.sentences_embed_missing() == 3  # the newer one only
        assert without_sentences() == 1
        assert cache.get(key) == first_new + 1  # caught up: one past the last embedding
        assert sentence_vectors.sentences_embed_missing() == 0

        cache.delete(key)  # the mark expired
        assert sentence_vectors.sentences_embed_missing() == 3
        assert without_sentences() == 0

    def test_a_timed_run_sizes_its_batches_to_end_by_its_time(
        self, fake_embedder, settings, monkeypatch
    ):
        """On a busy machine a whole first batch (here 8 chunks, seconds of simulated
        embedding) overran the task's soft time limit: the run was killed with the
        continuation it would have queued. Now a run ends past its time by less than one
        chunk's groups."""
        settings.EMBEDDING_BATCH_SIZE = 4
        document = make_document(LONG_TEXT, filename="largo.txt", ingest=False)
        ingestion.document_ingest(document_id=document.pk)
        chunks = Embedding.objects.filter(chunk__document=document).select_related("chunk")
        assert chunks.count() > sentence_vectors.batch_embeddings()
        most_groups = max(len(sentence_groups(e.chunk.content)) for e in chunks)
        clock = EmbedderClock(fake_embedder, seconds_per_text=0.1)
        monkeypatch.setattr(sentence_vectors, "time", clock)

        overruns = []
        while sentence_vectors.document_sentences_left(document_id=document.pk):
            started = clock.monotonic()
            assert sentence_vectors.document_embed_sentences(document_id=document.pk, seconds=1)
            overruns.append(clock.monotonic() - started - 1)

        assert without_sentences() == 0
        assert max(overruns) < most_groups * 0.1
        assert len(overruns) > 4

    def test_weight_zero_turns_the_pass_off(self, fake_embedder, settings):
        settings.SEARCH_SENTENCE_VECTORS = False
        document = make_document(REGLAMENTO, filename="reglamento.md")

        assert not SentenceEmbedding.objects.filter(embedding__chunk__document=document).exists()
        assert sentence_vectors.sentences_embed_missing() == 0


def cosine(a, b):
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.mark.usefixtures("semantic_plan")
class TestTheSearchMixesTheBestSentenceIn:
    QUERY = "mascotas con correa en los jardines"

    def semantic(self, license, query=QUERY):
        response = search(
            principal=principal_for_license(license),
            query=query,
            options=SearchOptions(strategy="vector", min_score=0.0),
        )
        return response.results[0]

    def test_the_semantic_score_is_the_chunk_and_its_best_sentence_weighted(
        self, fake_embedder, settings
    ):
        license = make_license(machine_id="alpha")
        make_document(REGLAMENTO, filename="reglamento.md", license=license)
        query = np.array(hashed_vector(self.QUERY, 384))
        best = max(
            cosine(query, hashed_vector(embedding_text("Reglamento", g), 384)) for g in GROUPS
        )

        result = self.semantic(license)

        w = settings.SEARCH_SENTENCE_WEIGHT
        assert result.sentence_score == pytest.approx(best, abs=2e-3)
        assert best > result.vector_score  # the sentence matches better than the chunk
        assert result.fused_score == pytest.approx(
            (1 - w) * result.vector_score + w * best, abs=2e-3
        )

    def test_the_threshold_reads_the_semantic_score(self, fake_embedder):
        """A chunk of several topics (an FAQ of four questions) is less like the question
        than its one sentence that answers it: "Are pets allowed?" scored 0.818 on the
        chunk, under the 0.82 floor, 0.860 on the pets answer, and nothing passed."""
        license = make_license(machine_id="alpha")
        make_document(REGLAMENTO, filename="reglamento.md", license=license)
        found = self.semantic(license)
        between = (found.vector_score + found.semantic_score) / 2

        response = search(
            principal=principal_for_license(license),
            query=self.QUERY,
            options=SearchOptions(strategy="vector", min_score=between),
        )

        assert [r.chunk_id for r in response.results] == [found.chunk_id]
        assert found.vector_score < between < found.semantic_score

    def test_without_sentence_vectors_the_chunks_own_score_stands(self, fake_embedder, settings):
        license = make_license(machine_id="alpha")
        settings.SEARCH_SENTENCE_VECTORS = False  # nothing embedded, nothing mixed
        make_document(REGLAMENTO, filename="reglamento.md", license=license)

        result = self.semantic(license)

        assert result.fused_score == pytest.approx(result.vector_score, abs=1e-6)
        assert result.sentence_score is None

    def test_the_sentence_lifts_the_chunk_that_says_it_in_one_sentence(self, fake_embedder):
        license = make_license(machine_id="alpha")
        make_document(REGLAMENTO, filename="reglamento.md", license=license)
        # Shares as many words with the question, spread over one long sentence.
        make_document(
            "# Jardines\n\nEn los jardines hay bancos, fuentes, árboles frutales, flores de "
            "temporada y caminos de piedra; las mascotas, los niños y la correa del portón "
            "aparecen en otras normas del condominio.",
            filename="jardines.md",
            license=license,
        )

        assert self.semantic(license).filename == "reglamento.md"

    def test_another_licenses_sentences_are_never_read(self, fake_embedder):
        alpha, beta = make_license(machine_id="alpha"), make_license(machine_id="beta")
        make_document(REGLAMENTO, filename="beta.md", license=beta)
        make_document("# Nota\n\nLos jardines cierran a las diez.", filename="a.md", license=alpha)

        response = search(
            principal=principal_for_license(alpha),
            query=self.QUERY,
            options=SearchOptions(strategy="vector", min_score=0.0),
        )

        assert [r.filename for r in response.results] == ["a.md"]


def test_a_broker_refusing_the_sentence_task_leaves_the_document_ready(
    fake_embedder, monkeypatch, caplog
):
    from knowledge import tasks

    document = make_document(REGLAMENTO, filename="reglamento.md", ingest=False)

    def broker_down(*args, **kwargs):
        raise ConnectionError("Error 111 connecting to redis")

    monkeypatch.setattr(tasks.document_sentences_task, "apply_async", broker_down)
    status = tasks.document_ingest_task(str(document.pk))  # run here, as the worker would

    assert status == "ready"
    assert Document.objects.get(pk=document.pk).status == "ready"
    assert Embedding.objects.filter(chunk__document=document).count() == 1
    assert "the catch-up will do it" in caplog.text
    assert sentence_vectors.sentences_embed_missing() == 3  # and the catch-up does


@pytest.mark.django_db(transaction=True)  # two transactions at once, each its own connection
def test_forgetting_a_document_while_its_sentence_pass_commits_fails_neither(fake_embedder):
    """The fresh-clone run of 2026-11-28 caught it: the admin forgot a PDF while the worker
    was writing its sentence vectors, and the forgetting failed at commit (500) with rows
    left pointing at a deleted embedding."""
    import threading

    from django.db import connection, transaction

    document = make_document(REGLAMENTO, filename="reglamento.md", ingest=False)
    ingestion.document_ingest(document_id=document.pk)
    embedding = Embedding.objects.get(chunk__document=document)
    written, release = threading.Event(), threading.Event()
    outcome: dict[str, object] = {}

    def sentence_pass() -> None:  # what _embed_batch does, held open before its commit
        try:
            with transaction.atomic():
                list(Embedding.objects.select_for_update().filter(pk=embedding.pk))
                SentenceEmbedding.objects.create(embedding=embedding, vector=embedding.vector)
                written.set()
                release.wait(10)
        finally:
            connection.close()

    def forget() -> None:
        try:
            forgetting.document_forget(document=Document.objects.get(pk=document.pk))
            outcome["forgotten"] = True
        except Exception as exc:  # noqa: BLE001 - the failure is what the test reports
            outcome["error"] = exc
        finally:
            connection.close()

    writer = threading.Thread(target=sentence_pass)
    writer.start()
    assert written.wait(10)
    forgetter = threading.Thread(target=forget)
    forgetter.start()
    forgetter.join(0.5)  # it waits for the pass's lock…
    release.set()  # …which commits now
    writer.join(10)
    forgetter.join(10)
    assert outcome == {"forgotten": True}
    assert not Document.objects.filter(pk=document.pk).exists()
    assert not SentenceEmbedding.objects.exists() and not Embedding.objects.exists()
