from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from licenses.selectors import license_choices
from memory.models import MemorySource, MemoryType

STATUSES = [("active", _("Active")), ("inactive", _("Inactive"))]
ANY = ("", _("Any"))


class MemoryFilterForm(forms.Form):
    """The admin list's filters. A value that is not one of the choices is ignored."""

    license = forms.ChoiceField(required=False)
    user = forms.CharField(required=False, max_length=120)
    memory_type = forms.ChoiceField(required=False, choices=[ANY, *MemoryType.choices])
    status = forms.ChoiceField(required=False, choices=[ANY, *STATUSES])
    source = forms.ChoiceField(required=False, choices=[ANY, *MemorySource.choices])

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fields["license"].choices = [ANY, *license_choices()]  # type: ignore[attr-defined]

    def filters(self) -> dict[str, str]:
        """Every filter that passed validation; the ones that did not are left out."""
        self.is_valid()
        return {name: self.cleaned_data.get(name) or "" for name in self.fields}
