from __future__ import annotations

import uuid
from datetime import datetime

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import pgettext_lazy

# The scope name of knowledge every license sees; no license may take it.
GLOBAL_SCOPE = "global"
# The license of make run's widget demo page (manage.py demo_license; chat's widget_demo).
DEMO_MACHINE_ID = "demo"


class LicenseStatus(models.TextChoices):
    ACTIVE = "active", pgettext_lazy("license status", "Active")
    REVOKED = "revoked", pgettext_lazy("license status", "Revoked")


# What the console shows for License.display_status (an expired license is still "active").
LICENSE_STATUS_LABELS = {
    "active": LicenseStatus.ACTIVE.label,
    "revoked": LicenseStatus.REVOKED.label,
    "expired": pgettext_lazy("license status", "Expired"),
}


class License(models.Model):
    """One machine running the product. Its key is stored only as a hash (shown once at forging)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    machine_id = models.SlugField(max_length=64, unique=True)
    user_name = models.CharField(max_length=120)
    key_prefix = models.CharField(max_length=16, unique=True)
    key_hash = models.CharField(max_length=128)
    # After a rotation, the key it replaced keeps working until previous_key_until.
    previous_key_prefix = models.CharField(max_length=16, unique=True, null=True, blank=True)
    previous_key_hash = models.CharField(max_length=128, blank=True)
    previous_key_until = models.DateTimeField(null=True, blank=True)
    status = models.CharField(
        max_length=16, choices=LicenseStatus.choices, default=LicenseStatus.ACTIVE
    )
    expires_at = models.DateTimeField(null=True, blank=True)
    allowed_origins = ArrayField(models.CharField(max_length=255), default=list, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(machine_id__iexact=GLOBAL_SCOPE),
                name="license_machine_id_not_global",
                violation_error_message="'global' is reserved for knowledge shared by every license.",
            ),
            models.UniqueConstraint(Lower("machine_id"), name="license_machine_id_ci_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.machine_id} ({self.user_name})"

    def is_expired(self, now: datetime | None = None) -> bool:
        return self.expires_at is not None and self.expires_at <= (now or timezone.now())

    @property
    def previous_key_works(self) -> bool:
        return self.previous_key_until is not None and timezone.now() < self.previous_key_until

    @property
    def display_status_label(self) -> str:
        return str(LICENSE_STATUS_LABELS[self.display_status])

    @property
    def display_status(self) -> str:
        if self.status == LicenseStatus.REVOKED:
            return "revoked"
        return "expired" if self.is_expired() else "active"
