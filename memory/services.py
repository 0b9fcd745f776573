"""Memory writes (seed 004 §4.6–4.7, §7.2): validate, save or update, use, decay, forget.

Every decision is an event. Rejections are recorded with their reason, never dropped in
silence. Forgetting is real: the row and its vector go, and the events that mentioned it
keep only what happened, when and by whom.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from accounts.audit import audit_record, person_pseudonym
from datastores.erasures import erasure_record
from datastores.locks import transaction_lock
from knowledge.search import vector_index
from licenses.models import License
from memory.models import (
    NO_CONSENT_REASON,
    Memory,
    MemoryConsent,
    MemoryEvent,
    MemoryEventKind,
    MemorySource,
    MemoryType,
)
from memory.screening import forbidden_category, forbidden_together
from memory.signals import memory_forgotten
from text.lines import one_line
from web.exceptions import ApplicationError, translate_message

logger = logging.getLogger(__name__)

MAX_ACTIVE_PER_USER = 50
MIN_CONFIDENCE = 0.6
NEAR_DUPLICATE_SIMILARITY = 0.92  # e5 cosine: paraphrases of one preference score above it
RELEVANT_SIMILARITY = 0.80
PROMPT_LIMIT = 5
DECAY_AFTER = timedelta(days=90)
DECAY_STEP = 0.1
DEACTIVATE_BELOW = 0.3

# Why a proposal was refused, by code (MemoryRejected.code): the chat words each one in the
# user's language; the audit trail keeps the English reason.
# The figures some refusal reasons name; reasons are stored as templates (see event_reason).
REFUSAL_PARAMS = {"min_confidence": MIN_CONFIDENCE, "limit": MAX_ACTIVE_PER_USER}


def event_reason(reason: str) -> str:
    """An event's reason in the active language. Reasons are stored as English msgids
    (marked with gettext_noop where they are written), some naming the refusal figures;
    free text passes unchanged."""
    if "%(" in reason:
        return translate_message(reason, REFUSAL_PARAMS)
    return gettext(reason) if reason else ""


REFUSAL_REASONS = {
    # English msgids: the audit trail stores them, the console and the API translate them.
    "no_consent": NO_CONSENT_REASON,
    "low_confidence": gettext_noop("its confidence is under %(min_confidence)s"),
    "limit": gettext_noop("the limit of %(limit)s memories is reached"),
    "personal_data": gettext_noop(
        "it contains personal data (identity numbers, addresses, phone, e-mail, cards, accounts "
        "or passwords)"
    ),
    "health": gettext_noop("memories may not hold health data"),
    "sensitive": gettext_noop(
        "memories may not hold sensitive data (sexual orientation, religion, politics, union "
        "membership, ethnicity, criminal records or violence suffered)"
    ),
    "financial": gettext_noop("memories may not hold financial data"),
    "other_people": gettext_noop("memories may not hold opinions about other people"),
    "scores": gettext_noop("memories may not hold scores or ratings of the user"),
    "instructions": gettext_noop("memories may not hold instructions for the assistant"),
}


class MemoryRejected(ApplicationError):
    """A proposal that failed validation; the reason was recorded as an event."""

    def __init__(self, code: str) -> None:
        super().__init__(
            gettext_noop("Not remembered: %(t_reason)s."),
            params={"t_reason": REFUSAL_REASONS[code], **REFUSAL_PARAMS},
            extra={"code": code},
        )
        self.code = code


@dataclass(frozen=True)
class Proposal:
    memory_type: str
    description: str
    confidence: float
    source: str
    source_reference: str = ""
    source_message: str = ""
    expires_at: datetime | None = None
    language: str | None = None  # the language the user asked in, when the words say so


def _event(
    license: License,
    user_ref: str,
    kind: str,
    actor: str,
    *,
    memory: Memory | None = None,
    reason: str = "",
    detail: dict[str, Any] | None = None,
) -> None:
    MemoryEvent.objects.create(
        memory_id=memory.pk if memory else None,
        license=license,
        user_ref=user_ref,
        kind=kind,
        actor=actor[:150],
        reason=reason[:200],
        detail=detail or {},
    )


def _memory_event(
    memory: Memory, kind: str, actor: str, *, reason: str = "", detail: dict[str, Any] | None = None
) -> None:
    _event(
        memory.license, memory.user_ref, kind, actor, memory=memory, reason=reason, detail=detail
    )


def _rewrite(
    memory: Memory, description: str, vector: list[float], model: str, actor: str, reason: str
) -> Memory:
    """New text (and its vector) for an existing memory, recorded as an update."""
    memory.description = description[:500]
    memory.embedding, memory.embedding_model = vector, model
    memory.save(force_update=True)  # never an insert: a forgotten memory does not come back
    _memory_event(
        memory,
        MemoryEventKind.UPDATED,
        actor,
        reason=reason,
        detail={"description": memory.description},
    )
    return memory


def _reject(
    license: License, user_ref: str, actor: str, code: str, proposal: Proposal
) -> MemoryRejected:
    # The rejected text is not kept: it may be exactly what must not be stored.
    _event(
        license,
        user_ref,
        MemoryEventKind.REJECTED,
        actor,
        reason=REFUSAL_REASONS[code],
        detail={"source": proposal.source, "memory_type": proposal.memory_type},
    )
    return MemoryRejected(code)


# -- consent -----------------------------------------------------------------------------------


def consent_given(*, license: License, user_ref: str) -> bool:
    return MemoryConsent.objects.filter(license=license, user_ref=user_ref, given=True).exists()


def memory_consent_set(
    *, license: License, user_ref: str, given: bool, actor: str
) -> MemoryConsent:
    with transaction.atomic():
        # A memory being written as the user withdraws is written first, then forgotten
        # with the rest; or it waits, and finds the consent gone.
        _in_turn(license.pk, user_ref)
        consent, _ = MemoryConsent.objects.get_or_create(license=license, user_ref=user_ref)
        now = timezone.now()
        if given:
            consent.given, consent.given_at, consent.withdrawn_at = True, now, None
            _event(license, user_ref, MemoryEventKind.CONSENT_GIVEN, actor)
        else:
            consent.given, consent.withdrawn_at = False, now
            memories_forget_all(license=license, user_ref=user_ref, actor=actor)
            _event(license, user_ref, MemoryEventKind.CONSENT_WITHDRAWN, actor)
        consent.save()
    return consent


# -- writing ---------------------------------------------------------------------------------


def forbidden_reason(text: str) -> str | None:
    code = forbidden_category(text)
    return REFUSAL_REASONS[code] if code else None


def _embed(text: str) -> tuple[list[float], str]:
    provider = vector_index.active_provider()
    return provider.embed_query(text), provider.model


def _similar(memory: Memory, vector: list[float], model: str) -> float:
    if memory.embedding is None or memory.embedding_model != model:
        return 0.0
    return float(np.dot(np.asarray(memory.embedding, dtype=float), np.asarray(vector, dtype=float)))


RECENT_SCREENED = 5  # a new memory is read after each of the user's latest ones


def _recent_texts(
    license: License, user_ref: str, *, leaving_out: Memory | None = None
) -> list[str]:
    memories = Memory.objects.filter(license=license, user_ref=user_ref)
    if leaving_out is not None:
        memories = memories.exclude(pk=leaving_out.pk)
    return list(
        memories.order_by("-updated_at").values_list("description", flat=True)[:RECENT_SCREENED]
    )


def memory_propose(
    *, license: License, user_ref: str, proposal: Proposal, actor: str, pending: bool = False
) -> Memory:
    """Validate and save a proposal (or update the near-duplicate it repeats)."""
    proposal = replace(proposal, description=one_line(proposal.description))
    if not consent_given(license=license, user_ref=user_ref):
        raise _reject(license, user_ref, actor, "no_consent", proposal)
    if proposal.confidence < MIN_CONFIDENCE:
        raise _reject(license, user_ref, actor, "low_confidence", proposal)
    # The whole message is checked too: what surrounds the candidate may hold the data.
    if code := forbidden_category(proposal.description) or forbidden_category(
        proposal.source_message
    ):
        raise _reject(license, user_ref, actor, code, proposal)
    vector, model = _embed(proposal.description)
    with transaction.atomic():
        # One user's memories change one request at a time: two messages at once, or one
        # beside their "stop remembering", each see what the other did.
        _in_turn(license.pk, user_ref)
        outcome = _propose_in_turn(license, user_ref, proposal, vector, model, actor, pending)
    if isinstance(outcome, str):  # recorded outside the transaction: the refusal is kept
        raise _reject(license, user_ref, actor, outcome, proposal)
    return outcome


def _propose_in_turn(
    license: License,
    user_ref: str,
    proposal: Proposal,
    vector: list[float],
    model: str,
    actor: str,
    pending: bool,
) -> Memory | str:
    """The memory written (or its twin updated), or the code of why not: what needs the
    user's latest state is read here, under their lock."""
    if not consent_given(license=license, user_ref=user_ref):  # withdrawn meanwhile
        return "no_consent"
    # With the user's latest memories, so a number is not kept in two halves.
    if code := forbidden_together(proposal.description, _recent_texts(license, user_ref)):
        return code
    active = list(
        Memory.objects.select_for_update().filter(license=license, user_ref=user_ref, active=True)
    )
    twin = max(active, key=lambda m: _similar(m, vector, model), default=None)
    if twin and _similar(twin, vector, model) >= NEAR_DUPLICATE_SIMILARITY:
        return _update(twin, proposal, vector, model, actor)
    if len(active) >= MAX_ACTIVE_PER_USER:
        return "limit"
    memory = Memory.objects.create(
        license=license,
        user_ref=user_ref,
        memory_type=proposal.memory_type,
        description=proposal.description[:500],
        confidence=proposal.confidence,
        source=proposal.source,
        source_reference=proposal.source_reference[:64],
        source_message=proposal.source_message,
        expires_at=proposal.expires_at,
        embedding=vector,
        embedding_model=model,
        pending=pending,
    )
    _memory_event(
        memory,
        MemoryEventKind.CREATED,
        actor,
        reason=gettext_noop("awaiting the user's confirmation") if pending else "",
        detail={"description": memory.description, "source": memory.source},
    )
    return memory


