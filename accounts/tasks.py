from __future__ import annotations

from celery import shared_task

from accounts.audit import audit_purge


@shared_task(name="accounts.tasks.audit_purge_task")
def audit_purge_task() -> int:
    """Celery beat, daily: audit entries past AUDIT_RETENTION_DAYS go, oldest first."""
    return audit_purge()
