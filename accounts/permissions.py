"""The admin API's gate: a console account (session, personal token or API token) whose
role holds the permission a call needs (accounts.roles)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView


def staff_permission(
    permission: str, *, by_method: dict[str, str] | None = None
) -> type[BasePermission]:
    """Calls need ``permission``, or the one ``by_method`` names for their HTTP method."""

    class StaffRole(BasePermission):
        message = _(
            "Sign in with a console account whose role may do this (a session, a personal "
            "API token or an API token)."
        )

        def has_permission(self, request: Request, view: APIView) -> bool:
            user = request.user
            needed = (by_method or {}).get(request.method or "", permission)
            return bool(user and user.is_authenticated and user.is_staff and user.has_perm(needed))

    return StaffRole
