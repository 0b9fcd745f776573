from __future__ import annotations

from django import template

from accounts.audit_labels import action_label, target_label
from accounts.roles import ROLE_LABELS

register = template.Library()


@register.filter
def role_label(role: str) -> str:
    """A role's name in the page's language ("knowledge_editor" → "Knowledge editor")."""
    return str(ROLE_LABELS.get(role, role))


@register.filter
def audit_action(action: str) -> str:
    return action_label(action)


@register.filter
def audit_target(target: str) -> str:
    return target_label(target)
