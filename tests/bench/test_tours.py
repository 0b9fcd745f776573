"""The tours' questions asked again (not part of `make test`): each conversation of
tests/bench/tours.json asked of its test documents (tests/data/documents) with the offline
answerer, one session per conversation, and the answers compared with those recorded in
tests/bench/tours-answers.txt, so that a change to the answerer shows every answer it moves.

    .venv/bin/pytest tests/bench/test_tours.py                  # differs: the diff, failed
    TOURS_RECORD=1 .venv/bin/pytest tests/bench/test_tours.py   # the answers, recorded

A moved answer is not a failure of the product: read the diff, and record it when every
change is one you meant."""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path

import pytest

from chat.extractive import ExtractiveLLM
from chat.services import chat_answer
from licenses.principals import principal_for_license
from tests.conftest import forget_prepared_statements
from tests.factories import make_license_holding

HERE = Path(__file__).resolve().parent
TOURS = HERE / "tours.json"
RECORDED = HERE / "tours-answers.txt"

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root")]


def asked_again(conversations: list[dict]) -> str:
    """Every turn's question and answer, in order, as the record writes them."""
    principals = {}
    said = []
    for conversation in conversations:
        files = tuple(conversation["files"])
        if files not in principals:
            principals[files] = principal_for_license(make_license_holding(*files))
        session_id = None
        for question in conversation["asked"]:
            turn = chat_answer(
                principal=principals[files],
                question=question,
                session_id=session_id,
                user_ref="tourist",
                llm=ExtractiveLLM(),
            )
            session_id = turn.session_id
            said.append(f"### {', '.join(files)} :: {question}\n{turn.answer.strip()}\n")
    return "\n".join(said)


def test_the_tours_are_answered_as_recorded():
    answers = asked_again(json.loads(TOURS.read_text(encoding="utf-8")))
    forget_prepared_statements()
    if os.environ.get("TOURS_RECORD"):
        RECORDED.write_text(answers, encoding="utf-8")
        return
    recorded = RECORDED.read_text(encoding="utf-8")
    moved = difflib.unified_diff(
        recorded.splitlines(), answers.splitlines(), "recorded", "now", lineterm=""
    )
    assert answers == recorded, "\n".join(moved)
