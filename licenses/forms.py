from __future__ import annotations

from datetime import datetime, time

from django import forms
from django.utils import timezone


class ForgeLicenseForm(forms.Form):
    user_name = forms.CharField(
        max_length=120, help_text="The assistant greets the user by this name."
    )
    machine_id = forms.SlugField(
        max_length=64, required=False, help_text="Leave empty to generate one."
    )
    expires_on = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    allowed_origins = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Origins allowed to embed the chat widget, one per line (https://app.example.com).",
    )

    def clean_expires_on(self) -> datetime | None:
        day = self.cleaned_data.get("expires_on")
        if day is None:
            return None
        if day < timezone.localdate():
            raise forms.ValidationError("The expiry date is in the past.")
        return timezone.make_aware(datetime.combine(day, time.max))

    def clean_allowed_origins(self) -> list[str]:
        origins = [
            line.strip().rstrip("/")
            for line in self.cleaned_data["allowed_origins"].splitlines()
            if line.strip()
        ]
        bad = [
            o
            for o in origins
            if not o.startswith(("http://", "https://")) or "/" in o.split("://", 1)[1]
        ]
        if bad:
            raise forms.ValidationError(f"Not an origin (scheme://host[:port]): {', '.join(bad)}")
        return origins
