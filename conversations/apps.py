from __future__ import annotations

from django.apps import AppConfig

from datastores.erasures import replayer


class ConversationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "conversations"

    def ready(self) -> None:
        from conversations import receivers  # noqa: F401 - connects the forgetting receivers

        replayer("conversation", erase_conversation_again)


def erase_conversation_again(conversation_id: str) -> bool:
    """A restore's replay of the erasure journal: the conversation, if the backup had it."""
    # Models, and what imports them, load once the app registry is ready.
    from conversations.services import conversation_erase_again

    return conversation_erase_again(conversation_id)
