"""What knowledge tells the apps above it, which it may not import.

``passages_forgotten`` is sent once a forgetting has committed, with the ids of the chunks
that are gone: copies of their text kept elsewhere (the chat's session transcripts) are
scrubbed by whoever keeps them."""

from __future__ import annotations

from django.dispatch import Signal

passages_forgotten = Signal()  # sender, chunk_ids: list[int]
