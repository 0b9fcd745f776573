from __future__ import annotations

from datetime import datetime, time

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from licenses.models import License
from licenses.services import origins_clean
from web.exceptions import ApplicationError


class _LicenseFieldsForm(forms.Form):
    """The fields an admin sets when forging and may change afterwards."""

    user_name = forms.CharField(
        max_length=120,
        label=_("User name"),
        help_text=_("The assistant greets the user by this name."),
    )
    expires_on = forms.DateField(
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        label=_("Expires on"),
        help_text=_("Empty: never expires."),
    )
    allowed_origins = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        label=_("Widget origins"),
        help_text=_(
            "Origins allowed to embed the chat widget, one per line (https://app.example.com)."
        ),
    )

    def clean_expires_on(self) -> datetime | None:
        day = self.cleaned_data.get("expires_on")
        if day is None:
            return None
        if day < timezone.localdate():
            raise forms.ValidationError(_("The expiry date is in the past."))
        return timezone.make_aware(datetime.combine(day, time.max))

    def clean_allowed_origins(self) -> list[str]:
        try:
            return origins_clean(self.cleaned_data["allowed_origins"].splitlines())
        except ApplicationError as exc:
            raise forms.ValidationError(exc.message) from None


class ForgeLicenseForm(_LicenseFieldsForm):
    machine_id = forms.SlugField(
        max_length=64,
        required=False,
        label=_("Machine ID"),
        help_text=_("Leave empty to generate one."),
    )
    field_order = ["user_name", "machine_id", "expires_on", "allowed_origins"]


class LicenseEditForm(_LicenseFieldsForm):
    def __init__(self, *args: object, license: License, **kwargs: object) -> None:
        expires_at = license.expires_at
        self.current_expiry = timezone.localtime(expires_at).date() if expires_at else None
        initial = {
            "user_name": license.user_name,
            "expires_on": self.current_expiry,
            "allowed_origins": "\n".join(license.allowed_origins),
        }
        super().__init__(*args, initial=initial, auto_id="edit_%s", **kwargs)  # type: ignore[arg-type,misc]

    def clean_expires_on(self) -> datetime | None:
        day = self.cleaned_data.get("expires_on")
        if day is not None and day == self.current_expiry:  # unchanged, even if already past
            return timezone.make_aware(datetime.combine(day, time.max))
        return super().clean_expires_on()


class RotateKeyForm(forms.Form):
    grace = forms.TypedChoiceField(
        label=_("The old key keeps working for"),
        coerce=int,
        initial=3600,
        choices=[
            (0, _("no time: it stops at once")),
            (60, _("1 minute")),
            (3600, _("1 hour")),
            (86400, _("1 day")),
            (7 * 86400, _("7 days")),
        ],
    )
