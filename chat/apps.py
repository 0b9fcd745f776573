from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.utils.translation import pgettext_lazy


class ChatConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "chat"

    def ready(self) -> None:
        # Models, and what imports them, load once the app registry is ready.
        from chat import (
            cors,  # noqa: F401 - the widget's allowed origins, for django-cors-headers
            receivers,  # noqa: F401 - connects the forgetting receivers
        )

        name_audit_values()


def name_audit_values() -> None:
    """The audit page names the settings an assistant or provider change touched, and what
    became of a provider's key, in the reader's language."""
    # Models, and what imports them, load once the app registry is ready.
    from accounts.audit_labels import audit_value_labels
    from chat.forms import ProviderForm
    from chat.models import Assistant

    fields: dict[str, Any] = {f.name: f.verbose_name for f in Assistant._meta.concrete_fields}
    fields |= {name: field.label for name, field in ProviderForm.base_fields.items()}
    audit_value_labels("fields", fields)
    key_change = {
        "changed": pgettext_lazy("audit value", "changed"),
        "removed": pgettext_lazy("audit value", "removed"),
    }
    for key in ("gemini_key", "openai_key"):
        audit_value_labels(key, key_change)
