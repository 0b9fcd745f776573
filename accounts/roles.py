"""Who may do what in the console: four roles, as Django groups with permissions.

- **owner**: everything (licenses, knowledge, memories, the query log, conversations, gaps,
  the assistant's name, persona and widget, the team's members, the audit trail);
- **knowledge editor**: uploads, forgets and retries knowledge, searches and chats as an
  admin, sees knowledge gaps (never who asked) and answers them;
- **support**: reads — the dashboard, documents, licenses, the query log — may search, and
  reviews conversations (verdicts and causes);
- **privacy officer**: end users' memories (review, deactivate, delete), their conversations
  (read, export, erase, retention), the audit trail and the dashboard.

A superuser holds every permission. A staff account with no role may sign in and is told to
ask an owner for one (``manage.py grant_role``). The groups and their permissions are
brought up to date after every ``migrate``; an account's roles are its groups.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import user_passes_test
from django.contrib.auth.management import create_permissions
from django.contrib.auth.models import Group, Permission
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from accounts.audit import audit_record
from web.exceptions import ApplicationError

# Permission names are "app_label.codename"; the apps define them (Meta.permissions or
# Django's view/add/change/delete), this module only hands them out.
DASHBOARD = "knowledge.view_dashboard"
VIEW_KNOWLEDGE = "knowledge.view_document"
ADD_KNOWLEDGE = "knowledge.add_document"
FORGET_KNOWLEDGE = "knowledge.delete_document"
SEARCH_AS_ADMIN = "knowledge.use_playground"
QUERY_LOG = "knowledge.view_searchlog"
VIEW_LICENSES = "licenses.view_license"
MANAGE_LICENSES = "licenses.change_license"
VIEW_MEMORIES = "memory.view_memory"
CHANGE_MEMORIES = "memory.change_memory"
DELETE_MEMORIES = "memory.delete_memory"
SHAPE_ASSISTANT = "chat.change_assistant"
SET_REDACTION = "knowledge.change_redactionpolicy"
VIEW_CONVERSATIONS = "conversations.view_conversation"
REVIEW_CONVERSATIONS = "conversations.review_conversation"
ERASE_CONVERSATIONS = "conversations.erase_conversation"
VIEW_GAPS = "conversations.view_gap"
ANSWER_GAPS = "conversations.answer_gap"
MANAGE_MEMBERS = "accounts.manage_members"
VIEW_AUDIT = "accounts.view_audit"

ROLES: dict[str, tuple[str, ...]] = {
    "owner": (
        DASHBOARD, VIEW_KNOWLEDGE, ADD_KNOWLEDGE, FORGET_KNOWLEDGE, SEARCH_AS_ADMIN, QUERY_LOG,
        VIEW_LICENSES, MANAGE_LICENSES, "licenses.add_license",
        VIEW_MEMORIES, CHANGE_MEMORIES, DELETE_MEMORIES, SHAPE_ASSISTANT, SET_REDACTION,
        VIEW_CONVERSATIONS, REVIEW_CONVERSATIONS, ERASE_CONVERSATIONS, VIEW_GAPS, ANSWER_GAPS,
        MANAGE_MEMBERS, VIEW_AUDIT,
    ),
    "knowledge_editor": (
        DASHBOARD, VIEW_KNOWLEDGE, ADD_KNOWLEDGE, FORGET_KNOWLEDGE, SEARCH_AS_ADMIN,
        VIEW_GAPS, ANSWER_GAPS,
    ),
    "support": (
        DASHBOARD, VIEW_KNOWLEDGE, SEARCH_AS_ADMIN, QUERY_LOG, VIEW_LICENSES,
        VIEW_CONVERSATIONS, REVIEW_CONVERSATIONS,
    ),
    "privacy_officer": (
        DASHBOARD, VIEW_MEMORIES, CHANGE_MEMORIES, DELETE_MEMORIES,
        VIEW_CONVERSATIONS, ERASE_CONVERSATIONS, VIEW_AUDIT,
    ),
}  # fmt: skip
ROLE_LABELS = {
    "owner": _("Owner"),
    "knowledge_editor": _("Knowledge editor"),
    "support": _("Support"),
    "privacy_officer": _("Privacy officer"),
}


def roles_ensure(**kwargs: Any) -> None:
    """Create the role groups and give each exactly its permissions (after ``migrate``)."""
    for app_config in apps.get_app_configs():  # the upper apps' permissions may be new
        create_permissions(app_config, verbosity=0)
    for role, names in ROLES.items():
        group, _created = Group.objects.get_or_create(name=role)
        wanted = [
            Permission.objects.get(content_type__app_label=app, codename=codename)
            for app, codename in (name.split(".", 1) for name in names)
        ]
        group.permissions.set(wanted)


def role_grant(*, username: str, role: str) -> bool:
    """Give ``username`` the role; True when the account was a superuser and is no longer
    one (a superuser holds every permission: granting a narrower role would otherwise say
    "support" and still let it do everything)."""
    if role not in ROLES:
        raise ApplicationError(
            gettext_noop("Unknown role %(role)s; use one of %(roles)s."),
            params={"role": role, "roles": ", ".join(ROLES)},
        )
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise ApplicationError(
            gettext_noop("No account %(username)s."), params={"username": username}
        )
    group = Group.objects.filter(name=role).first()
    if group is None:  # every migrate creates the roles; a database restored without them
        roles_ensure()
        group = Group.objects.get(name=role)
    demoted = bool(user.is_superuser and role != "owner")
    with transaction.atomic():
        user.is_staff = True  # a role is console access
        user.is_superuser = user.is_superuser and not demoted
        user.save(update_fields=["is_staff", "is_superuser"])
        user.groups.add(group)
        audit_record("member.role_granted", target=f"account:{username}", details={"role": role})
    return demoted


def role_revoke(*, username: str, role: str) -> None:
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise ApplicationError(
            gettext_noop("No account %(username)s."), params={"username": username}
        )
    with transaction.atomic():
        user.groups.remove(*user.groups.filter(name=role))
        if role == "owner" and user.is_superuser:  # a superuser is an owner: no longer either
            user.is_superuser = False
            user.save(update_fields=["is_superuser"])
        audit_record("member.role_revoked", target=f"account:{username}", details={"role": role})


def user_roles(user: Any) -> list[str]:  # noqa: ANN401 - a user model instance
    if getattr(user, "is_superuser", False):
        return ["owner"]
    return [name for name in user.groups.values_list("name", flat=True) if name in ROLES]


def roles_context(request: Any) -> dict[str, Any]:  # noqa: ANN401 - an HttpRequest
    """The signed-in admin's roles, for the console's header."""
    user = getattr(request, "user", None)
    if not (user and user.is_authenticated and user.is_staff):
        return {}
    return {"console_roles": [ROLE_LABELS[role] for role in user_roles(user)]}


def console_permission(permission: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A console view for staff holding ``permission``: anonymous visitors go to the login
    page; staff without it get the friendly 403 page."""

    def check(user: Any) -> bool:  # noqa: ANN401
        if not (user.is_active and user.is_staff):
            return False
        if not user.has_perm(permission):
            raise PermissionDenied
        return True

    def decorate(view: Callable[..., Any]) -> Callable[..., Any]:
        return user_passes_test(check, login_url=settings.LOGIN_URL)(view)

    return decorate
