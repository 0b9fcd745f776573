from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import SetPasswordMixin
from django.utils.translation import gettext_lazy as _

from accounts.audit_labels import action_label
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
        role_field: forms.ChoiceField = self.fields["role"]  # type: ignore[assignment]
        role_field.choices = [("", _("whatever my account may do")), *mine]


class InvitationAcceptForm(SetPasswordMixin, forms.Form):
    """Django's set-password fields (password1, password2) and validators, checked against
    the account the invitation will create."""

    password1, password2 = SetPasswordMixin.create_password_fields()

    def __init__(self, *args: Any, email: str, **kwargs: Any) -> None:  # noqa: ANN401
        super().__init__(*args, **kwargs)
        self.email = email

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        self.validate_passwords()
        future = get_user_model()(username=self.email, email=self.email)
        self.validate_password_for_user(future)
        return cleaned


class InviteForm(forms.Form):
    email = forms.EmailField(label=_("E-mail"))
    role = forms.ChoiceField(
        label=_("Role"), choices=list(ROLE_LABELS.items()), initial="knowledge_editor"
    )


class MemberRoleForm(forms.Form):
    role = forms.ChoiceField(label=_("Role"), choices=list(ROLE_LABELS.items()))


class AuditFilterForm(forms.Form):
    actor = forms.CharField(required=False, max_length=200, label=_("Who"))
    action = forms.ChoiceField(required=False, label=_("Action"))
    target = forms.CharField(required=False, max_length=200, label=_("On"))
    since = forms.DateField(
        required=False, label=_("From"), widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        required=False, label=_("To"), widget=forms.DateInput(attrs={"type": "date"})
    )

    def __init__(self, *args: Any, actions: list[str], **kwargs: Any) -> None:  # noqa: ANN401
        super().__init__(*args, **kwargs)
        action_field: forms.ChoiceField = self.fields["action"]  # type: ignore[assignment]
        action_field.choices = [
            ("", _("any")),
            *((action, action_label(action)) for action in actions),
        ]
