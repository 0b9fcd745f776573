from __future__ import annotations

from django.apps import AppConfig


class ChatConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "chat"

    def ready(self) -> None:
        from chat import (
            cors,  # noqa: F401 - the widget's allowed origins, for django-cors-headers
            receivers,  # noqa: F401 - connects the forgetting receivers
        )
