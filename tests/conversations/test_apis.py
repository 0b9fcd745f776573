"""The interfaces the outside checks use: OpenAPI tags, answer_id, exports."""

from __future__ import annotations

import csv
import io
import json

import pytest
from rest_framework.test import APIClient

from tests.conversations.support import ask, staff, widget_user

pytestmark = [pytest.mark.django_db]


def _operations(schema: dict, tag: str) -> dict[tuple[str, str], dict]:
    return {
        (method, path): operation
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
        if tag in operation.get("tags", [])
    }


def test_the_schema_has_the_feedback_conversations_and_gap_tags():
    schema = json.loads(APIClient().get("/api/schema/", HTTP_ACCEPT="application/json").content)
    feedback = _operations(schema, "feedback")
    assert ("post", "/api/v1/feedback") in feedback
    body = feedback[("post", "/api/v1/feedback")]["requestBody"]["content"]["application/json"]
    reference = body["schema"]["$ref"].rsplit("/", 1)[1]
    assert {"answer_id", "rating", "reason", "comment"} <= set(
        schema["components"]["schemas"][reference]["properties"]
    )
    conversations = _operations(schema, "conversations")
    assert ("get", "/api/v1/conversations") in conversations
    assert ("get", "/api/v1/conversations/{id}") in conversations
    gaps = _operations(schema, "knowledge-gaps")
    assert ("get", "/api/v1/knowledge-gaps") in gaps
    answer = gaps[("post", "/api/v1/knowledge-gaps/{id}/answer")]["requestBody"]
    reference = answer["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert {"answer", "license"} <= set(schema["components"]["schemas"][reference]["properties"])
    chat = schema["components"]["schemas"]["ChatOutput"]["properties"]
    assert "answer_id" in chat


def test_the_license_key_rates_for_the_user_it_names(sala):
    backend = APIClient()
    backend.credentials(HTTP_AUTHORIZATION=f"Bearer {sala.key}")
    answer = backend.post(
        "/api/v1/chat", {"message": "¿A qué hora abre la piscina?", "user": "u7"}, format="json"
    ).json()
    rated = backend.post(
        "/api/v1/feedback",
        {"answer_id": answer["answer_id"], "rating": "down", "reason": "not_asked", "user": "u7"},
        format="json",
    )
    assert rated.status_code == 200, rated.content
    wrong_user = backend.post(
        "/api/v1/feedback",
        {"answer_id": answer["answer_id"], "rating": "up", "user": "u8"},
        format="json",
    )
    assert wrong_user.status_code == 404


def test_a_csv_export_never_hands_a_spreadsheet_a_formula(sala, django_user_model):
    ask(widget_user(sala, "ana"), '=HYPERLINK("http://evil.example","piscina") ¿abre?')
    support = staff(django_user_model, "support")
    response = support.get("/api/v1/conversations/export", {"as": "csv"})
    assert response["Content-Type"].startswith("text/csv")
    rows = list(
        csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig")))
    )
    assert rows[0]["question"].startswith("'=HYPERLINK")
    as_json = json.loads(support.get("/api/v1/conversations/export", {"as": "json"}).content)
    assert as_json[0]["question"].startswith("=HYPERLINK")  # JSON is data, kept as said
    page = support.get("/conversations/", {"as": "csv"})
    assert page.status_code == 200 and page["Content-Disposition"].endswith('.csv"')


def test_bad_filters_are_refused_with_a_sentence(django_user_model):
    support = staff(django_user_model, "support")
    response = support.get("/api/v1/conversations", {"since": "yesterday", "license": "nope"})
    assert response.status_code in (400, 404)
    assert response.json()["detail"]


def test_a_page_past_any_number_the_database_takes_is_a_400(django_user_model):
    # Found by the fuzzer as a support member: an offset over PostgreSQL's bigint was a 500.
    support = staff(django_user_model, "support")
    response = support.get("/api/v1/conversations", {"offset": 6 * 10**27})
    assert response.status_code == 400 and response.json()["detail"].startswith("offset:")
    assert support.get("/api/v1/conversations", {"offset": 2**31 - 1}).json()["results"] == []
