"""API authentication with a license key: the scope of every call comes from here."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions

from licenses.keys import KEY_PREFIX
from licenses.models import License
from licenses.selectors import license_get_for_key
from licenses.widget_tokens import widget_token_read
from web.exceptions import ApplicationError


@dataclass
class LicenseUser:
    """The caller behind a license key: authenticated, never staff."""

    license: License
    is_authenticated: bool = True
    is_staff: bool = False
    is_active: bool = True
    is_anonymous: bool = False

    @property
    def username(self) -> str:
        return f"license:{self.license.machine_id}"


def usable_license_or_401(license: License | None) -> License:
    if license is None:
        raise exceptions.AuthenticationFailed(_("Unknown license key."))
    if license.display_status == "revoked":
        raise exceptions.AuthenticationFailed(
            _("This license has been revoked. Contact your administrator.")
        )
    if license.display_status == "expired":
        raise exceptions.AuthenticationFailed(
            _("This license has expired. Contact your administrator.")
        )
    return license


class LicenseKeyAuthentication(authentication.BaseAuthentication):
    """``Authorization: Bearer pbk_…`` (or ``X-License-Key``) from a product install's backend."""

    def authenticate(self, request: HttpRequest) -> tuple[LicenseUser, License] | None:
        key = self._key(request)
        if key is None:
            return None
        license = usable_license_or_401(license_get_for_key(key))
        return LicenseUser(license), license

    def _key(self, request: HttpRequest) -> str | None:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        scheme, _space, value = header.partition(" ")
        if scheme.lower() == "bearer" and value.startswith(KEY_PREFIX):
            return value.strip()
        key = request.META.get("HTTP_X_LICENSE_KEY", "")
        return key.strip() or None

    def authenticate_header(self, request: HttpRequest) -> str:
        return "Bearer"


@dataclass
class WidgetUser(LicenseUser):
    """An end user of a license, speaking through the embedded widget."""

    user_ref: str = "default"


class WidgetTokenAuthentication(authentication.BaseAuthentication):
    """``Authorization: Widget pbw_…``: the short-lived token the widget holds.

    The scope is the token's license, the end user is the token's; a browser call must
    come from the token's origin."""

    def authenticate(self, request: HttpRequest) -> tuple[WidgetUser, License] | None:
        scheme, _space, token = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
        if scheme.lower() != "widget" or not token:
            return None
        try:
            claims = widget_token_read(token.strip())
        except ApplicationError as exc:
            raise exceptions.AuthenticationFailed(exc.message) from exc
        license = usable_license_or_401(License.objects.filter(pk=claims.license_id).first())
        if claims.origin not in license.allowed_origins:  # an admin removed it since
            raise exceptions.AuthenticationFailed(
                _("%(origin)s is no longer allowed to embed this license's chat.")
                % {"origin": claims.origin}
            )
        origin = request.META.get("HTTP_ORIGIN", "").rstrip("/")
        if not origin:  # browsers always send it; a copied token replayed by a script does not
            raise exceptions.PermissionDenied(
                _("Widget tokens work only from the widget, in a page of an allowed origin.")
            )
        if origin != claims.origin:
            raise exceptions.PermissionDenied(
                _("This widget token is for %(expected)s, not %(origin)s.")
                % {"expected": claims.origin, "origin": origin}
            )
        return WidgetUser(license=license, user_ref=claims.user_ref), license

    def authenticate_header(self, request: HttpRequest) -> str:
        return "Widget"
