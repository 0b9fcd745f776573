"""Curated user memory (seed 004 §4): small, explicit, justifiable, per license and user,
opt-in, and never mixed with the document index."""

from __future__ import annotations

import uuid

from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop
from pgvector.django import VectorField

from licenses.models import License

# The reason a refused proposal's event keeps when the user had not allowed memories (an
# English msgid, as every reason in memory.services.REFUSAL_REASONS).
NO_CONSENT_REASON = gettext_noop("the user has not agreed to memories")


class MemoryType(models.TextChoices):
    PREFERENCE = "preference", _("Preference")
    PATTERN = "pattern", _("Pattern")
    STYLE = "style", _("Style")


class MemorySource(models.TextChoices):
    CONVERSATION = "conversation", _("Conversation")
    BEHAVIOR_ANALYSIS = "behavior_analysis", _("Behaviour analysis")
    USER_EXPLICIT = "user_explicit", _("Said by the user")


class Memory(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    license = models.ForeignKey(License, on_delete=models.CASCADE, related_name="memories")
    user_ref = models.CharField(max_length=120)
    memory_type = models.CharField(max_length=16, choices=MemoryType.choices)
    description = models.CharField(max_length=500)
    scope = models.CharField(max_length=20, default="user")
    confidence = models.FloatField()
    source = models.CharField(max_length=20, choices=MemorySource.choices)
    source_reference = models.CharField(max_length=64, blank=True)  # the conversation (session id)
    source_message = models.TextField(blank=True)  # what the user said, shown when reviewing
    active = models.BooleanField(default=True)
    # A model's proposal waiting for the user's confirmation (MEMORY_CONFIRM_PROPOSALS):
    # shown in "My memories", never used in a prompt until confirmed.
    pending = models.BooleanField(default=False)
    # For relevance and near-duplicate checks; the model that produced it is recorded so a
    # change of embedding model never compares vectors of different spaces.
    embedding = VectorField(null=True)
    embedding_model = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    last_accessed_at = models.DateTimeField(null=True, blank=True)
    decayed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-updated_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(confidence__gte=0) & models.Q(confidence__lte=1),
                name="memory_confidence_0_1",
            ),
        ]
        indexes = [models.Index(fields=["license", "user_ref", "active"], name="memory_user_idx")]

    def __str__(self) -> str:
        return self.description[:60]


class MemoryConsent(models.Model):
    license = models.ForeignKey(License, on_delete=models.CASCADE, related_name="+")
    user_ref = models.CharField(max_length=120)
    given = models.BooleanField(default=False)
    given_at = models.DateTimeField(null=True, blank=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["license", "user_ref"], name="memory_consent_per_user"),
        ]

    def __str__(self) -> str:
        return f"{self.user_ref}: {'given' if self.given else 'not given'}"


class MemoryEventKind(models.TextChoices):
    CREATED = "created", _("Created")
    UPDATED = "updated", _("Updated")
    USED = "used", _("Used in a prompt")
    DECAYED = "decayed", _("Decayed")
    DEACTIVATED = "deactivated", _("Deactivated")
    EXPIRED = "expired", _("Expired")
    FORGOTTEN = "forgotten", _("Forgotten")
    REJECTED = "rejected", _("Rejected")
    CONSENT_GIVEN = "consent_given", _("Consent given")
    CONSENT_WITHDRAWN = "consent_withdrawn", _("Consent withdrawn")


class MemoryEvent(models.Model):
    """The audit trail. Once a memory is forgotten its events keep only what happened, when
    and by whom: ``memory_id`` and ``detail`` are cleared."""

    memory_id = models.UUIDField(null=True, blank=True, db_index=True)
    license = models.ForeignKey(License, on_delete=models.CASCADE, related_name="+")
    user_ref = models.CharField(max_length=120)
    kind = models.CharField(max_length=20, choices=MemoryEventKind.choices)
    actor = models.CharField(max_length=150)
    reason = models.CharField(max_length=200, blank=True)
    detail = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.kind} by {self.actor}"
