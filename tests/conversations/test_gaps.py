"""Knowledge gaps, end to end through the widget's API with the real multilingual embedder:
one unanswered question asked three ways in three languages by two end users is one gap; a
knowledge editor's answer for that license closes it and answers a fourth phrasing, cited
as the organisation's answer; the other license still has no information."""

from __future__ import annotations

import html
import re

import pytest

from accounts.models import AuditEntry
from chat.texts import NO_INFORMATION
from conversations import selectors
from conversations.models import Exchange, Gap, GapStatus
from conversations.services import conversations_erase_user
from knowledge.models import Document, DocumentStatus, SearchLog, SourceType
from licenses.services import license_forge
from tests.conftest import wait_until
from tests.conversations.support import SITE, ask, staff, widget_user
from tests.factories import make_document

# No media_root fixture: the worker process reads the uploads from the test settings' MEDIA_ROOT.
pytestmark = [pytest.mark.django_db(transaction=True)]

POOL = (
    "# Piscina\n\nLa piscina del condominio abre a las ocho de la mañana y cierra a las "
    "diez de la noche. Los niños menores de doce años entran acompañados."
)
PHRASINGS = [
    ("ana", "¿Cuál es la contraseña del wifi de la sala de reuniones?"),
    ("bruno", "Qual é a senha do wi-fi da sala de reuniões?"),
    ("ana", "What is the wifi password in the meeting room?"),
]
FOURTH = "¿Me dices la clave del wifi de la sala de reuniones?"


@pytest.fixture
def licenses():
    first = license_forge(user_name="Sala", machine_id="sala-gaps", allowed_origins=[SITE])
    other = license_forge(user_name="Otra", machine_id="otra-gaps", allowed_origins=[SITE])
    make_document(POOL, filename="piscina.md", license=first.license)
    make_document(POOL, filename="piscina.md", license=other.license)
    return first, other


def test_one_gap_answered_once_answers_every_phrasing(licenses, django_user_model, celery_worker):
    first, other = licenses
    for user, question in PHRASINGS:
        body = ask(widget_user(first, user), question)
        assert body["answer"] in NO_INFORMATION.values(), body["answer"]
        assert body["answer_id"]

    [gap] = Gap.objects.all()
    assert (gap.count, gap.status) == (3, GapStatus.OPEN)
    assert sorted(gap.languages) == ["en", "es", "pt"]

    editor = staff(django_user_model, "knowledge_editor")
    listed = editor.get("/api/v1/knowledge-gaps").json()
    assert [(g["id"], g["count"], g["status"]) for g in listed] == [(gap.pk, 3, "open")]
    assert set(listed[0]["examples"]) == {q for _user, q in PHRASINGS}
    assert "ana" not in str(listed) and "bruno" not in str(listed)  # no identities

    answered = editor.post(
        f"/api/v1/knowledge-gaps/{gap.pk}/answer",
        {
            "answer": "La contraseña del wifi de la sala de reuniones es Girasol-2026.",
            "license": "sala-gaps",
            "question": PHRASINGS[0][1],
        },
        format="json",
    )
    assert answered.status_code == 200, answered.content
    assert answered.json()["status"] == "answered"
    assert answered.json()["answered_by"] == "u-knowledge_editor"
    document = Document.objects.get(source_type=SourceType.ANSWER)
    wait_until(
        lambda: Document.objects.get(pk=document.pk).status == DocumentStatus.READY,
        what="the curated answer ingested by the worker",
    )

    body = ask(widget_user(first, "bruno"), FOURTH)
    assert "Girasol-2026" in body["answer"]
    [citation] = body["citations"]
    assert citation["curated"] is True and citation["document_id"] == str(document.pk)
    gap.refresh_from_db()
    assert gap.status == GapStatus.ANSWERED and gap.count == 3  # the fourth was answered

    elsewhere = ask(widget_user(other, "carla"), FOURTH)
    assert elsewhere["answer"] in NO_INFORMATION.values()
    assert "Girasol" not in str(elsewhere)
    # …and, unanswered there, it is an open gap of its own
    assert Gap.objects.filter(status=GapStatus.OPEN, license_ids=[other.license.pk]).count() == 1


def test_a_different_question_is_a_different_gap(licenses):
    first, _other = licenses
    client = widget_user(first, "ana")
    ask(client, "¿Cuál es la contraseña del wifi de la sala de reuniones?")
    ask(client, "¿Dónde se dejan las bicicletas del edificio?")
    assert Gap.objects.count() == 2
    assert Exchange.objects.filter(gap__isnull=False).count() == 2


