"""What users asked has one lifecycle: redacted before it is stored, kept only as long as
configured, exported with its person and erased with them; forgetting a document, a memory
or a license reaches the copies kept here."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import timedelta
from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command
from django.utils import timezone

from conversations.gaps import as_floats
from conversations.models import Conversation, DailyCount, Exchange, Gap
from conversations.selectors import insights
from conversations.services import conversations_purge, retention_set
from datastores.erasures import erasures_since
from knowledge.forgetting import document_forget
from knowledge.models import Document, SearchLog
from licenses.models import License
from tests.conversations.support import ask, staff, widget_user
from tests.factories import make_document

pytestmark = [pytest.mark.django_db]


def _age(days: int) -> None:
    Exchange.objects.update(created_at=timezone.now() - timedelta(days=days))


def _searched(**lookup: object) -> list[str]:
    """The words the access log keeps of the searches (of ``lookup``'s)."""
    return list(SearchLog.objects.filter(**lookup).values_list("query", flat=True))


def test_personal_data_typed_in_a_question_is_stored_redacted(sala):
    ask(
        widget_user(sala, "ana"),
        "Soy ana.perez@example.com, llamadme al +34 612 345 678: ¿abre la piscina?",
    )
    question = Exchange.objects.get().question
    assert "ana.perez@example.com" not in question and "612 345 678" not in question
    assert "[EMAIL]" in question and "[PHONE]" in question


def test_a_password_written_out_in_a_question_is_kept_nowhere(sala):
    """Found 2026-12-01: "mi contraseña es…" was stored as typed — in the review queue, the
    access log and the session's context — as no shape of a key or token."""
    import redis
    from django.conf import settings as django_settings

    said = ask(widget_user(sala, "ana"), "Mi contraseña es Tr0ub4dor&3, ¿abre la piscina hoy?")

    assert Exchange.objects.get().question == "Mi contraseña es [SECRET], ¿abre la piscina hoy?"
    assert all("Tr0ub4dor" not in query for query in _searched())
    client = redis.Redis.from_url(django_settings.REDIS_URL)
    sessions = [
        client.get(key) for key in client.keys("*session:*") if client.type(key) == b"string"
    ]
    assert said["session_id"] and sessions  # its session was kept…
    assert not any(b"Tr0ub4dor" in stored for stored in sessions)  # …without the password


@pytest.mark.parametrize(
    ("message", "kept_as"),
    [
        ("Recuerda que tengo cálculos renales", "[HEALTH]"),
        ("Lembre que fui condenado por furto", "[SENSITIVE]"),
        ("Remember that I owe the IRS money", "[FINANCIAL]"),
    ],
)
def test_a_memory_refused_for_what_it_says_is_kept_nowhere(sala, message, kept_as):
    """Found 2026-12-02: the widget answered "No lo he guardado: no puedo recordar datos de
    salud" and the memory events kept no words, but the review queue and the session's
    context kept the message as typed. Only what kind it was is kept."""
    import redis
    from django.conf import settings as django_settings

    from tests.memory.support import consent

    consent(sala.license, "ana")
    said = ask(widget_user(sala, "ana"), message)

    assert said["answer"].startswith(("No lo he guardado", "Não guardei", "I did not keep"))
    assert Exchange.objects.get().question == kept_as
    client = redis.Redis.from_url(django_settings.REDIS_URL)
    sessions = [
        client.get(key) for key in client.keys("*session:*") if client.type(key) == b"string"
    ]
    assert sessions and all(message.encode() not in stored for stored in sessions)
    assert any(kept_as.encode() in stored for stored in sessions)


def test_a_memory_kept_or_lacking_consent_keeps_its_question(sala):
    """Only a refusal for what the words say hides them: without consent they are a question
    like any other, redacted."""
    ask(widget_user(sala, "ana"), "Recuerda que prefiero la piscina por la mañana")
    assert Exchange.objects.get().question == "Recuerda que prefiero la piscina por la mañana"


def test_a_question_that_held_personal_data_keeps_the_vector_of_its_redacted_words(
    sala, fake_embedder
):
    """A vector can be read back into much of its text: the one kept with an answer, and
    counted in a knowledge gap, is of what was asked without the personal data — the words
    as typed are never embedded (knowledge.search.asked)."""
    from knowledge.search.asked import what_is_asked

    typed = "Mi DNI es 12345678Z y no sé si abre la piscina del centro"
    ask(widget_user(sala, "ana"), typed)
    exchange = Exchange.objects.get()
    kept = np.asarray(as_floats(exchange.question_vector))

    assert "12345678Z" not in exchange.question
    assert not any("12345678Z" in embedded for embedded in fake_embedder.queries)
    assert np.allclose(kept, fake_embedder.embed_query(what_is_asked(typed)), atol=1e-3)
    assert not np.allclose(kept, fake_embedder.embed_query(typed), atol=1e-2)


def test_a_question_without_personal_data_keeps_the_search_s_own_vector(sala, fake_embedder):
    ask(widget_user(sala, "ana"), "¿A qué hora abre la piscina del condominio?")
    exchange = Exchange.objects.get()

    assert fake_embedder.queries.count(exchange.question) == 1  # no second embedding
    kept = np.asarray(as_floats(exchange.question_vector))
    assert np.allclose(kept, fake_embedder.embed_query(exchange.question), atol=1e-3)


def test_the_purge_removes_what_is_past_retention_and_keeps_its_numbers(sala, settings):
    settings.CONVERSATION_RETENTION_DAYS = 30
    client = widget_user(sala, "ana")
    old = ask(client, "¿A qué hora abre la piscina?")
    client.post("/api/v1/feedback", {"answer_id": old["answer_id"], "rating": "up"}, format="json")
    _age(40)
    ask(client, "¿Y cierra tarde la piscina?")  # today's stays

    out = StringIO()
    call_command("purge_conversations", stdout=out)
    assert "Removed 1 answers" in out.getvalue()
    assert Exchange.objects.count() == 1
    [counted] = DailyCount.objects.all()
    assert (counted.questions, counted.rated_up) == (1, 1)
    figures = insights(license=sala.license, days=60)
    assert figures.questions == 2 and figures.up_share == 1.0


def test_a_licenses_own_retention_and_older_than(sala, settings):
    settings.CONVERSATION_RETENTION_DAYS = 30
    ask(widget_user(sala, "ana"), "¿A qué hora abre la piscina?")
    _age(10)
    assert conversations_purge().exchanges == 0
    retention_set(license=sala.license, days=7)
    assert conversations_purge().exchanges == 1
    assert not Conversation.objects.exists()  # a conversation left without answers goes too

    ask(widget_user(sala, "ana"), "¿A qué hora abre la piscina?")
    _age(3)
    call_command("purge_conversations", "--older-than", "2", stdout=StringIO())
    assert not Exchange.objects.exists()


def test_the_access_log_keeps_a_question_s_words_as_long_as_its_scope_keeps_conversations(
    sala, settings, client, admin_user
):
    """It kept every question an end user asked, whatever the retention, for the query
    log's readers (support) to see."""
    settings.CONVERSATION_RETENTION_DAYS = 30
    ask(widget_user(sala, "ana"), "¿A qué hora abre la piscina?")
    client.force_login(admin_user)
    client.get("/knowledge/search/", {"query": "horario del gimnasio", "scope": "global"})
    SearchLog.objects.update(created_at=timezone.now() - timedelta(days=10))
    retention_set(license=sala.license, days=7)

    conversations_purge()

    assert sorted(_searched()) == ["", "horario del gimnasio"]  # the global scope keeps 30
    assert SearchLog.objects.count() == 2
    page = client.get("/knowledge/search/").content.decode()
    assert "words not kept" in page and "horario del gimnasio" in page
    call_command("purge_conversations", "--older-than", "5", stdout=StringIO())
    assert _searched() == ["", ""]


def test_zero_days_keeps_only_counts(sala, settings):
    settings.CONVERSATION_RETENTION_DAYS = 0
    ask(widget_user(sala, "ana"), "Mi correo es ana@example.com, ¿abre la piscina?")
    exchange = Exchange.objects.get()
    assert (exchange.question, exchange.answer, exchange.citations) == ("", "", [])
    assert exchange.question_vector is None
    assert _searched() == [""]  # nor the access log
    conversations_purge()
    assert not Exchange.objects.exists()
    assert DailyCount.objects.get().questions == 1


@pytest.mark.django_db(transaction=True)  # the worker sees only what has committed
def test_the_purge_runs_in_a_real_worker(celery_worker):
    from conversations.tasks import conversations_purge_task
    from tests.factories import make_license

    license = make_license()
    conversation = Conversation.objects.create(license=license, user_ref="ana", session_id="s1")
    Exchange.objects.create(
        conversation=conversation, license=license, language="es", answerer="extractive"
    )
    _age(400)
    result = conversations_purge_task.delay().get(timeout=60)
    assert result["exchanges"] == 1
    assert not Exchange.objects.exists()


def test_an_end_users_export_holds_their_conversations_and_erasure_removes_them(
    sala, django_capture_on_commit_callbacks
):
    ana, bruno = widget_user(sala, "ana"), widget_user(sala, "bruno")
    answer = ask(ana, "¿A qué hora abre la piscina?")
    ask(bruno, "¿La piscina abre los domingos?")

    exported = json.loads(ana.get("/api/v1/me/export").content)
    [conversation] = exported["conversations"]
    assert conversation["exchanges"][0]["answer_id"] == answer["answer_id"]
    assert conversation["exchanges"][0]["question"] == "¿A qué hora abre la piscina?"
    assert "memories" in exported and exported["user"] == "ana"
    assert ana.get("/api/v1/me/conversations").json() == exported["conversations"]

    session_id = conversation["session_id"]
    conversation_id = str(Conversation.objects.get(user_ref="ana").pk)
    transcript = ana.get("/api/v1/chat/session", {"session_id": session_id}).json()
    assert transcript["turns"]
    with django_capture_on_commit_callbacks(execute=True):
        erased = ana.delete("/api/v1/me/conversations")
    assert erased.json() == {"conversations_erased": 1}
    assert not Exchange.objects.filter(conversation__user_ref="ana").exists()
    assert Exchange.objects.filter(conversation__user_ref="bruno").count() == 1  # only hers
    assert sorted(_searched()) == ["", "¿La piscina abre los domingos?"]  # the access log too
    assert SearchLog.objects.count() == 2  # the accesses themselves stay
    transcript = ana.get("/api/v1/chat/session", {"session_id": session_id}).json()
    assert transcript["turns"] == []  # the session transcript in Redis went too
    journal = erasures_since(timezone.now() - timedelta(minutes=1))
    assert {"kind": "conversation", "id": conversation_id} in [
        {"kind": e["kind"], "id": e["id"]} for e in journal
    ]  # a restore forgets it again


def test_a_restore_erases_a_conversation_again_with_its_words_in_the_access_log(sala):
    from conversations.apps import erase_conversation_again

    ask(widget_user(sala, "ana"), "¿A qué hora abre la piscina?")
    conversation = Conversation.objects.get()

    assert erase_conversation_again(str(conversation.pk))

    assert not Exchange.objects.exists() and _searched() == [""]
    assert not erase_conversation_again(str(conversation.pk))  # a second replay: nothing


def test_an_end_users_export_holds_their_consent_and_what_became_of_their_memories(sala):
    """Both are kept about them (and were not in their export)."""
    from memory.services import memory_forget
    from tests.memory.support import consent, propose

    consent(sala.license, "ana")
    propose(sala.license, "Prefiere la sala grande", user="ana")
    memory_forget(memory=propose(sala.license, "Prefiere el turno de tarde"), actor="user:ana")

    exported = json.loads(widget_user(sala, "ana").get("/api/v1/me/export").content)

    assert exported["consent"]["given"] is True and exported["consent"]["withdrawn_at"] is None
    assert [(e["event"], e["by"], e["description"]) for e in exported["memory_history"]] == [
        ("consent_given", "you", ""),
        ("created", "product", "Prefiere la sala grande"),
        ("created", "product", ""),  # forgotten: its words went with it
        ("forgotten", "you", ""),
    ]
    other = json.loads(widget_user(sala, "bruno").get("/api/v1/me/export").content)
    assert (other["consent"], other["memory_history"]) == (None, [])


def test_a_privacy_officer_exports_and_erases_from_the_console(sala, django_user_model):
    ask(widget_user(sala, "ana"), "¿A qué hora abre la piscina?")
    officer = staff(django_user_model, "privacy_officer")
    exported = officer.get("/conversations/export", {"license": "sala-conv", "user": "ana"})
    assert json.loads(exported.content)["conversations"][0]["exchanges"]
    done = officer.post(
        "/conversations/erase", {"license": "sala-conv", "user": "ana"}, follow=True
    )
    assert "Erased 1 conversation of ana." in done.content.decode()
    assert not Conversation.objects.exists()


def test_a_privacy_officer_erases_everything_about_a_person_in_one_step(
    sala, django_user_model, django_capture_on_commit_callbacks
):
    # Erasing only the conversations left the person's memories, consent and their name in
    # the memory events: an erasure request took two pages and still left a trace.
    from accounts.audit import person_pseudonym
    from accounts.models import AuditEntry
    from memory.models import Memory, MemoryConsent, MemoryEvent
    from tests.memory.support import consent

    for user in ("ana", "bea"):
        consent(sala.license, user)
        ask(widget_user(sala, user), "Recuerda que prefiero la piscina por la mañana")
    assert Memory.objects.filter(user_ref="ana").exists()
    officer = staff(django_user_model, "privacy_officer")
    page = officer.get("/conversations/", {"license": "sala-conv", "user": "ana"})
    assert "Erase everything about them" in page.content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        done = officer.post(
            "/conversations/erase/everything", {"license": "sala-conv", "user": "ana"}, follow=True
        )

    assert "Erased everything kept about ana (conversations: 1, memories: 1)" in (
        done.content.decode()
    )
    assert not Conversation.objects.filter(user_ref="ana").exists()
    assert not Memory.objects.filter(user_ref="ana").exists()
    assert not MemoryConsent.objects.filter(user_ref="ana").exists()
    assert not MemoryEvent.objects.filter(user_ref="ana").exists()
    pseudonym = person_pseudonym(sala.license.pk, "ana")  # the counts stay, unlinked
    assert MemoryEvent.objects.filter(user_ref=pseudonym, kind="created").exists()
    # bea, of the same license, keeps all of hers
    assert Conversation.objects.filter(user_ref="bea").exists()
    assert Memory.objects.filter(user_ref="bea").exists()
    assert MemoryConsent.objects.filter(user_ref="bea", given=True).exists()
    entry = AuditEntry.objects.get(action="user_data.erased")
    assert entry.details["conversations"] == 1 and entry.details["memories"] == 1
    assert "ana" not in json.dumps(entry.details)


def test_the_api_erases_everything_when_asked_and_only_for_a_role_that_may(sala, django_user_model):
    from django.contrib.auth.models import Permission
    from rest_framework.test import APIClient

    from memory.models import Memory
    from tests.memory.support import consent

    consent(sala.license, "ana")
    ask(widget_user(sala, "ana"), "Recuerda que prefiero la piscina por la mañana")
    body = {"license": "sala-conv", "user": "ana", "memories": True}
    # an account allowed to erase conversations but not to delete memories
    narrow = django_user_model.objects.create_user("nina", password="x", is_staff=True)
    narrow.user_permissions.add(
        Permission.objects.get(codename="erase_conversation"),
        Permission.objects.get(codename="view_conversation"),
    )
    as_narrow = APIClient()
    as_narrow.force_authenticate(narrow)
    refused = as_narrow.post("/api/v1/conversations/erase", body, format="json")
    assert refused.status_code == 403 and "may not delete memories" in refused.json()["detail"]
    assert Conversation.objects.exists() and Memory.objects.exists()  # nothing half-done

    officer = staff(django_user_model, "privacy_officer")
    erased = officer.post("/api/v1/conversations/erase", body, format="json")

    assert erased.json() == {"conversations_erased": 1, "memories_forgotten": 1}
    assert not Conversation.objects.exists() and not Memory.objects.exists()


def test_forgetting_a_document_leaves_no_quote_in_stored_answers(
    sala, django_capture_on_commit_callbacks
):
    ask(widget_user(sala, "ana"), "¿A qué hora abre la piscina?")
    exchange = Exchange.objects.get()
    assert "ocho" in exchange.answer and exchange.citations[0]["document"] == "piscina.md"
    with django_capture_on_commit_callbacks(execute=True):
        document_forget(document=Document.objects.get(filename="piscina.md"))
    exchange.refresh_from_db()
    assert "ocho" not in exchange.answer and "[…]" in exchange.answer
    assert exchange.citations == [{"number": 1, "forgotten": True}]
    assert exchange.chunk_ids == []


def test_forgetting_a_document_leaves_nothing_of_a_quote_with_bracketed_numbers(
    sala, django_capture_on_commit_callbacks
):
    """The quote's own "[2]" was taken for a marker: the words after it stayed."""
    make_document(
        "# Gimnasio\n\nEl gimnasio del condominio abre a las siete, según la norma [2] "
        "de la comunidad de vecinos.",
        filename="gimnasio.md",
        license=sala.license,
    )
    ask(widget_user(sala, "ana"), "¿A qué hora abre el gimnasio del condominio?")
    exchange = Exchange.objects.get()
    assert "norma [2] de la comunidad" in exchange.answer
    with django_capture_on_commit_callbacks(execute=True):
        document_forget(document=Document.objects.get(filename="gimnasio.md"))
    exchange.refresh_from_db()
    assert "comunidad" not in exchange.answer and "siete" not in exchange.answer


def test_forgetting_a_memory_scrubs_the_question_that_said_it(
    sala, django_capture_on_commit_callbacks
):
    from memory.services import memory_forget
    from tests.memory.support import consent

    client = widget_user(sala, "ana")
    consent(sala.license, "ana")
    ask(client, "Recuerda que prefiero la piscina por la mañana")
    from memory.models import Memory

    memory = Memory.objects.get(user_ref="ana")
    ask(client, "Como prefiero la piscina por la mañana, ¿a qué hora abre?")  # searched
    assert Exchange.objects.filter(question__icontains="prefiero la piscina").count() == 2
    assert SearchLog.objects.filter(query__icontains="prefiero la piscina").exists()
    with django_capture_on_commit_callbacks(execute=True):
        memory_forget(memory=memory, actor="user:ana")
    assert not Exchange.objects.filter(question__icontains="prefiero la piscina").exists()
    assert not SearchLog.objects.filter(query__icontains="prefiero la piscina").exists()


# Its own transactions, as in production: the ingestion above sets this test transaction's
# constraints IMMEDIATE (vector_index), and Django deletes the license row before its
# conversations, relying on deferred foreign keys.
@pytest.mark.django_db(transaction=True)
def test_forgetting_a_license_forgets_its_conversations(sala):
    ask(widget_user(sala, "ana"), "¿A qué hora abre la piscina?")
    # A license's knowledge is forgotten first (documents protect their license row).
    document_forget(document=Document.objects.get(license=sala.license))
    License.objects.filter(pk=sala.license.pk).delete()
    assert not Conversation.objects.exists() and not Exchange.objects.exists()


def test_staff_trying_the_assistant_is_kept_apart_from_end_users(sala, django_user_model):
    owner = staff(django_user_model, "owner")
    response = owner.post(
        "/api/v1/chat", {"message": "¿Dónde se dejan las bicicletas?", "license": "sala-conv"},
        format="json",
    )  # fmt: skip
    assert response.json()["answer_id"]
    exchange = Exchange.objects.get()
    assert exchange.by_staff and exchange.conversation.user_ref == "admin:u-owner"
    assert not Gap.objects.exists()
    assert owner.get("/api/v1/conversations").json()["count"] == 0
    assert insights().questions == 0


@pytest.mark.parametrize(
    ("answerer", "answer", "left"),
    [
        # the offline answerer's «…» quote a passage: its own "[2]" cites nothing
        ("extractive", "«Abre a las siete, según la norma [2] de la comunidad.» [1]", "[…]"),
        # a model's «…» are its words: the marker inside backs them, and they go with it
        ("gemini", "«Abre a las siete [1]», dice la norma.", "[…]», dice la norma."),
    ],
)
def test_the_words_a_forgotten_source_backed_go_whoever_answered(answerer, answer, left):
    from conversations.services import _without_claims  # noqa: PLC0415

    assert _without_claims(answer, {1}, answerer) == left  # "siete" gone either way


@pytest.mark.django_db(transaction=True)
def test_an_answer_given_while_its_person_is_erased_is_not_kept(sala):
    """The erasure went first, the answer being given then was kept: their question
    outlived their erasure."""
    from accounts.models import AuditEntry
    from conversations.services import Said, conversations_erase_user, exchange_record
    from tests.concurrency import twice_at_once

    ask(widget_user(sala, "ana"), "¿A qué hora abre la piscina?")
    searched = SearchLog.objects.create(
        actor="license:sala-conv", license=sala.license, scope_label="sala-conv",
        query="¿Y los domingos?", strategy="weighted", top_k=5, min_score=0.5,
        latency_ms=3.0, candidates=1, cut_by_threshold=0, result_count=1,
    )  # fmt: skip
    said = Said(
        license=sala.license, user_ref="ana", session_id="s1", by_staff=False,
        question="¿Y los domingos?", answer="Abre a las ocho.", language="es",
        answerer="extractive", citations=[], no_information=False, best_score=0.9,
        min_score=0.5, latency_ms=900.0, search_log_ids=[searched.pk],
        asked_at=timezone.now() - timedelta(seconds=1),
    )  # fmt: skip

    erased, kept, waited = twice_at_once(
        AuditEntry,
        lambda: conversations_erase_user(license=sala.license, user_ref="ana"),
        lambda: exchange_record(said),
    )

    assert waited and erased == 1 and kept is None
    assert not Exchange.objects.exists() and not Conversation.objects.exists()
    assert _searched() == ["", ""]
    # Asked after the erasure, a question is kept as any other.
    assert exchange_record(replace(said, asked_at=timezone.now())) is not None


@pytest.mark.django_db(transaction=True)
def test_an_upgrade_drops_the_vectors_kept_of_questions_that_held_personal_data():
    """Conversations 0002: vectors kept before were of the words as typed. Those of a
    question that held personal data go, and its gap's centre is made of the others."""
    from tests.factories import make_unanswered_exchange
    from tests.migrations import latest, migrate

    forged = License.objects.create(user_name="Old", machine_id="old-release", key_hash="x")
    plain = make_unanswered_exchange(forged, "ana")
    personal = make_unanswered_exchange(forged, "bea")
    assert plain.gap_id == personal.gap_id
    Exchange.objects.filter(pk=personal.pk).update(
        question="Mi DNI es [DNI], ¿hay wifi?", question_vector=[0.0, 1.0, 0.0]
    )
    Gap.objects.filter(pk=plain.gap_id).update(centroid=[0.7071, 0.7071, 0.0])

    migrate([("conversations", "0001_initial")])
    migrate(latest())

    assert Exchange.objects.get(pk=personal.pk).question_vector is None
    assert as_floats(Exchange.objects.get(pk=plain.pk).question_vector) == [1.0, 0.0, 0.0]
    gap = Gap.objects.get(pk=plain.gap_id)
    assert np.allclose(as_floats(gap.centroid), [1.0, 0.0, 0.0], atol=1e-3)
    assert gap.count == 2  # its questions still counted
