"""One conformance suite for every vector backend (knowledge/search/nearest.py): pgvector,
and Vertex AI Vector Search through its local fake (tests/fake_vertex.py), its vectors
written through the outbox (knowledge/vector_sync.py). Then what only a remote backend
faces: the network failing, and an engine that forgets to filter."""

from __future__ import annotations

import math
import time
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from knowledge import forgetting
from knowledge.models import Chunk, Document, Embedding, EmbeddingSpace, VectorErasure, VectorOutbox
from knowledge.reembedding import reembed
from knowledge.search import SearchOptions, caches_forget
from knowledge.search import search as engine_search
from knowledge.vector_sync import outbox_backlog, outbox_drain, outbox_enqueue_all
from licenses.principals import principal_for_admin, principal_for_license
from observability.metrics import VECTOR_BACKEND_FALLBACKS
from tests.factories import make_document, make_license
from tests.fakes import FakeEmbedder

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root")]

PISCINA = "# Piscina\n\nLa piscina del condominio abre de ocho a veinte horas todos los días."
MEDICACION = "# Botiquín\n\nLa medicación de primeros auxilios está en recepción del condominio."
GIMNASIO = "# Gimnasio\n\nEl gimnasio del condominio requiere reserva previa los fines de semana."
HORARIO_ALPHA = "# Piscina de la sala\n\nEn esta sala la piscina del condominio abre a las diez."


class Backend:
    """The backend under test, and how its copy of the vectors is brought up to date."""

    def __init__(self, name: str, fake=None) -> None:
        self.name, self.fake = name, fake

    def settle(self) -> None:
        """Send what the outbox holds; afterwards the engine holds exactly the table."""
        if self.fake is None:
            assert not VectorOutbox.objects.exists()  # pgvector's sessions write none
            return
        report = outbox_drain()
        assert not report.error, report.error
        assert set(self.fake.datapoints) == {
            str(pk) for pk in Embedding.objects.values_list("pk", flat=True)
        }

    def datapoints_of(self, document: Document) -> set[str]:
        ids = Embedding.objects.filter(chunk__document=document).values_list("pk", flat=True)
        return {str(pk) for pk in ids}


@pytest.fixture(params=["pgvector", "vertex", "vertex hybrid"])
def backend(request, fake_embedder, settings):
    if request.param.startswith("vertex"):
        fake = request.getfixturevalue("fake_vertex")
        if request.param == "vertex hybrid":  # dense + sparse, fused by Vertex's RRF
            settings.VERTEX_HYBRID_ALPHA = "0.5"
        return Backend(request.param, fake)
    return Backend("pgvector")


@pytest.fixture
def corpus(backend):
    alpha, beta = make_license(machine_id="alpha"), make_license(machine_id="beta")
    documents = {
        "piscina.md": make_document(PISCINA, filename="piscina.md"),
        "botiquin.md": make_document(MEDICACION, filename="botiquin.md", license=alpha),
        "gimnasio.md": make_document(GIMNASIO, filename="gimnasio.md", license=beta),
    }
    backend.settle()
    return alpha, beta, documents


def search(principal, query, **options):
    options.setdefault("min_score", -1)
    return engine_search(principal=principal, query=query, options=SearchOptions(**options))


def filenames(response) -> list[str]:
    return [r.filename for r in response.results]


