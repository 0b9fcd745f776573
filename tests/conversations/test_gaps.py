"""Knowledge gaps, end to end through the widget's API with the real multilingual embedder:
one unanswered question asked three ways in three languages by two end users is one gap; a
knowledge editor's answer for that license closes it and answers a fourth phrasing, cited
as the organisation's answer; the other license still has no information."""

from __future__ import annotations

import pytest

from chat.texts import NO_INFORMATION
from conversations.models import Exchange, Gap, GapStatus
from knowledge.models import Document, DocumentStatus, SourceType
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


def test_a_question_answered_with_confidence_is_no_gap(licenses):
    first, _other = licenses
    body = ask(widget_user(first, "ana"), "¿A qué hora abre la piscina?")
    assert "ocho" in body["answer"]
    assert not Gap.objects.exists()
