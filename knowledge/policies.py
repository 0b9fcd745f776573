"""A scope's redaction policy: what personal data its uploads lose from now on."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext_noop

from accounts.audit import audit_record
from datastores.locks import transaction_lock
from knowledge.models import RedactionPolicy
from knowledge.redaction import KINDS, allow_list_invalid
from knowledge.uploads import scope_name
from licenses.models import License
from web.exceptions import ApplicationError


def redaction_policy_set(
    *, license: License | None, kinds: list[str], keep_contacts: bool, allow: list[str]
) -> RedactionPolicy:
    """A scope's redaction from now on (uploads ingested or re-ingested after it)."""
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise ApplicationError(
            gettext_noop("Unknown kind of personal data %(value)s; use %(choices)s."),
            params={"value": ", ".join(unknown), "choices": ", ".join(KINDS)},
        )
    allow = [entry.strip() for entry in allow if entry.strip()]
    if invalid := allow_list_invalid(allow):
        raise ApplicationError(
            gettext_noop("%(value)s is not an e-mail address, an @domain or a phone number."),
            params={"value": invalid[0]},
        )
    with transaction.atomic():
        transaction_lock("redaction policy", license.pk if license else None)  # a first save twice
        policy = RedactionPolicy.objects.filter(license=license).first()
        policy = policy or RedactionPolicy(license=license)
        policy.kinds = [k for k in KINDS if k in kinds]
        policy.keep_contacts = keep_contacts
        policy.allow = list(dict.fromkeys(allow))[:200]
        policy.save()
        audit_record(
            "knowledge.redaction_policy_set",
            target=f"scope:{scope_name(license)}",
            details={
                "kinds": policy.kinds,
                "keep_contacts": keep_contacts,
                "allowed_entries": len(policy.allow),
            },
        )
    return policy


def redaction_policy_reset(*, license: License) -> None:
    """A license's redaction becomes global's again."""
    with transaction.atomic():
        RedactionPolicy.objects.filter(license=license).delete()
        audit_record("knowledge.redaction_policy_reset", target=f"scope:{license.machine_id}")