class TestConformance:
    def test_a_license_sees_global_knowledge_and_its_own_never_anothers(self, corpus):
        alpha, beta, _ = corpus
        for query in ["condominio", "piscina", "gimnasio reserva", "medicación"]:
            assert "gimnasio.md" not in filenames(search(principal_for_license(alpha), query))
            assert "botiquin.md" not in filenames(search(principal_for_license(beta), query))
        assert set(filenames(search(principal_for_license(alpha), "condominio"))) == {
            "piscina.md",
            "botiquin.md",
        }

    def test_the_global_scope_sees_global_knowledge_only(self, corpus):
        as_global = principal_for_admin("root", license=None)
        assert filenames(search(as_global, "condominio")) == ["piscina.md"]

    def test_a_licenses_own_passage_comes_first_when_it_answers_best(self, corpus, backend):
        alpha, beta, _ = corpus
        make_document(HORARIO_ALPHA, filename="sala.md", license=alpha)
        backend.settle()
        found = filenames(search(principal_for_license(alpha), "en esta sala la piscina abre"))
        assert found[:2] == ["sala.md", "piscina.md"]
        assert "sala.md" not in filenames(search(principal_for_license(beta), "sala piscina"))

    def test_a_forgotten_document_is_gone_at_once_and_from_the_engine(self, corpus, backend):
        alpha, _, documents = corpus
        forgotten = documents["botiquin.md"]
        datapoints = backend.datapoints_of(forgotten)
        receipt = forgetting.document_forget(document=forgotten)
        # Before the engine hears of it: PostgreSQL's re-check already drops it.
        assert "botiquin.md" not in filenames(search(principal_for_license(alpha), "medicación"))
        backend.settle()
        assert "botiquin.md" not in filenames(search(principal_for_license(alpha), "medicación"))
        if backend.fake:
            assert not datapoints & set(backend.fake.datapoints)
            receipt.refresh_from_db()
            assert receipt.datapoints == len(datapoints) and receipt.confirmed_at is not None
        else:
            assert receipt is None

    def test_a_forgotten_chunk_is_gone(self, corpus, backend):
        alpha, _, documents = corpus
        chunk = Chunk.objects.get(document=documents["botiquin.md"])
        forgetting.chunk_forget(chunk=chunk)
        backend.settle()
        assert "botiquin.md" not in filenames(search(principal_for_license(alpha), "medicación"))

    def test_a_licenses_erased_knowledge_leaves_nothing_behind(self, corpus, backend):
        alpha, beta, documents = corpus
        gone = backend.datapoints_of(documents["gimnasio.md"])
        forgetting.documents_forget(documents=list(Document.objects.filter(license=beta)))
        backend.settle()
        if backend.fake:
            assert gone and not gone & set(backend.fake.datapoints)
        assert "gimnasio.md" not in filenames(search(principal_for_license(alpha), "gimnasio"))

    def test_a_new_model_version_takes_over_and_the_old_vectors_leave(
        self, corpus, backend, monkeypatch
    ):
        from knowledge import embeddings

        alpha, _, _ = corpus
        version_two = FakeEmbedder()
        version_two.model = "fake-hash-v2@384"
        monkeypatch.setitem(embeddings._providers, "v2", version_two)
        reembed(provider=version_two)
        caches_forget()
        backend.settle()
        assert EmbeddingSpace.objects.get(is_active=True).model == "fake-hash-v2@384"
        assert set(filenames(search(principal_for_license(alpha), "condominio"))) == {
            "piscina.md",
            "botiquin.md",
        }
        assert version_two.queries  # the question was embedded by the new version
        if backend.fake:
            models = {
                r["allowList"][0]
                for d in backend.fake.datapoints.values()
                for r in d["restricts"]
                if r["namespace"] == "model"
            }
            assert models == {"fake-hash-v2@384"}

    def test_the_threshold_cuts_what_is_not_similar_enough(self, corpus):
        alpha, _, _ = corpus
        principal = principal_for_license(alpha)
        everything = search(principal, "piscina horas", min_score=-1)
        strict = search(principal, "piscina horas", min_score=0.99)
        assert "piscina.md" in filenames(everything)
        assert filenames(strict) == ["piscina.md"]  # kept only by matching every word
        assert strict.cut_by_threshold >= 1

    def test_top_k_bounds_the_results(self, corpus):
        alpha, _, _ = corpus
        assert len(search(principal_for_license(alpha), "condominio", top_k=1).results) == 1
        assert len(search(principal_for_license(alpha), "condominio", top_k=5).results) == 2


# -- what only a remote backend faces ----------------------------------------------------------


@pytest.fixture
def vertex(fake_vertex):
    return Backend("vertex", fake_vertex)


