from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]


def test_chat_command_json(marta):
    out = StringIO()
    call_command(
        "chat", "¿A qué hora abre la piscina?", "--license", "sala-chat", "--json", stdout=out
    )
    payload = json.loads(out.getvalue())

    assert set(payload) == {"answer", "citations", "session_id", "answer_id"}
    assert payload["answer"].startswith("«") and "Modo sin conexión" in payload["answer"]


@pytest.mark.parametrize(
    ("question", "said"),
    [("", "Write a question."), ("   ", "Write a question."), ("a" * 4001, "4000 characters")],
)
def test_the_chat_command_refuses_what_the_api_refuses_in_the_same_words(marta, question, said):
    """An empty question read "Write something to search for."; one of 20,000 characters,
    which the API refuses, was answered."""
    with pytest.raises(CommandError, match=said):
        call_command("chat", question, "--license", "sala-chat", stdout=StringIO())
