"""The newcomer's finding: on a fresh install the demo page's example questions had nothing
behind them. make run gives the demo license a sample handbook, once."""

from __future__ import annotations

import pytest
import redis
from django.conf import settings

from knowledge import ingestion
from knowledge.forgetting import document_forget
from knowledge.models import Document
from licenses.models import DEMO_MACHINE_ID
from licenses.services import license_forge
from runtime import runner

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]


def test_the_demo_license_gets_the_sample_handbook_once(tmp_path):
    license_forge(user_name="Demo", machine_id=DEMO_MACHINE_ID)
    assert runner.DEMO_MACHINE_ID == DEMO_MACHINE_ID
    try:
        assert runner.demo_sample_add(tmp_path)
    finally:  # queued for make run's worker; this test has none
        redis.Redis.from_url(settings.REDIS_URL).delete(settings.CELERY_TASK_DEFAULT_QUEUE)
    sample = Document.objects.get(license__machine_id=DEMO_MACHINE_ID)
    assert sample.filename == "sample-handbook.md" and sample.status == "queued"
    ingestion.document_ingest(document_id=sample.pk)  # as the worker does
    assert sample.chunks.filter(content__contains="piscina").exists()

    document_forget(document=sample)
    assert not runner.demo_sample_add(tmp_path)  # forgotten stays forgotten
    assert not Document.objects.exists()