def due_now() -> None:
    """Let the postponed changes' backoff pass."""
    VectorOutbox.objects.update(available_at=VectorOutbox.objects.first().created_at)


def test_the_engine_is_told_each_scope_and_each_query_allows_only_the_callers(vertex):
    alpha = make_license(machine_id="alpha")
    make_document(PISCINA, filename="piscina.md")
    own = make_document(MEDICACION, filename="botiquin.md", license=alpha)
    vertex.settle()
    scopes = {
        d["datapointId"]: next(r["allowList"] for r in d["restricts"] if r["namespace"] == "scope")
        for d in vertex.fake.datapoints.values()
    }
    assert {scopes[i][0] for i in vertex.datapoints_of(own)} == {f"license:{alpha.pk}"}
    assert sorted(set(map(tuple, scopes.values()))) == [("global",), (f"license:{alpha.pk}",)]

    search(principal_for_license(alpha), "medicación")
    call, body = [c for c in vertex.fake.calls if c[0] == "findNeighbors"][-1]
    restricts = body["queries"][0]["datapoint"]["restricts"]
    assert {"namespace": "scope", "allowList": ["global", f"license:{alpha.pk}"]} in restricts
    assert {"namespace": "model", "allowList": ["fake-hash@384"]} in restricts


def test_hybrid_queries_send_each_chunks_words_and_the_questions_with_rrf(vertex, settings):
    from knowledge.search.sparse import lexeme_dimension

    settings.VERTEX_HYBRID_ALPHA = "0.7"
    make_document(PISCINA, filename="piscina.md")
    vertex.settle()
    [datapoint] = vertex.fake.datapoints.values()
    stored = dict(zip(map(int, datapoint["sparseEmbedding"]["dimensions"]),
                      datapoint["sparseEmbedding"]["values"], strict=True))  # fmt: skip
    # Spanish stems: "piscina" twice (heading and text), "condominio" once.
    assert stored[lexeme_dimension("piscin")] == pytest.approx(1 + math.log(2))
    assert stored[lexeme_dimension("condomini")] == 1.0

    found = search(principal_for_admin("root", license=None), "¿Abre la piscina?")
    assert filenames(found) == ["piscina.md"]
    _, body = [c for c in vertex.fake.calls if c[0] == "findNeighbors"][-1]
    query = body["queries"][0]
    assert query["rrf"] == {"alpha": 0.7}
    asked = set(map(int, query["datapoint"]["sparseEmbedding"]["dimensions"]))
    assert lexeme_dimension("piscin") in asked and lexeme_dimension("abre") in asked


def test_an_engine_that_ignores_restricts_still_leaks_nothing(vertex):
    alpha, beta = make_license(machine_id="alpha"), make_license(machine_id="beta")
    make_document(GIMNASIO, filename="gimnasio.md", license=beta)
    make_document(PISCINA, filename="piscina.md", license=alpha)
    vertex.settle()
    vertex.fake.ignore_restricts = True
    for query in ["gimnasio reserva", "condominio", "fines de semana"]:
        assert "gimnasio.md" not in filenames(search(principal_for_license(alpha), query))
    assert filenames(search(principal_for_admin("root", license=None), "gimnasio")) == []


def test_scores_are_pgvectors_own(vertex, settings):
    alpha = make_license(machine_id="alpha")
    for text, name in [(PISCINA, "a.md"), (MEDICACION, "b.md"), (GIMNASIO, "c.md")]:
        make_document(text, filename=name, license=alpha)
    vertex.settle()
    principal = principal_for_license(alpha)
    through_vertex = search(principal, "condominio piscina")
    settings.SEARCH_VECTOR_BACKEND = "pgvector"
    through_pgvector = search(principal, "condominio piscina")
    assert [(r.chunk_id, round(r.vector_score, 5)) for r in through_vertex.results] == [
        (r.chunk_id, round(r.vector_score, 5)) for r in through_pgvector.results
    ]