@pytest.mark.parametrize(
    ("language", "named"),
    [("pt-br", PHRASINGS[1][1]), ("es", PHRASINGS[0][1]), ("en", PHRASINGS[2][1])],
)
def test_a_gap_is_named_to_each_editor_in_their_language(
    licenses, django_user_model, language, named
):
    """A newcomer's tour: a Portuguese console named the wifi gap "What's the wifi
    password?", its latest phrasing, though it was asked in Portuguese too."""
    for user, question in PHRASINGS:
        ask(widget_user(licenses[0], user), question)
    editor = staff(django_user_model, "knowledge_editor")
    page = editor.get("/conversations/gaps/", headers={"Accept-Language": language})
    [title] = re.findall(r'<h2 id="gap-title-\d+"[^>]*>([^<]*)</h2>', page.content.decode())
    assert html.unescape(title) == named


def test_a_gap_never_answered_has_no_answer_to_change(licenses, django_user_model):
    ask(widget_user(licenses[0], "ana"), PHRASINGS[0][1])
    gap = Gap.objects.get()
    refused = staff(django_user_model, "knowledge_editor").put(
        f"/api/v1/knowledge-gaps/{gap.pk}/answer", {"answer": "Es Tulipán."}, format="json"
    )
    assert refused.status_code == 409 and "answer it first" in refused.json()["detail"]
    assert not Document.objects.filter(source_type=SourceType.ANSWER).exists()


def test_an_editor_sees_what_a_search_for_a_gap_finds_now(licenses, django_user_model):
    ask(widget_user(licenses[0], "ana"), PHRASINGS[0][1])
    [gap] = Gap.objects.all()
    search = f"/conversations/gaps/{gap.pk}/search"

    editor = staff(django_user_model, "knowledge_editor")
    page = editor.get("/conversations/gaps/").content.decode()
    assert f'hx-get="{search}"' in page
    found = editor.get(search, headers={"HX-Request": "true"}).content.decode()
    # The pool's passage is the nearest, under the threshold: the knowledge lacks the wifi.
    assert "sala-gaps scope" in found and "Retrieved but not kept" in found
    assert "piscina.md" in found and "under the threshold" in found
    assert "Lower it" not in found  # the playground's threshold is not on this page
    api = editor.get(f"/api/v1/knowledge-gaps/{gap.pk}/search").json()
    assert api["results"] == [] and [
        (c["reason"], c["result"]["filename"]) for c in api["cut"]
    ] == [("threshold", "piscina.md")]
    assert "ana" not in re.sub(r"<[^>]+>", " ", found).split()  # never who asked
    assert editor.get(f"/conversations/gaps/{gap.pk + 999}/search").status_code == 404
    # Past their retention, no phrasing is left to search for.
    Exchange.objects.filter(gap_id=gap.pk).update(question="")
    assert editor.get(search).status_code == 404
    assert editor.get(f"/api/v1/knowledge-gaps/{gap.pk}/search").status_code == 404
    assert staff(django_user_model, None, "roleless").get(search).status_code == 403


def test_a_gaps_search_again_never_shows_what_its_person_asked_before(licenses, django_user_model):
    ask(widget_user(licenses[0], "ana"), PHRASINGS[0][1])
    [gap] = Gap.objects.all()
    exchange = Exchange.objects.get()
    # as the chat logs a follow-up searched after the question before it
    earlier = f"Mi hijo Pablo tiene asma, ¿puede ir a la piscina? {exchange.question}"
    SearchLog.objects.filter(exchange_id=exchange.pk).update(query=earlier)

    editor = staff(django_user_model, "knowledge_editor")
    found = editor.get(f"/api/v1/knowledge-gaps/{gap.pk}/search").json()
    assert found["query"] == exchange.question
    page = editor.get(f"/conversations/gaps/{gap.pk}/search").content.decode()
    assert "asma" not in page and "Pablo" not in page
    # A reader of the conversation, who sees the question before it anyway, gets the search
    # as the chat made it.
    owner = staff(django_user_model, "owner")
    assert owner.get(f"/api/v1/answers/{exchange.pk}/search").json()["query"] == earlier


