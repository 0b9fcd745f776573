"""The conversation's background work (Celery): memories proposed from a session."""

from __future__ import annotations

from celery import shared_task

from chat.session import session_transcript
from licenses.models import License
from memory.proposals import memories_propose_from_conversation
from memory.tasks import PROPOSALS_TASK_OPTIONS


# The message names the session and never holds what the user wrote: a broker's copy (Redis'
# queue, and its append-only file while no worker takes the message) would outlive the
# person's erasure and their session's end. The task reads the session when it runs; gone
# (expired, erased), there is nothing to propose from. Its result is a count, never words.
@shared_task(**PROPOSALS_TASK_OPTIONS)
def memories_propose_from_session_task(license_id: str, user_ref: str, session_id: str) -> int:
    license = License.objects.filter(pk=license_id).first()
    session = session_transcript(license_id=license_id, user_ref=user_ref, session_id=session_id)
    if license is None or session is None:
        return 0
    messages = [turn["text"] for turn in session.turns if turn["role"] == "user"][-10:]
    remembered = memories_propose_from_conversation(
        license=license, user_ref=user_ref, session_id=session_id, messages=messages
    )
    return len(remembered)