@pytest.mark.parametrize("fault", ["429", "503", "timeout"])
def test_a_search_the_engine_cannot_answer_falls_back_to_pgvector(vertex, fault):
    alpha = make_license(machine_id="alpha")
    make_document(PISCINA, filename="piscina.md", license=alpha)
    vertex.settle()
    if fault == "timeout":
        vertex.fake.stall_next(1.0, call="findNeighbors")  # VERTEX_QUERY_TIMEOUT_SECONDS 0.5
    else:
        vertex.fake.fail_next(int(fault), call="findNeighbors")
    fallbacks = VECTOR_BACKEND_FALLBACKS.labels(backend="vertex")._value.get()
    assert filenames(search(principal_for_license(alpha), "piscina")) == ["piscina.md"]
    assert VECTOR_BACKEND_FALLBACKS.labels(backend="vertex")._value.get() == fallbacks + 1


def test_after_three_failures_searches_skip_vertex_until_it_may_be_back(vertex):
    import time_machine

    alpha = make_license(machine_id="alpha")
    make_document(PISCINA, filename="piscina.md", license=alpha)
    vertex.settle()
    principal = principal_for_license(alpha)

    def asked() -> int:
        return sum(call == "findNeighbors" for call, _ in vertex.fake.calls)

    vertex.fake.fail_next(503, times=3, call="findNeighbors")
    for _ in range(3):
        assert filenames(search(principal, "piscina")) == ["piscina.md"]
    before = asked()
    started = time.monotonic()
    assert filenames(search(principal, "piscina")) == ["piscina.md"]  # pgvector, at once
    assert asked() == before and time.monotonic() - started < 0.5
    with time_machine.travel(timezone.now() + timedelta(seconds=31)):
        assert filenames(search(principal, "piscina")) == ["piscina.md"]
    assert asked() == before + 1  # tried again, answered: Vertex is back in use


@pytest.mark.slow  # over a second on its own (make test-fast leaves it out)
@pytest.mark.parametrize("fault", ["429", "503", "timeout", "token endpoint down"])
def test_writes_the_engine_refuses_wait_and_are_sent_later_nothing_lost(vertex, fault):
    if fault == "timeout":
        vertex.fake.stall_next(1.5, call="upsertDatapoints")
    elif fault == "token endpoint down":
        vertex.fake.fail_next(503, times=100, call="token")  # past google-auth's own retries
    else:
        vertex.fake.fail_next(int(fault), call="upsertDatapoints")
    make_document(PISCINA, filename="piscina.md")
    report = outbox_drain()
    assert report.postponed == 1 and report.upserted == 0 and report.error
    waiting = VectorOutbox.objects.get()
    assert (
        waiting.attempts == 1 and waiting.last_error and waiting.available_at > waiting.created_at
    )
    assert outbox_drain().upserted == 0  # not due yet: backoff
    vertex.fake.clear_faults()
    due_now()
    vertex.settle()
    assert outbox_backlog() == (0, 0.0)


def test_a_batch_failing_halfway_keeps_what_was_confirmed(vertex, settings):
    settings.VERTEX_BATCH_SIZE = 2
    for n in range(3):
        make_document(f"Documento número {n} del condominio.", filename=f"{n}.txt")
    vertex.fake.fail_next(503, call="upsertDatapoints", after=1)  # the second batch's
    first = outbox_drain()
    assert (first.upserted, first.postponed) == (2, 1)
    assert len(vertex.fake.datapoints) == 2 and VectorOutbox.objects.count() == 1
    due_now()
    vertex.settle()
    assert len(vertex.fake.datapoints) == 3


def test_a_datapoint_the_engine_will_never_take_holds_up_only_itself(vertex):
    make_document(PISCINA, filename="piscina.md")
    make_document(GIMNASIO, filename="gimnasio.md")
    # A vector of another dimension than the index's (a model the index was not made for).
    chunk = Chunk.objects.first()
    bad = Embedding.objects.create(chunk=chunk, model="other-model@8", vector=[0.5] * 8)
    report = outbox_drain()
    assert report.upserted == 2 and report.postponed == 1
    refused = VectorOutbox.objects.get()
    assert refused.datapoint_id == bad.pk and "dimensionality" in refused.last_error