def _update(
    memory: Memory, proposal: Proposal, vector: list[float], model: str, actor: str
) -> Memory:
    memory.confidence = max(memory.confidence, proposal.confidence)
    memory.source_message = proposal.source_message or memory.source_message
    return _rewrite(
        memory,
        proposal.description,
        vector,
        model,
        actor,
        gettext_noop("near-duplicate of an existing memory"),
    )


def memory_confirm(*, memory: Memory, actor: str) -> Memory:
    """The user agrees to a proposed memory: from now on it may be used."""
    with transaction.atomic():
        _lock_still_kept(memory)
        Memory.objects.filter(pk=memory.pk).update(pending=False, updated_at=timezone.now())
        _memory_event(
            memory, MemoryEventKind.UPDATED, actor, reason=gettext_noop("confirmed by the user")
        )
    memory.refresh_from_db()
    return memory


def memory_edit(*, memory: Memory, description: str, actor: str) -> Memory:
    description = one_line(description)
    if not description:
        raise ApplicationError(gettext_noop("A memory needs some text."))
    recent = _recent_texts(memory.license, memory.user_ref, leaving_out=memory)
    memory.source_message = ""  # what the user said first is no longer what is kept
    if reason := forbidden_reason(description) or (
        REFUSAL_REASONS["personal_data"] if forbidden_together(description, recent) else None
    ):
        raise ApplicationError(
            gettext_noop("Not saved: %(t_reason)s."), params={"t_reason": reason, **REFUSAL_PARAMS}
        )
    vector, model = _embed(description)
    with transaction.atomic():
        _lock_still_kept(memory)
        return _rewrite(memory, description, vector, model, actor, gettext_noop("edited"))


