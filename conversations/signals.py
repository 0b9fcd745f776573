"""What conversations tell the app above them (chat), which they may not import.

``conversations_erased`` is sent once an end user's conversations are erased: the chat
drops the session transcripts it keeps for that user."""

from __future__ import annotations

from django.dispatch import Signal

conversations_erased = Signal()  # sender, license_id, user_ref
