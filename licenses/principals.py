"""Who is asking, and therefore which knowledge they may see.

Scope comes from authenticated credentials only (seed 001: "hardcodeado en el backend,
NUNCA confiando en el frontend"). A license sees global knowledge plus its own; an admin
must name the scope it speaks for: global only, or what one license sees.
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from licenses.models import License


@dataclass(frozen=True)
class Principal:
    actor: str  # "license:<machine_id>" or "admin:<username>", for the access log
    license_id: UUID | None  # the scope: None = global knowledge only
    scope_label: str
    license: License | None = None

    @property
    def is_license(self) -> bool:
        return self.actor.startswith("license:")


def principal_for_license(license: License) -> Principal:
    return Principal(
        actor=f"license:{license.machine_id}",
        license_id=license.pk,
        scope_label=license.machine_id,
        license=license,
    )


def principal_for_admin(username: str, *, license: License | None) -> Principal:
    """An admin searching as global (license None) or as the given license would."""
    return Principal(
        actor=f"admin:{username}",
        license_id=license.pk if license else None,
        scope_label=license.machine_id if license else "global",
        license=license,
    )