def _in_turn(license_id: object, user_ref: str) -> None:
    """One user's memories change one request at a time (inside the caller's transaction):
    consent, twins, the limit and the split-number check each see the other's work."""
    transaction_lock("memories", license_id, user_ref)


def _lock_still_kept(memory: Memory) -> None:
    """Take the user's memories in turn; one forgotten meanwhile (in another tab) stays so."""
    _in_turn(memory.license_id, memory.user_ref)
    if not Memory.objects.filter(pk=memory.pk).exists():
        raise ApplicationError(gettext_noop("This memory was forgotten."), status=404)


# -- forgetting ------------------------------------------------------------------------------


def memory_forget(*, memory: Memory, actor: str) -> None:
    with transaction.atomic():
        _in_turn(memory.license_id, memory.user_ref)
        MemoryEvent.objects.filter(memory_id=memory.pk).update(memory_id=None, detail={})
        license, user_ref, description = memory.license, memory.user_ref, memory.description
        memory_pk = memory.pk
        memory.delete()
        _event(license, user_ref, MemoryEventKind.FORGOTTEN, actor)
        transaction.on_commit(  # the chat scrubs the session turns that said it
            lambda: memory_forgotten.send(
                sender=Memory, license_id=license.pk, user_ref=user_ref, description=description
            )
        )
        memory_id = str(memory_pk)
        transaction.on_commit(lambda: erasure_record("memory", [memory_id]))
        _audit_staff(actor, "memory.forgotten", memory_id, license, user_ref)


def _audit_staff(actor: str, action: str, memory_id: str, license: License, user_ref: str) -> None:
    """What staff do to a memory goes to the audit trail (end users' own changes are in the
    memory's events); the end user is named by a pseudonym only."""
    if actor.startswith("admin:"):
        audit_record(
            action,
            target=f"memory:{memory_id}",
            details={"license": license.machine_id, "user": person_pseudonym(license.pk, user_ref)},
        )