def test_an_engine_going_down_while_rows_are_sent_one_by_one_stops_the_drain(vertex):
    for text, name in [(PISCINA, "a.md"), (GIMNASIO, "b.md"), (MEDICACION, "c.md")]:
        make_document(text, filename=name)
    vertex.fake.fail_next(400, call="upsertDatapoints")  # the batch: refused as a whole
    vertex.fake.fail_next(503, call="upsertDatapoints", after=1)  # then, the second row
    report = outbox_drain()
    assert (report.upserted, report.postponed) == (1, 2)
    upserts = [body for call, body in vertex.fake.calls if call == "upsertDatapoints"]
    assert len(upserts) == 1  # the third row was not tried: the engine was down
    assert VectorOutbox.objects.count() == 2
    due_now()
    vertex.settle()


def test_a_removal_waits_for_the_engine_and_the_receipt_says_when(vertex):
    document = make_document(PISCINA, filename="piscina.md")
    vertex.settle()
    vertex.fake.fail_next(503, call="removeDatapoints")
    receipt = forgetting.document_forget(document=document)
    assert outbox_drain().postponed == 1
    receipt.refresh_from_db()
    assert receipt.datapoints == 1 and receipt.confirmed_at is None
    assert vertex.fake.datapoints  # still in the engine, never in an answer
    due_now()
    vertex.settle()
    receipt.refresh_from_db()
    assert receipt.confirmed_at is not None and not vertex.fake.datapoints


def test_a_forgetting_rolled_back_sends_nothing(vertex):
    document = make_document(PISCINA, filename="piscina.md")
    kept = document.pk
    vertex.settle()
    with pytest.raises(RuntimeError), transaction.atomic():
        forgetting.document_forget(document=document)
        raise RuntimeError("the request failed after deleting")
    assert not VectorOutbox.objects.exists() and not VectorErasure.objects.exists()
    assert Document.objects.filter(pk=kept).exists()


def test_a_deployment_moving_to_vertex_sends_every_vector(vertex):
    from tests.conftest import vector_outbox_session

    vector_outbox_session(False)  # written while the deployment was on pgvector
    make_document(PISCINA, filename="piscina.md")
    make_document(GIMNASIO, filename="gimnasio.md")
    vector_outbox_session(True)
    assert not VectorOutbox.objects.exists()
    assert outbox_enqueue_all() == 2
    vertex.settle()


def test_only_one_drain_sends_at_a_time(vertex):
    make_document(PISCINA, filename="piscina.md")
    from django.db import connections

    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(7343001)")  # another drain, mid-batch
            assert outbox_drain().busy and VectorOutbox.objects.exists()
            cursor.execute("SELECT pg_advisory_unlock(7343001)")
    finally:
        other.close()
    vertex.settle()


def test_a_queued_drain_waits_for_the_running_one_to_let_go(vertex, other_session):
    """The scale-out run: a forgotten document's removals were committed while another
    drain held the lock (having read the outbox before them); the drain queued for them
    found it busy and gave up, so the erasure stayed unconfirmed until beat's periodic
    drain. It now waits for the other to let go, and sends them."""
    import threading

    from knowledge.tasks import vector_outbox_drain_task

    make_document(PISCINA, filename="piscina.md")
    other_session.execute("SELECT pg_advisory_lock(7343001)")  # another drain, mid-batch
    threading.Timer(0.3, other_session.execute, ["SELECT pg_advisory_unlock(7343001)"]).start()
    report = vector_outbox_drain_task.apply().get()
    assert report["upserted"] == 1 and not VectorOutbox.objects.exists()
    vertex.settle()


