from __future__ import annotations

import pytest

from portality.celery import ping_task


@pytest.mark.django_db(transaction=True)
def test_round_trip_through_a_real_worker(celery_worker):
    result = ping_task.delay(41)

    assert result.get(timeout=30) == 42


def test_celery_is_configured_for_safe_redelivery():
    from portality.celery import app

    assert app.conf.task_acks_late is True
    assert app.conf.task_reject_on_worker_lost is True
    assert app.conf.worker_prefetch_multiplier == 1
    assert app.conf.accept_content == ["json"]
