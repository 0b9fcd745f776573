"""What users asked and what they were answered, kept privately (seed 004 §7's spirit: what
is kept about a person is redacted first, kept only as long as configured, exported with
them and erased with them).

- ``Conversation``: one chat session of one end user of one license (or of a staff member
  trying the assistant in the console, ``by_staff``).
- ``Exchange``: one question and its answer; its id is the ``answer_id`` the chat API
  returns, which feedback and reviews name.
- ``Gap``: questions the knowledge did not answer, grouped by meaning; answered from the
  console by a curated answer.
- ``DailyCount``: what the purge leaves of the exchanges it removes — numbers only.
- ``Retention``: how long a license's conversations are kept, when not the deployment's.
"""

from __future__ import annotations

import uuid

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy
from pgvector.django import HalfVectorField

from knowledge.models import Document
from licenses.models import License


class Rating(models.TextChoices):
    UP = "up", _("Helpful")
    DOWN = "down", _("Not helpful")


class Reason(models.TextChoices):
    WRONG = "wrong", _("Wrong")
    INCOMPLETE = "incomplete", _("Incomplete")
    OUTDATED = "outdated", _("Outdated")
    NOT_ASKED = "not_asked", _("Not what I asked")


class Verdict(models.TextChoices):
    CORRECT = "correct", _("Correct")
    INCOMPLETE = "incomplete", pgettext_lazy("verdict", "Incomplete")
    WRONG = "wrong", pgettext_lazy("verdict", "Wrong")
    NOT_A_FAULT = "not_a_fault", _("Not a fault")


class Cause(models.TextChoices):
    KNOWLEDGE_MISSING = "knowledge_missing", _("Knowledge missing")
    KNOWLEDGE_WRONG = "knowledge_wrong", _("Knowledge wrong")
    ASSISTANT = "assistant", _("Assistant behaviour")


class GapStatus(models.TextChoices):
    OPEN = "open", pgettext_lazy("gap status", "Open")
    ANSWERED = "answered", pgettext_lazy("gap status", "Answered")
    # Not for the knowledge to answer (a test, off topic, spam): its askings keep counting
    # in it, out of the open gaps.
    DISMISSED = "dismissed", pgettext_lazy("gap status", "Dismissed")


class Conversation(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # Forgetting a license forgets what its users asked.
    license = models.ForeignKey(
        License, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    user_ref = models.CharField(max_length=120)
    session_id = models.CharField(max_length=64)
    by_staff = models.BooleanField(default=False)
    started_at = models.DateTimeField(auto_now_add=True)
    last_at = models.DateTimeField(auto_now=True, db_index=True)

    class Meta:
        ordering = ["-last_at"]
        permissions = [
            ("review_conversation", "Can record verdicts on answers"),
            ("erase_conversation", "Can export and erase a person's conversations"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["license", "user_ref", "session_id"],
                nulls_distinct=False,
                name="one_conversation_per_session",
            )
        ]
        indexes = [models.Index(fields=["license", "user_ref"], name="conversation_user_idx")]

    def __str__(self) -> str:
        return f"conversation {self.session_id} of {self.user_ref}"


class Gap(models.Model):
    """Questions without a confident answer, grouped by meaning: their centre (the mean of
    their question vectors, for the model that embedded them) is what a new one is compared
    with. The phrasings themselves are the exchanges' (purged and erased with them)."""

    status = models.CharField(max_length=10, choices=GapStatus.choices, default=GapStatus.OPEN)
    model = models.CharField(max_length=100)
    centroid = HalfVectorField(null=True)
    count = models.PositiveIntegerField(default=0)
    languages = ArrayField(models.CharField(max_length=8), default=list)
    license_ids = ArrayField(models.UUIDField(), default=list)  # empty: staff in global scope
    first_asked = models.DateTimeField()
    last_asked = models.DateTimeField(db_index=True)
    # Once answered: the curated answer, where it was put and by whom.
    answer_question = models.CharField(max_length=300, blank=True)
    answer = models.TextField(blank=True)
    answer_license = models.ForeignKey(
        License, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    answer_document = models.ForeignKey(
        Document, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    answered_by = models.CharField(max_length=150, blank=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    # Once dismissed: by whom and when.
    dismissed_by = models.CharField(max_length=150, blank=True)
    dismissed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-count", "-last_asked"]
        permissions = [("answer_gap", "Can answer knowledge gaps")]

    def __str__(self) -> str:
        return f"gap {self.pk} ({self.count})"


class Exchange(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="exchanges"
    )
    license = models.ForeignKey(
        License, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    by_staff = models.BooleanField(default=False)
    # Stored redacted; "" when the retention is 0 days (only counts are kept).
    question = models.TextField(blank=True)
    answer = models.TextField(blank=True)
    language = models.CharField(max_length=8)
    answerer = models.CharField(max_length=16)
    # [{number, document, document_id, page, chunk_id, score, quote, section, curated}]
    citations = models.JSONField(default=list)
    chunk_ids = ArrayField(models.BigIntegerField(), default=list)
    no_information = models.BooleanField(default=False)
    low_score = models.BooleanField(default=False)
    best_score = models.FloatField(null=True)
    latency_ms = models.FloatField(default=0)
    model = models.CharField(max_length=100, blank=True)
    question_vector = HalfVectorField(null=True)
    gap = models.ForeignKey(
        Gap, null=True, blank=True, on_delete=models.SET_NULL, related_name="exchanges"
    )
    # The end user's feedback.
    rating = models.CharField(max_length=4, choices=Rating.choices, blank=True)
    reason = models.CharField(max_length=12, choices=Reason.choices, blank=True)
    comment = models.TextField(blank=True)
    rated_at = models.DateTimeField(null=True, blank=True)
    # A reviewer's verdict.
    verdict = models.CharField(max_length=12, choices=Verdict.choices, blank=True)
    cause = models.CharField(max_length=20, choices=Cause.choices, blank=True)
    review_comment = models.TextField(blank=True)
    reviewed_by = models.CharField(max_length=150, blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["created_at"], name="exchange_time_idx"),
            models.Index(fields=["license", "created_at"], name="exchange_license_time_idx"),
            GinIndex(fields=["chunk_ids"], name="exchange_chunks_idx"),
        ]

    def __str__(self) -> str:
        return f"answer {self.pk}"

    @property
    def answered(self) -> bool:
        return not self.no_information


class DailyCount(models.Model):
    """The numbers of purged exchanges, per day, license (None: staff, global), language."""

    day = models.DateField()
    license = models.ForeignKey(
        License, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    language = models.CharField(max_length=8)
    questions = models.PositiveIntegerField(default=0)
    no_information = models.PositiveIntegerField(default=0)
    rated_up = models.PositiveIntegerField(default=0)
    rated_down = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["day", "license", "language"],
                nulls_distinct=False,
                name="one_count_per_day_license_language",
            )
        ]

    def __str__(self) -> str:
        return f"{self.day} {self.language}: {self.questions}"


class Retention(models.Model):
    """A license's own retention, in days (0: only counts are kept)."""

    license = models.OneToOneField(License, on_delete=models.CASCADE, related_name="+")
    days = models.PositiveIntegerField()

    def __str__(self) -> str:
        return f"{self.license_id}: {self.days} days"
