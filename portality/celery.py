"""The Celery app. Configuration lives in settings (CELERY_* names); tasks in each app's tasks.py."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portality.settings")

app = Celery("portality")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="portality.ping")
def ping_task(value: int) -> int:
    """Round trip used by tests and operators to prove a worker consumes and answers."""
    return value + 1
