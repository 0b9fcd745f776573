"""manage.py grant_role USERNAME ROLE — give a console account a role (owner,
knowledge_editor, support, privacy_officer); --revoke takes it away, --list shows who has
which."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.members import role_follows_provider
from accounts.roles import ROLES, role_grant, role_revoke, user_roles
from web.exceptions import ApplicationError


class Command(BaseCommand):
    help = "Give a console account a role: " + ", ".join(ROLES) + "."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username", nargs="?")
        parser.add_argument("role", nargs="?", choices=list(ROLES))
        parser.add_argument("--revoke", action="store_true", help="take the role away")
        parser.add_argument("--list", action="store_true", help="every staff account's roles")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["list"]:
            for user in get_user_model().objects.filter(is_staff=True).order_by("username"):
                roles = ", ".join(user_roles(user)) or "no role (cannot use the console)"
                self.stdout.write(f"{user.get_username()}: {roles}")
            return
        if not (options["username"] and options["role"]):
            raise CommandError("Name an account and a role, e.g. grant_role ana support.")
        change = role_revoke if options["revoke"] else role_grant
        try:
            demoted = change(username=options["username"], role=options["role"])
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        verb = "no longer has" if options["revoke"] else "now has"
        self.stdout.write(f"{options['username']} {verb} the role {options['role']}.")
        user = get_user_model().objects.get(username=options["username"])
        if role_follows_provider(user):
            self.stdout.write(
                f"{options['username']} signs in with single sign-on: their groups at the "
                "identity provider set their role again at their next sign-in."
            )
        if demoted:
            self.stdout.write(
                f"{options['username']} was a superuser (every permission); it is not one "
                f"any more, so the role {options['role']} is what it may do."
            )