def memories_forget_all(*, license: License, user_ref: str, actor: str) -> int:
    """Forget every memory of this user of this license, and nobody else's."""
    with transaction.atomic():
        _in_turn(license.pk, user_ref)  # none written meanwhile
        memories = list(Memory.objects.filter(license=license, user_ref=user_ref))
        for memory in memories:
            memory_forget(memory=memory, actor=actor)
    return len(memories)


def memories_erase_person(*, license: License, user_ref: str, actor: str) -> int:
    """Their erasure, on the memory side: every memory forgotten (vectors, session turns and
    the erasure journal as for each one), their consent gone (they are asked again if they
    come back), and the memory events that name them renamed to the keyed pseudonym the audit
    trail uses, so the monthly counts stay and nothing links to them."""
    with transaction.atomic():
        forgotten = memories_forget_all(license=license, user_ref=user_ref, actor=actor)
        MemoryConsent.objects.filter(license=license, user_ref=user_ref).delete()
        MemoryEvent.objects.filter(license=license, user_ref=user_ref).update(
            user_ref=person_pseudonym(license.pk, user_ref)[:120]
        )
    return forgotten


# -- using -------------------------------------------------------------------------------------


def memories_for_prompt(
    *,
    license: License,
    user_ref: str,
    question: str,
    embedding: vector_index.QueryEmbedding | None = None,
) -> list[Memory]:
    """Style memories always; others when similar to the question. Marks them used.
    ``embedding``: the question already being embedded (the chat's), else embedded here."""
    active = list(
        Memory.objects.filter(license=license, user_ref=user_ref, active=True, pending=False)
    )
    if not active:
        return []
    if embedding is not None:
        vector, model = embedding.vector(), embedding.model
    else:
        vector, model = _embed(question)
    scored = sorted(((_similar(m, vector, model), m) for m in active), key=lambda pair: -pair[0])
    chosen = [
        m for s, m in scored if m.memory_type == MemoryType.STYLE or s >= RELEVANT_SIMILARITY
    ][:PROMPT_LIMIT]
    now = timezone.now()
    Memory.objects.filter(pk__in=[m.pk for m in chosen]).update(last_accessed_at=now)
    MemoryEvent.objects.bulk_create(
        MemoryEvent(
            memory_id=m.pk,
            license=license,
            user_ref=user_ref,
            kind=MemoryEventKind.USED,
            actor="assistant",
        )
        for m in chosen
    )
    return chosen


# -- decay and expiry (Celery beat, daily) -------------------------------------------------------


def memories_decay(*, now: datetime | None = None) -> dict[str, int]:
    now = now or timezone.now()
    counts = {"expired": 0, "decayed": 0, "deactivated": 0}
    # Past its date a memory is gone, not kept switched off: "until the 15th" ends then.
    for memory in Memory.objects.filter(expires_at__lte=now):
        _event(memory.license, memory.user_ref, MemoryEventKind.EXPIRED, "decay")
        memory_forget(memory=memory, actor="expiry")
        counts["expired"] += 1
    stale = Memory.objects.filter(active=True).exclude(source=MemorySource.USER_EXPLICIT)
    for memory in stale:
        last = max(d for d in (memory.created_at, memory.last_accessed_at, memory.decayed_at) if d)
        if now - last < DECAY_AFTER:
            continue
        memory.confidence = round(max(0.0, memory.confidence - DECAY_STEP), 2)
        memory.decayed_at = now
        memory.save(update_fields=["confidence", "decayed_at", "updated_at"])
        _memory_event(
            memory, MemoryEventKind.DECAYED, "decay", detail={"confidence": memory.confidence}
        )
        counts["decayed"] += 1
        if memory.confidence < DEACTIVATE_BELOW:
            _deactivate(
                memory, MemoryEventKind.DEACTIVATED, gettext_noop("confidence fell too low")
            )
            counts["deactivated"] += 1
    return counts


def _deactivate(memory: Memory, kind: str, reason: str) -> None:
    Memory.objects.filter(pk=memory.pk).update(active=False)
    _memory_event(memory, kind, "decay", reason=reason)


def memory_set_active(*, memory: Memory, active: bool, actor: str) -> Memory:
    """An admin deactivates (or restores) a memory without deleting it."""
    with transaction.atomic():
        _lock_still_kept(memory)
        Memory.objects.filter(pk=memory.pk).update(active=active, updated_at=timezone.now())
        kind = MemoryEventKind.UPDATED if active else MemoryEventKind.DEACTIVATED
        _memory_event(memory, kind, actor, reason=gettext_noop("by an admin"))
        action = "memory.reactivated" if active else "memory.deactivated"
        _audit_staff(actor, action, str(memory.pk), memory.license, memory.user_ref)
    memory.refresh_from_db()
    return memory
