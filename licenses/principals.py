"""Who is asking, and therefore which knowledge they may see.

Scope comes from authenticated credentials only (seed 001: "hardcodeado en el backend,
NUNCA confiando en el frontend"). A license sees global knowledge plus its own; an admin
must name the scope it speaks for: global only, or what one license sees.
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop
from rest_framework import exceptions
from rest_framework.request import Request

from accounts.roles import VIEW_MEMORIES
from licenses.models import GLOBAL_SCOPE, License
from licenses.selectors import license_get_for_machine_id
from licenses.throttles import USER_REF_MAX_LENGTH
from web.exceptions import ApplicationError


@dataclass(frozen=True)
class Principal:
    actor: str  # "license:<machine_id>" or "admin:<username>", for the access log
    license_id: UUID | None  # the scope: None = global knowledge only
    scope_label: str
    license: License | None = None
    # Memories are the end user's: a license credential (a widget token, or the product's
    # backend holding the key) speaks as that user and may have them read and kept. Staff
    # speaking as a license never keep one for a user, and see them in a prompt only when
    # their role may read memories anyway.
    keeps_memories: bool = False
    reads_memories: bool = False


def principal_for_license(license: License) -> Principal:
    return Principal(
        actor=f"license:{license.machine_id}",
        license_id=license.pk,
        scope_label=license.machine_id,
        license=license,
        keeps_memories=True,
        reads_memories=True,
    )


def principal_for_admin(
    username: str, *, license: License | None, reads_memories: bool = False
) -> Principal:
    """An admin searching as global (license None) or as the given license would;
    ``reads_memories`` when the admin's role may read end users' memories."""
    return Principal(
        actor=f"admin:{username}",
        license_id=license.pk if license else None,
        scope_label=license.machine_id if license else GLOBAL_SCOPE,
        license=license,
        reads_memories=reads_memories,
    )


def principal_from_request(request: Request, *, as_license: str | None = None) -> Principal:
    """A license key decides its own scope; any scope in the request is ignored for it.
    Only an admin may name a license to speak as (``as_license``)."""
    if isinstance(request.auth, License):
        return principal_for_license(request.auth)
    license = None
    if as_license:
        license = license_get_for_machine_id(as_license)
        if license is None:
            raise ApplicationError(
                gettext_noop("No license with machine_id %(machine_id)r."),
                params={"machine_id": as_license},
                status=404,
            )
    return principal_for_admin(
        request.user.get_username(),
        license=license,
        reads_memories=request.user.has_perm(VIEW_MEMORIES),
    )


def end_user_from_request(request: Request, user: str = "") -> tuple[License, str]:
    """The license and end user a call speaks for: a widget token names its user; a
    product's backend holding the license key names one (``user``, or ``?user=``). Staff
    credentials are no end user: what belongs to one (memories, conversations, feedback)
    is refused to them here."""
    if not isinstance(request.auth, License):
        raise exceptions.PermissionDenied(
            _(
                "This belongs to a license's end user: use a widget token, or the license key "
                "naming the user."
            )
        )
    user_ref = (
        getattr(request.user, "user_ref", None) or user or request.query_params.get("user", "")
    )
    if not user_ref.strip():
        raise exceptions.ValidationError(
            {"user": _("Name the end user (user=…) when calling with the license key.")}
        )
    if len(user_ref) > USER_REF_MAX_LENGTH:
        raise exceptions.ValidationError(
            {
                "user": _("An end user's reference is at most %(length)d characters.")
                % {"length": USER_REF_MAX_LENGTH}
            }
        )
    return request.auth, user_ref
