from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from licenses.services import license_revoke

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]


class TestApi:
    def client(self, key):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
        return client

    def test_chat_returns_answer_citations_and_session(self, marta):
        response = self.client(marta.key).post(
            "/api/v1/chat", {"message": "¿A qué hora abre la piscina?"}, format="json"
        )

        assert response.status_code == 200
        body = response.json()
        assert set(body) == {"answer", "citations", "session_id"}
        assert body["citations"][0]["document"] == "piscina.md"
        assert set(body["citations"][0]) >= {"document", "page", "chunk_id", "score"}

    def test_stream_sends_deltas_then_citations_then_done(self, marta):
        response = self.client(marta.key).post(
            "/api/v1/chat/stream", {"message": "¿A qué hora abre la piscina?"}, format="json"
        )

        assert response["Content-Type"] == "text/event-stream"
        events = [
            block.split("\n")
            for block in b"".join(response.streaming_content).decode().strip().split("\n\n")
        ]
        names = [lines[0].removeprefix("event: ") for lines in events]
        assert names[-2:] == ["citations", "done"] and set(names[:-2]) == {"delta"}
        assert json.loads(events[-1][1].removeprefix("data: "))["session_id"]

    def test_revoked_license_gets_401(self, marta):
        license_revoke(license=marta.license)
        response = self.client(marta.key).post("/api/v1/chat", {"message": "hola"}, format="json")

        assert response.status_code == 401 and "revoked" in response.json()["detail"]

    def test_empty_message_is_a_400(self, marta):
        assert (
            self.client(marta.key).post("/api/v1/chat", {"message": ""}, format="json").status_code
            == 400
        )