def test_a_transcript_leads_to_its_answers_gap_alone(licenses, django_user_model):
    ask(widget_user(licenses[0], "ana"), PHRASINGS[0][1])
    ask(widget_user(licenses[0], "ana"), "¿Dónde se dejan las bicicletas del edificio?")
    wifi = Exchange.objects.get(question=PHRASINGS[0][1])
    owner = staff(django_user_model, "owner")
    transcript = owner.get(f"/conversations/{wifi.conversation_id}/").content.decode()
    assert f'href="/conversations/gaps/?gap={wifi.gap_id}"' in transcript
    one = owner.get(f"/conversations/gaps/?gap={wifi.gap_id}").content.decode()
    assert one.count('class="card gap"') == 1 and "contraseña del wifi" in one
    assert "bicicletas" not in one and "Every open gap" in one
    assert owner.get("/conversations/gaps/").content.decode().count('class="card gap"') == 2
    gone = owner.get("/conversations/gaps/?gap=99999999999999999999").content.decode()
    assert gone.count('class="card gap"') == 2  # not a gap's number: every open gap
    gone = owner.get("/conversations/gaps/?gap=999999").content.decode()
    assert "This gap is no longer kept" in gone
    # Support reads conversations, not gaps: no link to one.
    support = staff(django_user_model, "support").get(f"/conversations/{wifi.conversation_id}/")
    assert "?gap=" not in support.content.decode()


def test_a_question_answered_with_confidence_is_no_gap(licenses):
    first, _other = licenses
    body = ask(widget_user(first, "ana"), "¿A qué hora abre la piscina?")
    assert "ocho" in body["answer"]
    assert not Gap.objects.exists()


@pytest.mark.parametrize(
    ("asked", "lacking"),
    [("¿Hay wifi en la piscina?", "wifi"), ("¿Se puede fumar en la piscina?", "fumar")],
)
def test_an_answer_saying_the_knowledge_lacks_what_was_asked_is_a_gap(licenses, asked, lacking):
    """ "¿Hay wifi en la piscina?" gets the pool's passage, confidently, and the note that
    nothing cited mentions the wifi: the knowledge lacks it, as for "no information". So
    does a question asking whether something is allowed."""
    body = ask(widget_user(licenses[0], "ana"), asked)
    assert f"“{lacking}”" in body["answer"] and body["citations"]
    exchange = Exchange.objects.get()
    assert not (exchange.no_information or exchange.low_score)
    assert exchange.gap is not None and exchange.gap.count == 1


def test_the_queue_filters_the_answers_counted_in_a_gap(licenses, django_user_model):
    client = widget_user(licenses[0], "ana")
    ask(client, "¿A qué hora abre la piscina?")  # answered with confidence
    ask(client, "¿Hay wifi en la piscina?")  # answered, but the knowledge lacks the wifi
    ask(client, PHRASINGS[0][1])  # no information
    support = staff(django_user_model, "support")
    gaps = support.get("/api/v1/conversations", {"in_gap": "true"}).json()
    assert sorted(row["question"] for row in gaps["results"]) == sorted(
        ["¿Hay wifi en la piscina?", PHRASINGS[0][1]]
    )
    assert support.get("/api/v1/conversations").json()["count"] == 3
    page = support.get("/conversations/", {"in_gap": "on"}).content.decode()
    assert "¿Hay wifi en la piscina?" in page and "abre la piscina" not in page
    assert 'name="in_gap"' in support.get("/conversations/").content.decode()


def _answered(licenses, editor, answer: str) -> tuple[Gap, Document]:
    """The first phrasing asked, its gap answered for sala-gaps, the answer read by the worker."""
    first, _other = licenses
    ask(widget_user(first, "ana"), PHRASINGS[0][1])
    gap = Gap.objects.get()
    answered = editor.post(
        f"/api/v1/knowledge-gaps/{gap.pk}/answer",
        {"answer": answer, "license": "sala-gaps", "question": PHRASINGS[0][1]},
        format="json",
    )
    assert answered.status_code == 200, answered.content
    document = Document.objects.get(source_type=SourceType.ANSWER)
    _read(document)
    return gap, document


def _read(document: Document) -> None:
    wait_until(
        lambda: Document.objects.get(pk=document.pk).status == DocumentStatus.READY,
        what="the curated answer read by the worker",
    )


