"""Every request has an id — the client's or nginx's X-Request-ID when it is a valid UUID,
else a new one — answered in the response, written in every log line, and carried into the
Celery tasks it queues (their log lines have it too)."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
import time
import uuid

import pytest
from django_guid import clear_guid, set_guid

from knowledge.models import Document
from tests.conftest import ROOT, worker_env
from tests.factories import make_document

pytestmark = pytest.mark.django_db


@pytest.mark.slow  # over a second on its own (make test-fast leaves it out)
def test_a_request_answers_with_its_id_and_refuses_a_forged_one(client):
    mine = uuid.uuid4().hex
    assert client.get("/healthz", HTTP_X_REQUEST_ID=mine)["X-Request-ID"] == mine
    made_up = client.get("/healthz", HTTP_X_REQUEST_ID="<script>")["X-Request-ID"]
    assert made_up != "<script>" and uuid.UUID(made_up)
    assert uuid.UUID(client.get("/healthz")["X-Request-ID"])  # none sent: one is made


def test_log_lines_carry_the_request_id(settings):
    handler = logging.getLogger().handlers[0]
    stream, handler.stream = handler.stream, io.StringIO()
    try:
        set_guid("7f0c3c4e9a5b4c1d8e2f3a4b5c6d7e8f")
        logging.getLogger("portality.test").warning("something worth knowing")
    finally:
        written, handler.stream = handler.stream.getvalue(), stream
        clear_guid()
    assert "[7f0c3c4e9a5b4c1d8e2f3a4b5c6d7e8f]: something worth knowing" in written
    handler.stream = io.StringIO()
    try:
        logging.getLogger("portality.test").warning("outside any request")
    finally:
        outside, handler.stream = handler.stream.getvalue(), stream
    assert "[-]: outside any request" in outside


@pytest.mark.process
@pytest.mark.django_db(transaction=True)
def test_the_tasks_a_request_queues_log_with_its_id_as_json(tmp_path):
    log = tmp_path / "worker.log"
    command = [sys.executable, "-m", "celery", "-A", "portality", "worker", "--loglevel=INFO",
               "--concurrency=1", "--hostname=guid@%h", "--without-gossip", "--without-mingle",
               "--queues=guid"]  # fmt: skip
    with open(log, "w") as output:
        worker = subprocess.Popen(
            command, cwd=ROOT, env=worker_env(LOG_FORMAT="json"), stdout=output,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        make_document("# Piscina\n\nLa piscina abre a las ocho.", filename="p.md", ingest=False)
        from knowledge.tasks import document_ingest_task

        request_id = uuid.uuid4().hex
        set_guid(request_id)  # as the middleware does for a request
        try:
            document_id = str(Document.objects.get().pk)
            document_ingest_task.apply_async([document_id], queue="guid").get(timeout=90)
        finally:
            clear_guid()
        deadline, lines = time.monotonic() + 10, []
        while time.monotonic() < deadline and not any("chunks" in line for line in lines):
            lines = log.read_text().splitlines()
            time.sleep(0.2)
    finally:
        worker.terminate()
        worker.wait(30)
    records = [json.loads(line) for line in lines if line.startswith("{")]
    ingested = [r for r in records if r.get("logger") == "knowledge.tasks"]
    assert ingested and ingested[0]["request_id"] == request_id, lines[-20:]
    assert ingested[0]["message"].endswith("ready: 1 chunks")