def test_the_sync_command_sends_everything_and_says_what_is_left(vertex):
    from io import StringIO

    from django.core.management import call_command

    make_document(PISCINA, filename="piscina.md")
    VectorOutbox.objects.all().delete()  # as if stored before the move to Vertex
    out = StringIO()
    call_command("vector_sync", "--all", stdout=out)
    assert "Vertex AI index 1234567890: 0 vectors of 384" in out.getvalue()
    assert "Queued 1 vectors." in out.getvalue() and "Sent 1 vectors" in out.getvalue()
    assert "Nothing waiting" in out.getvalue() and len(vertex.fake.datapoints) == 1


def test_the_sync_command_says_why_it_cannot_work(settings, fake_vertex):
    from django.core.management import CommandError, call_command

    fake_vertex.fail_next(403, call="getIndex")
    with pytest.raises(CommandError, match="cannot be reached: .*HTTP 403"):
        call_command("vector_sync", "--check")
    settings.SEARCH_VECTOR_BACKEND = "pgvector"
    with pytest.raises(CommandError, match="nothing to send"):
        call_command("vector_sync")


@pytest.mark.slow  # real seconds: the point of the test
def test_a_stalled_token_endpoint_costs_a_search_at_most_its_timeout(vertex, settings):
    """Third outside attack run: google-auth refreshed the token inside a search with its
    120 s default while holding the client's lock; with the token endpoint taking 8 s, a
    search promised to fall back within 1 s returned after 8.1 s."""
    from knowledge.search.vertex import vertex_client

    alpha = make_license(machine_id="alpha")
    make_document(PISCINA, filename="piscina.md", license=alpha)
    vertex.settle()
    settings.VERTEX_QUERY_TIMEOUT_SECONDS = 1.0
    vertex_client.cache_clear()  # a process that has no token yet
    vertex.fake.stall_next(8.0, call="token")
    principal = principal_for_license(alpha)
    for _ in range(2):  # the second does not wait behind the first's stalled refresh either
        started = time.monotonic()
        assert filenames(search(principal, "piscina")) == ["piscina.md"]
        assert time.monotonic() - started < 1.5


def test_a_hybrid_question_with_no_words_left_is_asked_as_a_dense_query(vertex, settings):
    """Google's FindNeighborsRequest.Query: rrf is for queries with both vectors."""
    settings.VERTEX_HYBRID_ALPHA = "0.5"
    alpha = make_license(machine_id="alpha")
    make_document(PISCINA, filename="piscina.md", license=alpha)
    vertex.settle()
    search(principal_for_license(alpha), "¿…?")
    query = [body for call, body in vertex.fake.calls if call == "findNeighbors"][-1]["queries"][0]
    assert "rrf" not in query and "sparseEmbedding" not in query["datapoint"]
    search(principal_for_license(alpha), "piscina climatizada")
    query = [body for call, body in vertex.fake.calls if call == "findNeighbors"][-1]["queries"][0]
    assert "rrf" in query and query["datapoint"]["sparseEmbedding"]["dimensions"]


@pytest.mark.django_db
def test_each_embedding_change_writes_one_outbox_row_through_the_declared_triggers(
    fake_embedder, media_root
):
    """The triggers on Embedding's Meta are the table's only ones: migration 0020 replaced
    0015's hand-written pair, and an upload's vectors are queued once, not twice."""
    from tests.conftest import vector_outbox_session

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tgname FROM pg_trigger WHERE tgrelid = 'knowledge_embedding'::regclass"
            " AND NOT tgisinternal ORDER BY tgname"
        )
        names = [row[0] for row in cursor.fetchall()]
    assert [name.rsplit("_", 1)[0] for name in names] == [
        "pgtrigger_vector_outbox_remove",
        "pgtrigger_vector_outbox_upsert",
    ]
    vector_outbox_session(True)
    document = make_document(PISCINA, filename="piscina.md")
    chunks = Chunk.objects.filter(document=document).count()
    assert VectorOutbox.objects.filter(operation="upsert").count() == chunks
    vector_outbox_session(False)
    make_document(GIMNASIO, filename="gimnasio.md")
    assert VectorOutbox.objects.count() == chunks  # a pgvector-only session writes nothing
