from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.roles import ROLE_LABELS
from accounts.services import token_roles_for


class TokenForm(forms.Form):
    name = forms.CharField(
        max_length=80, label=_("Name"), help_text=_("What uses it, such as “CI deploy”.")
    )
    days = forms.TypedChoiceField(
        label=_("Expires in"),
        coerce=int,
        initial=90,
        choices=[(7, _("7 days")), (30, _("30 days")), (90, _("90 days")), (365, _("1 year"))],
    )
    role = forms.ChoiceField(label=_("May do"), required=False)

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:  # noqa: ANN401
        super().__init__(*args, **kwargs)
        mine = [(role, ROLE_LABELS[role]) for role in token_roles_for(user)]
        self.fields["role"].choices = [("", _("whatever my account may do")), *mine]
