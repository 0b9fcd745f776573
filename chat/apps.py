from __future__ import annotations

from django.apps import AppConfig


class ChatConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "chat"

    def ready(self) -> None:
        # Models, and what imports them, load once the app registry is ready.
        from chat import (
            cors,  # noqa: F401 - the widget's allowed origins, for django-cors-headers
            receivers,  # noqa: F401 - connects the forgetting receivers
        )
