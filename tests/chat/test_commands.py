from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]


def test_chat_command_json(marta):
    out = StringIO()
    call_command(
        "chat", "¿A qué hora abre la piscina?", "--license", "sala-chat", "--json", stdout=out
    )
    payload = json.loads(out.getvalue())

    assert set(payload) == {"answer", "citations", "session_id", "answer_id"}
    assert payload["answer"].startswith("«") and "Modo sin conexión" in payload["answer"]
