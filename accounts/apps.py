from __future__ import annotations

from django.apps import AppConfig
from django.db.models.signals import post_migrate


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"

    def ready(self) -> None:
        # Models, and what imports them, load once the app registry is ready.
        from accounts import receivers  # noqa: F401 - sign-ins reach the audit trail
        from accounts.roles import roles_ensure

        # The roles' permissions, brought up to date after every migrate (idempotent). Once
        # a migrate: roles_ensure creates every app's permissions itself first.
        post_migrate.connect(roles_ensure, sender=self, dispatch_uid="portality-roles")
