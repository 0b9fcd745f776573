from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from accounts.audit import audit_verify
from accounts.models import AuditEntry


class Command(BaseCommand):
    help = (
        "Check the audit trail's digest chain: exit 0 when it is whole, else non-zero naming "
        "the first entry that was edited or follows a removed one."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        broken = audit_verify()
        if broken is not None:
            raise CommandError(
                f"The audit trail is broken at entry {broken.entry_id}: {broken.reason}."
            )
        count = AuditEntry.objects.count()
        self.stdout.write(f"The audit trail is whole: {count} entries.")
