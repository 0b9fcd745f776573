from __future__ import annotations

from portality import checks  # noqa: F401 - registers the settings' system checks
from portality.celery import app as celery_app

__all__ = ("celery_app",)
