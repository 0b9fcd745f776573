from __future__ import annotations

from django.apps import AppConfig

from datastores.erasures import replayer


class MemoryConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "memory"

    def ready(self) -> None:
        replayer("memory", forget_memory_again)


def forget_memory_again(memory_id: str) -> bool:
    """A restore's replay of the erasure journal: the memory, if the backup had it."""
    # Models and services load after the app registry: imported when a restore replays.
    from memory.models import Memory
    from memory.services import memory_forget

    memory = Memory.objects.filter(pk=memory_id).first()
    if memory is not None:
        memory_forget(memory=memory, actor="restore: erasure journal")
    return memory is not None
