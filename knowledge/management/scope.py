"""What the knowledge commands share: the scope named by --license."""

from __future__ import annotations

from django.core.management.base import CommandError

from licenses.models import License
from licenses.selectors import license_for_scope
from web.exceptions import ApplicationError


def license_or_global(machine_id: str | None) -> License | None:
    """The license a --license machine_id names; None (global knowledge) when omitted."""
    try:
        return license_for_scope(machine_id)
    except ApplicationError as exc:
        raise CommandError(exc.message) from exc
