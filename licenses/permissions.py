from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView

from accounts.roles import SEARCH_AS_ADMIN
from licenses.models import License


class IsAdminOrLicense(BasePermission):
    message = _("Authenticate with a license key (Authorization: Bearer pbk_…) or as an admin.")

    def has_permission(self, request: Request, view: APIView) -> bool:
        if isinstance(request.auth, License):
            return True
        user = request.user
        # An admin speaks to the API as the console's playground and chat do.
        return bool(
            user and user.is_authenticated and user.is_staff and user.has_perm(SEARCH_AS_ADMIN)
        )
