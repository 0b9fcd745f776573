"""👍/👎 on an answer, the review queue with verdicts and causes, and the insights."""

from __future__ import annotations

import re
from uuid import UUID

import pytest

from conversations.models import Exchange
from conversations.selectors import insights
from conversations.services import conversations_erase_user
from knowledge.models import SearchLog
from licenses.services import license_forge
from tests.conversations.support import ask, staff, widget_user
from tests.factories import make_document

pytestmark = [pytest.mark.django_db]


def test_a_thumbs_down_reaches_the_queue_and_a_verdict_moves_the_figures(sala, django_user_model):
    ana = widget_user(sala, "ana")
    first = ask(ana, "¿A qué hora abre la piscina?")
    second = ask(ana, "¿La piscina abre temprano?")
    assert first["citations"] and first["answer_id"]

    assert insights(license=sala.license).up_share is None
    charts = staff(django_user_model, "support", "viewer").get("/conversations/insights/")
    charts = charts.content.decode()
    assert "No ratings in these 30 days." in charts  # asked, not rated: not "no questions"
    assert "No questions in these 30 days." not in charts
    down = ana.post(
        "/api/v1/feedback",
        {"answer_id": first["answer_id"], "rating": "down", "reason": "outdated",
         "comment": "Ahora abre a las nueve; escríbeme a ana@example.com"},
        format="json",
    )  # fmt: skip
    assert down.status_code == 200, down.content
    assert insights(license=sala.license).up_share == 0.0
    up = ana.post(
        "/api/v1/feedback", {"answer_id": second["answer_id"], "rating": "up"}, format="json"
    )
    assert up.status_code == 200
    assert insights(license=sala.license).up_share == 0.5

    support = staff(django_user_model, "support")
    queue = support.get("/api/v1/conversations", {"rating": "down"}).json()
    assert queue["count"] == 1
    [row] = queue["results"]
    assert row["answer_id"] == first["answer_id"] and row["reason"] == "outdated"
    assert row["sources"] == ["piscina.md"]
    assert "ana@example.com" not in row["comment"] and "[EMAIL]" in row["comment"]

    page = support.get(f"/conversations/{row['conversation_id']}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "piscina.md" in html and "/knowledge/chunks/" in html  # citations open their passage
    # No verdict is chosen for the reviewer (the form said "correct" before any review).
    assert 'name="verdict" required><option value="" selected>' in html
    assert not re.search(r'<option value="\w+" selected>', html)
    unchosen = support.post(f"/conversations/answers/{first['answer_id']}/review", {"verdict": ""})
    assert unchosen.status_code == 302
    assert Exchange.objects.get(pk=first["answer_id"]).verdict == ""

    reviewed = support.post(
        f"/api/v1/answers/{first['answer_id']}/review",
        {"verdict": "wrong", "cause": "knowledge_wrong", "comment": "El horario cambió."},
        format="json",
    )
    assert reviewed.status_code == 200, reviewed.content
    exchange = Exchange.objects.get(pk=first["answer_id"])
    assert (exchange.verdict, exchange.cause, exchange.reviewed_by) == (
        "wrong", "knowledge_wrong", "u-support",
    )  # fmt: skip
    assert support.get("/api/v1/conversations", {"reviewed": "no"}).json()["count"] == 1
    assert support.get("/api/v1/conversations", {"reviewed": "yes"}).json()["count"] == 1


def test_a_fault_needs_its_cause(sala, django_user_model):
    answer = ask(widget_user(sala, "ana"), "¿A qué hora abre la piscina?")
    support = staff(django_user_model, "support")
    refused = support.post(
        f"/api/v1/answers/{answer['answer_id']}/review", {"verdict": "incomplete"}, format="json"
    )
    assert refused.status_code == 400
    assert "cause" in refused.json()["detail"]


def test_a_reviewer_sees_what_a_search_for_the_question_finds_now(sala, django_user_model):
    other = license_forge(user_name="Otra", machine_id="otra-conv").license
    make_document("# Piscina\n\nLa piscina de la otra sala abre a las siete.", license=other)
    answer = ask(widget_user(sala, "ana"), "¿A qué hora abre la piscina?")
    exchange = Exchange.objects.get(pk=answer["answer_id"])
    search = f"/conversations/answers/{exchange.pk}/search"

    support = staff(django_user_model, "support")
    transcript = support.get(f"/conversations/{exchange.conversation_id}/").content.decode()
    assert f'hx-get="{search}"' in transcript
    found = support.get(search, headers={"HX-Request": "true"})
    assert found.status_code == 200
    html = found.content.decode()
    assert "<html" not in html  # the partial, into the transcript
    assert "piscina.md" in html and "a las ocho" in html
    assert "la otra sala" not in html  # the answer's scope, never another license's
    assert "<html" in support.get(search).content.decode()  # without htmx: a page

    # The access is logged as the reviewer's, linked to the answer, without the words
    # (the answer keeps them): the person's erasure reaches it.
    logs = SearchLog.objects.filter(actor="admin:u-support")
    assert {(log.exchange_id, log.query, log.license_id) for log in logs} == {
        (exchange.pk, "", sala.license.pk)
    } and len(logs) == 2
    conversations_erase_user(license=sala.license, user_ref="ana")
    assert SearchLog.objects.filter(exchange_id=exchange.pk).count() == 0

    # Reading conversations is not enough: the passages are the knowledge's.
    officer = staff(django_user_model, "privacy_officer")
    assert "finds now" not in officer.get("/conversations/").content.decode()
    assert officer.get(search).status_code == 403
    assert officer.get(f"/api/v1/answers/{exchange.pk}/search").status_code == 403


def test_the_api_searches_an_answers_question_again(sala, django_user_model):
    answer = ask(widget_user(sala, "ana"), "¿A qué hora abre la piscina?")
    support = staff(django_user_model, "support")
    found = support.get(f"/api/v1/answers/{answer['answer_id']}/search")
    assert found.status_code == 200, found.content
    body = found.json()
    assert (body["scope"], body["query"]) == ("sala-conv", "¿A qué hora abre la piscina?")
    assert [r["filename"] for r in body["results"]] == ["piscina.md"] and body["cut"] == []
    assert SearchLog.objects.get(actor="admin:u-support").exchange_id == UUID(answer["answer_id"])
    missing = support.get("/api/v1/answers/00000000-0000-0000-0000-000000000000/search")
    assert missing.status_code == 404

    Exchange.objects.filter(pk=answer["answer_id"]).update(question="")
    unkept = support.get(f"/api/v1/answers/{answer['answer_id']}/search")
    assert unkept.status_code == 409 and "not kept" in unkept.json()["detail"]


def test_a_question_whose_words_were_not_kept_is_not_searched_again(sala, django_user_model):
    answer = ask(widget_user(sala, "ana"), "¿A qué hora abre la piscina?")
    Exchange.objects.filter(pk=answer["answer_id"]).update(question="")
    support = staff(django_user_model, "support")
    conversation = Exchange.objects.get().conversation_id
    assert "finds now" not in support.get(f"/conversations/{conversation}/").content.decode()
    page = support.get(f"/conversations/answers/{answer['answer_id']}/search")
    assert "This question&#x27;s words were not kept." in page.content.decode()
    assert not SearchLog.objects.filter(actor="admin:u-support").exists()


def test_only_the_user_who_was_answered_may_rate_it(sala):
    answer = ask(widget_user(sala, "ana"), "¿A qué hora abre la piscina?")
    other = widget_user(sala, "bruno").post(
        "/api/v1/feedback", {"answer_id": answer["answer_id"], "rating": "down"}, format="json"
    )
    assert other.status_code == 404
    assert not Exchange.objects.exclude(rating="").exists()


def test_a_reason_goes_with_a_thumbs_down_only(sala):
    answer = ask(widget_user(sala, "ana"), "¿A qué hora abre la piscina?")
    refused = widget_user(sala, "ana").post(
        "/api/v1/feedback",
        {"answer_id": answer["answer_id"], "rating": "up", "reason": "wrong"},
        format="json",
    )
    assert refused.status_code == 400


def test_the_stream_ends_with_the_answer_id_and_safe_html(sala):
    client = widget_user(sala, "ana")
    response = client.post(
        "/api/v1/chat/stream", {"message": "¿A qué hora abre la piscina?"}, format="json"
    )
    body = b"".join(response.streaming_content).decode()
    done = body.split("event: done\ndata: ")[1]
    assert '"answer_id": "' in done and '"html": "<p>' in done
    exchange = Exchange.objects.get()
    assert str(exchange.pk) in done
    # the widget shows 👍/👎 on a reloaded conversation too
    session = client.get("/api/v1/chat/session", {"session_id": exchange.conversation.session_id})
    model_turn = session.json()["turns"][1]
    assert model_turn["answer_id"] == str(exchange.pk) and model_turn["html"].startswith("<p>")


def test_the_dashboard_says_what_users_asked_and_leads_each_role_to_what_it_may_fix(
    sala, django_user_model
):
    ana = widget_user(sala, "ana")
    answered = ask(ana, "¿A qué hora abre la piscina?")
    ask(ana, "¿Cuál es la contraseña del wifi?")
    ana.post("/api/v1/feedback", {"answer_id": answered["answer_id"], "rating": "down"})

    support = staff(django_user_model, "support").get("/", HTTP_ACCEPT_LANGUAGE="es")
    page = support.content.decode()
    figures = re.search(r'id="asked-figures">([^<]*)<', page)
    assert figures and " ".join(figures[1].split()) == (
        "Preguntas: 2 · respondidas «sin información»: 1 · valoradas como no útiles: 1 · "
        "lagunas de conocimiento abiertas: 2"  # the 👎 is a gap too
    )
    assert 'href="/conversations/?rating=down"' in page
    assert 'href="/conversations/gaps/"' not in page  # support does not see gaps

    editor = staff(django_user_model, "knowledge_editor").get("/").content.decode()
    assert 'href="/conversations/gaps/"' in editor and "?rating=down" not in editor
