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
        assert set(body) == {"answer", "citations", "session_id", "answer_id", "answer_html"}
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


@pytest.mark.django_db(transaction=True)
def test_under_asgi_the_stream_is_sent_event_by_event(marta):
    # Django gathers a plain iterator whole before sending it under ASGI (the server make run
    # uses): the answer would arrive all at once at its end. The events come from an async
    # iterator there, each fetched in the request's thread.
    import asyncio

    from asgiref.sync import sync_to_async
    from django.db import connections
    from django.test import AsyncClient

    async def stream():
        response = await AsyncClient().post(
            "/api/v1/chat/stream",
            {"message": "¿A qué hora abre la piscina?"},
            content_type="application/json",
            headers={"Authorization": f"Bearer {marta.key}"},
        )
        assert response.is_async and response["Content-Type"] == "text/event-stream"
        parts = [part async for part in response.streaming_content]
        # The test client runs sync code in asgiref's one shared thread (the real handler
        # gives each request its own): close that thread's connection before teardown.
        await sync_to_async(connections.close_all)()
        return parts

    parts = asyncio.run(stream())
    names = [part.decode().split("\n")[0].removeprefix("event: ") for part in parts]
    assert names[-2:] == ["citations", "done"] and set(names[:-2]) == {"delta"}