def test_an_answer_changed_is_its_documents_new_version(licenses, django_user_model, celery_worker):
    editor = staff(django_user_model, "knowledge_editor")
    gap, document = _answered(licenses, editor, "La contraseña es Girasol-2026.")

    changed = editor.put(
        f"/api/v1/knowledge-gaps/{gap.pk}/answer",
        {"answer": "Desde marzo la contraseña es Tulipán-2027."},
        format="json",
    )
    assert changed.status_code == 200, changed.content
    assert changed.json()["answer"] == "Desde marzo la contraseña es Tulipán-2027."
    assert changed.json()["answer_document"] == str(document.pk)
    _read(document)

    body = ask(widget_user(licenses[0], "bruno"), FOURTH)
    assert "Tulipán-2027" in body["answer"] and "Girasol" not in str(body)
    [citation] = body["citations"]
    assert citation["curated"] is True and citation["document_id"] == str(document.pk)
    assert Document.objects.filter(source_type=SourceType.ANSWER).count() == 1
    assert AuditEntry.objects.filter(action="knowledge.new_version").count() == 1

    again = editor.put(
        f"/api/v1/knowledge-gaps/{gap.pk}/answer",
        {"answer": "Desde marzo la contraseña es Tulipán-2027."},
        format="json",
    )
    assert again.status_code == 409 and "nothing changed" in again.json()["detail"]


def test_the_console_changes_an_answer_and_only_an_editor_may(
    licenses, django_user_model, celery_worker
):
    editor = staff(django_user_model, "knowledge_editor")
    gap, document = _answered(licenses, editor, "La contraseña es Girasol-2026.")

    page = editor.get("/conversations/gaps/?status=answered", HTTP_ACCEPT_LANGUAGE="es")
    assert "Cambiar la respuesta" in page.content.decode()
    assert ">respondida</span>" in page.content.decode()  # one gap ("respondidas" was plural)
    fields = {
        f"gap{gap.pk}-question": "¿Cuál es la contraseña del wifi?",
        f"gap{gap.pk}-answer": "Es Tulipán-2027.",
    }
    refused = staff(django_user_model, "support").post(
        f"/conversations/gaps/{gap.pk}/answer/change", fields
    )
    assert refused.status_code == 403
    done = editor.post(
        f"/conversations/gaps/{gap.pk}/answer/change",
        fields,
        HTTP_ACCEPT_LANGUAGE="es",
        follow=True,
    )
    assert "Cambiada: el conocimiento toma la nueva respuesta" in done.content.decode()
    gap.refresh_from_db()
    assert (gap.answer, gap.answered_by) == ("Es Tulipán-2027.", "u-knowledge_editor")
    _read(document)
    document.refresh_from_db()
    assert document.filename == "Cuál es la contraseña del wifi.md"
    assert "Tulipán-2027" in "".join(document.chunks.values_list("content", flat=True))


