"""manage.py invite EMAIL --role ROLE [--json] — an invitation link (mailed with SMTP set)."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.members import invitation_create
from accounts.roles import ROLES
from web.exceptions import ApplicationError


class Command(BaseCommand):
    help = (
        "Invite a colleague to the console with a role: prints a single-use link (valid "
        "INVITATION_DAYS) and mails it when the deployment has SMTP_HOST. Links start with "
        "PUBLIC_URL."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("email")
        parser.add_argument("--role", required=True, choices=list(ROLES))
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            sent = invitation_create(
                email=options["email"], role=options["role"], base_url=settings.PUBLIC_URL
            )
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        payload = {
            "email": sent.invitation.email,
            "role": sent.invitation.role,
            "url": sent.url,
            "expires_at": sent.invitation.expires_at.isoformat(),
            "mailed": sent.mailed,
            "mail_error": sent.mail_error,
        }
        if options["json"]:
            self.stdout.write(json.dumps(payload))
            return
        self.stdout.write(f"Invitation for {payload['email']} as {payload['role']}: {sent.url}")
        if sent.mailed:
            self.stdout.write("Mailed to them too.")
        elif sent.mail_error:
            self.stdout.write(f"The mail could not be sent ({sent.mail_error}): pass the link on.")
