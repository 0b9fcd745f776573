"""What the knowledge commands share: the scope named by --license."""

from __future__ import annotations

from django.core.management.base import CommandError

from licenses.models import License
from licenses.selectors import license_get_for_machine_id


def license_or_global(machine_id: str | None) -> License | None:
    """The license a --license machine_id names; None (global knowledge) when omitted."""
    if not machine_id:
        return None
    license = license_get_for_machine_id(machine_id)
    if license is None:
        raise CommandError(f"No license with machine_id {machine_id!r}.")
    return license
