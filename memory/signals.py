"""What memory tells the apps above it, which it may not import.

``memory_forgotten`` is sent once a memory's forgetting has committed, with its license,
user and text: the chat scrubs the session turns that said it."""

from __future__ import annotations

from django.dispatch import Signal

memory_forgotten = Signal()  # sender, license_id, user_ref, description
