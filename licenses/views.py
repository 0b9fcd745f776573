"""Admin pages for licenses: list, forge (the key is shown once), detail, revoke/reactivate."""

from __future__ import annotations

from uuid import UUID

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.roles import MANAGE_LICENSES, VIEW_LICENSES, console_permission
from licenses import selectors, services
from licenses.forms import ForgeLicenseForm, LicenseEditForm, RotateKeyForm
from licenses.models import License
from web.exceptions import ApplicationError
from web.http import HtmxHttpRequest


def _get_license(pk: UUID) -> License:
    return get_object_or_404(License, pk=pk)


def _writes_need(request: HtmxHttpRequest, permission: str) -> None:
    """A page support may read but only an owner may change: a POST needs ``permission``."""
    if request.method == "POST" and not request.user.has_perm(permission):
        raise PermissionDenied


def _named(license: License) -> dict[str, str]:
    return {"machine_id": license.machine_id}


@console_permission(VIEW_LICENSES)
def license_list(request: HtmxHttpRequest) -> HttpResponse:
    _writes_need(request, MANAGE_LICENSES)
    form = ForgeLicenseForm(request.POST or None)
    forged = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            forged = services.license_forge(
                user_name=data["user_name"],
                machine_id=data["machine_id"] or None,
                expires_at=data["expires_on"],
                allowed_origins=data["allowed_origins"],
            )
        except ApplicationError as exc:
            form.add_error(None, exc.message)
        else:
            form = ForgeLicenseForm()
    context = {"licenses": License.objects.all(), "form": form, "forged": forged}
    response = render(request, "licenses/license_list.html", context)
    response["Cache-Control"] = "no-store"  # the page that shows a key must not be cached
    return response


@console_permission(VIEW_LICENSES)
def license_detail(request: HtmxHttpRequest, pk: UUID) -> HttpResponse:
    _writes_need(request, MANAGE_LICENSES)
    license = _get_license(pk)
    form = LicenseEditForm(request.POST or None, license=license)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            services.license_update(
                license=license,
                user_name=data["user_name"],
                allowed_origins=data["allowed_origins"],
                expires_at=data["expires_on"],
            )
        except ApplicationError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, _("License %(machine_id)s saved.") % _named(license))
            return redirect("licenses:license-detail", pk=pk)
    context = {
        "license": license,
        "form": form,
        "rotate_form": RotateKeyForm(),
        "page": selectors.license_page(license),
    }
    return render(request, "licenses/license_detail.html", context)


@console_permission(MANAGE_LICENSES)
@require_POST
def license_rotate(request: HtmxHttpRequest, pk: UUID) -> HttpResponse:
    """A new key, shown once on the page this answers (never cached)."""
    license = _get_license(pk)
    form = RotateKeyForm(request.POST)
    rotated = None
    if form.is_valid():
        rotated = services.license_rotate_key(
            license=license, grace_seconds=form.cleaned_data["grace"]
        )
        license = rotated.license
    context = {
        "license": license,
        "form": LicenseEditForm(license=license),
        "rotate_form": form,
        "rotated": rotated,
        "page": selectors.license_page(license),
    }
    response = render(request, "licenses/license_detail.html", context)
    response["Cache-Control"] = "no-store"
    return response


@console_permission(MANAGE_LICENSES)
@require_POST
def license_revoke(request: HtmxHttpRequest, pk: UUID) -> HttpResponse:
    license = services.license_revoke(license=_get_license(pk))
    messages.success(
        request, _("License %(machine_id)s revoked: its key stops working now.") % _named(license)
    )
    return redirect("licenses:license-detail", pk=pk)


@console_permission(MANAGE_LICENSES)
@require_POST
def license_reactivate(request: HtmxHttpRequest, pk: UUID) -> HttpResponse:
    license = services.license_reactivate(license=_get_license(pk))
    messages.success(request, _("License %(machine_id)s is active again.") % _named(license))
    return redirect("licenses:license-detail", pk=pk)
