from __future__ import annotations

from typing import Any

from django import template

from accounts.audit_labels import action_label, actor_label, detail_items, target_label
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


@register.filter
def audit_actor(actor: str) -> str:
    return actor_label(actor)


@register.filter
def audit_details(details: dict[str, Any]) -> list[tuple[str, str]]:
    return detail_items(details)