def test_forgetting_a_gaps_answer_opens_the_gap_again(licenses, django_user_model, celery_worker):
    editor = staff(django_user_model, "knowledge_editor")
    gap, document = _answered(licenses, editor, "La contraseña es Girasol-2026.")

    assert editor.delete(f"/api/v1/documents/{document.pk}").status_code == 204

    gap.refresh_from_db()
    assert (gap.status, gap.answer_document) == (GapStatus.OPEN, None)
    body = ask(widget_user(licenses[0], "bruno"), FOURTH)
    assert body["answer"] in NO_INFORMATION.values()
    gap.refresh_from_db()
    assert gap.count == 2  # the asking counts in the reopened gap, not in a new one
    page = editor.get("/conversations/gaps/", HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    assert "resposta esquecida" in page and "La contraseña es Girasol-2026." in page

    refused = editor.put(
        f"/api/v1/knowledge-gaps/{gap.pk}/answer", {"answer": "Es Tulipán."}, format="json"
    )
    assert refused.status_code == 409 and "answer it first" in refused.json()["detail"]
    answered = editor.post(
        f"/api/v1/knowledge-gaps/{gap.pk}/answer",
        {"answer": "Es Tulipán-2027.", "license": "sala-gaps"},
        format="json",
    )
    assert answered.status_code == 200 and answered.json()["status"] == "answered"


def test_an_editor_answers_from_the_phrasing_in_their_own_language(licenses, django_user_model):
    for user, question in PHRASINGS:
        ask(widget_user(licenses[0], user), question)
    editor = staff(django_user_model, "knowledge_editor")

    for language, (_user, question) in zip(["es", "pt-BR", "en"], PHRASINGS, strict=True):
        page = editor.get("/conversations/gaps/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
        prefilled = re.search(r'name="gap\d+-question"[^>]*value="([^"]*)"', page)
        assert prefilled and html.unescape(prefilled[1]) == question, language


def test_a_dismissed_gap_counts_its_askings_out_of_the_open_ones(licenses, django_user_model):
    """A test question, off topic or spam, is not for the knowledge to answer: dismissed, it
    leaves the open gaps, and its next askings, in any language, count in it rather than
    opening it again; an editor may reopen it. Audited; the support role may not."""
    ask(widget_user(licenses[0], "ana"), PHRASINGS[0][1])
    gap = Gap.objects.get()
    editor = staff(django_user_model, "knowledge_editor")
    refused = staff(django_user_model, "support").post(f"/conversations/gaps/{gap.pk}/dismiss")
    assert refused.status_code == 403

    done = editor.post(
        f"/conversations/gaps/{gap.pk}/dismiss", HTTP_ACCEPT_LANGUAGE="es", follow=True
    )
    assert "Descartada: sus preguntas siguen contando" in done.content.decode()
    assert f'id="gap-{gap.pk}"' not in done.content.decode()  # out of the open gaps
    gap.refresh_from_db()
    assert (gap.status, gap.dismissed_by) == (GapStatus.DISMISSED, "u-knowledge_editor")
    assert selectors.asked_recently().open_gaps == 0
    entry = AuditEntry.objects.get(action="gap.dismissed")
    assert (entry.actor, entry.target) == ("u-knowledge_editor", f"gap:{gap.pk}")

    ask(widget_user(licenses[0], "bruno"), PHRASINGS[1][1])  # the same, in Portuguese
    gap.refresh_from_db()
    assert Gap.objects.count() == 1 and (gap.status, gap.count) == (GapStatus.DISMISSED, 2)
    page = editor.get("/conversations/gaps/?status=dismissed", HTTP_ACCEPT_LANGUAGE="pt-br")
    assert f'id="gap-{gap.pk}"' in page.content.decode() and "Reabrir" in page.content.decode()

    editor.post(f"/conversations/gaps/{gap.pk}/reopen")
    gap.refresh_from_db()
    assert (gap.status, gap.count, gap.dismissed_by) == (GapStatus.OPEN, 2, "")
    assert AuditEntry.objects.filter(action="gap.reopened", target=f"gap:{gap.pk}").exists()


def test_the_api_dismisses_and_reopens_a_gap(licenses, django_user_model):
    ask(widget_user(licenses[0], "ana"), PHRASINGS[0][1])
    gap = Gap.objects.get()
    editor = staff(django_user_model, "knowledge_editor")
    url = f"/api/v1/knowledge-gaps/{gap.pk}"
    assert staff(django_user_model, "support").post(f"{url}/dismiss").status_code == 403

    dismissed = editor.post(f"{url}/dismiss")
    assert dismissed.status_code == 200, dismissed.content
    assert (dismissed.json()["status"], dismissed.json()["dismissed_by"]) == (
        "dismissed",
        "u-knowledge_editor",
    )
    again = editor.post(f"{url}/dismiss")
    assert again.status_code == 409 and "already dismissed" in again.json()["detail"]
    assert editor.get("/api/v1/knowledge-gaps").json() == []
    [row] = editor.get("/api/v1/knowledge-gaps", {"status": "dismissed"}).json()
    assert row["id"] == gap.pk and row["dismissed_at"]

    reopened = editor.post(f"{url}/reopen")
    assert reopened.status_code == 200 and reopened.json()["status"] == "open"
    assert editor.post(f"{url}/reopen").status_code == 409
    assert editor.post("/api/v1/knowledge-gaps/999999/dismiss").status_code == 404


def test_an_answered_gap_is_not_dismissed(licenses, django_user_model, celery_worker):
    editor = staff(django_user_model, "knowledge_editor")
    gap, _document = _answered(licenses, editor, "La contraseña es Girasol-2026.")
    refused = editor.post(f"/api/v1/knowledge-gaps/{gap.pk}/dismiss")
    assert refused.status_code == 409 and "change its answer" in refused.json()["detail"]


def test_a_dismissed_gap_goes_with_its_last_question(licenses, django_user_model):
    """Erasure (or retention) took every question it was made of: nothing is left to show."""
    ask(widget_user(licenses[0], "ana"), PHRASINGS[0][1])
    gap = Gap.objects.get()
    staff(django_user_model, "knowledge_editor").post(f"/api/v1/knowledge-gaps/{gap.pk}/dismiss")
    conversations_erase_user(license=licenses[0].license, user_ref="ana")
    assert not Gap.objects.exists()
