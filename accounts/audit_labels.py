"""What the audit page shows for each action and kind of object, in the reader's language
(the trail itself stores stable codes, which the CSV/JSON downloads keep)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.template.defaultfilters import filesizeformat
from django.utils.dateparse import parse_datetime
from django.utils.formats import date_format
from django.utils.timezone import localtime
from django.utils.translation import gettext, pgettext, pgettext_lazy

from accounts.roles import ROLE_LABELS

ACTION_LABELS = {
    "account.signed_in": pgettext_lazy("audit", "signed in"),
    "account.sign_in_failed": pgettext_lazy("audit", "failed to sign in"),
    "account.password_reset_requested": pgettext_lazy("audit", "asked for a password reset"),
    "account.password_reset": pgettext_lazy("audit", "reset the password"),
    "account.password_changed": pgettext_lazy("audit", "changed their password"),
    "account.two_factor_enabled": pgettext_lazy("audit", "turned two-factor sign-in on"),
    "account.two_factor_failed": pgettext_lazy("audit", "gave a wrong two-factor code"),
    "account.two_factor_removed": pgettext_lazy("audit", "removed two-factor sign-in"),
    "account.recovery_codes_renewed": pgettext_lazy("audit", "renewed recovery codes"),
    "member.invited": pgettext_lazy("audit", "invited a member"),
    "member.password_link": pgettext_lazy("audit", "gave a member a password link"),
    "member.invitation_revoked": pgettext_lazy("audit", "revoked an invitation"),
    "member.joined": pgettext_lazy("audit", "joined"),
    "member.role_changed": pgettext_lazy("audit", "changed a role"),
    "member.role_granted": pgettext_lazy("audit", "granted a role"),
    "member.role_revoked": pgettext_lazy("audit", "revoked a role"),
    "member.sso_linked": pgettext_lazy("audit", "joined their account to single sign-on"),
    "member.kept_as_last_owner": pgettext_lazy(
        "audit", "kept as owner: the provider's groups would leave no owner"
    ),
    "member.sso_unlinked": pgettext_lazy("audit", "unlinked a member's single sign-on"),
    "member.deactivated": pgettext_lazy("audit", "deactivated a member"),
    "member.reactivated": pgettext_lazy("audit", "reactivated a member"),
    "knowledge.uploaded": pgettext_lazy("audit", "uploaded a document"),
    "knowledge.forgotten": pgettext_lazy("audit", "forgot a document"),
    "knowledge.chunk_forgotten": pgettext_lazy("audit", "forgot a passage"),
    "knowledge.retried": pgettext_lazy("audit", "queued a document again"),
    "knowledge.read_again": pgettext_lazy("audit", "queued documents to be read again"),
    "knowledge.new_version": pgettext_lazy("audit", "uploaded a document's new version"),
    "knowledge.source_added": pgettext_lazy("audit", "added a web source"),
    "knowledge.source_forgotten": pgettext_lazy("audit", "forgot a web source"),
    "knowledge.redaction_policy_set": pgettext_lazy("audit", "set a redaction policy"),
    "knowledge.redaction_policy_reset": pgettext_lazy("audit", "reset a redaction policy"),
    "license.forged": pgettext_lazy("audit", "forged a license"),
    "license.changed": pgettext_lazy("audit", "changed a license"),
    "license.revoked": pgettext_lazy("audit", "revoked a license"),
    "license.reactivated": pgettext_lazy("audit", "reactivated a license"),
    "license.key_rotated": pgettext_lazy("audit", "rotated a license key"),
    "assistant.changed": pgettext_lazy("audit", "changed the assistant"),
    "assistant.reset": pgettext_lazy("audit", "reset a license's assistant"),
    "providers.changed": pgettext_lazy("audit", "changed the AI providers"),
    "token.created": pgettext_lazy("audit", "created an API token"),
    "token.revoked": pgettext_lazy("audit", "revoked an API token"),
    "memory.forgotten": pgettext_lazy("audit", "deleted a memory"),
    "memory.deactivated": pgettext_lazy("audit", "deactivated a memory"),
    "memory.reactivated": pgettext_lazy("audit", "reactivated a memory"),
    "conversations.exported": pgettext_lazy("audit", "exported conversations"),
    "conversations.erased": pgettext_lazy("audit", "erased a user's conversations"),
    "conversations.retention_set": pgettext_lazy("audit", "set conversation retention"),
    "conversations.purged": pgettext_lazy("audit", "purged old conversations"),
    "gaps.exported": pgettext_lazy("audit", "exported knowledge gaps"),
    "gap.dismissed": pgettext_lazy("audit", "dismissed a knowledge gap"),
    "gap.reopened": pgettext_lazy("audit", "reopened a knowledge gap"),
    "user_data.exported": pgettext_lazy("audit", "exported a user's data"),
    "user_data.erased": pgettext_lazy("audit", "erased a user's data"),
    "backup.created": pgettext_lazy("audit", "made a backup"),
    "backup.restored": pgettext_lazy("audit", "restored a backup"),
    "audit.exported": pgettext_lazy("audit", "downloaded the audit trail"),
    "audit.purged": pgettext_lazy("audit", "removed entries past retention"),
    "audit.retention_set": pgettext_lazy("audit", "set the audit trail's retention"),
}

TARGET_LABELS = {
    "document": pgettext_lazy("audit target", "document"),
    "chunk": pgettext_lazy("audit target", "passage"),
    "source": pgettext_lazy("audit target", "web source"),
    "scope": pgettext_lazy("audit target", "scope"),
    "license": pgettext_lazy("audit target", "license"),
    "account": pgettext_lazy("audit target", "account"),
    "token": pgettext_lazy("audit target", "token"),
    "memory": pgettext_lazy("audit target", "memory"),
    "gap": pgettext_lazy("audit target", "knowledge gap"),
}


# The details' keys (what audit_record's callers write), named for the reader.
DETAIL_LABELS = {
    "account": pgettext_lazy("audit detail", "account"),
    "allowed_entries": pgettext_lazy("audit detail", "allowed entries"),
    "allowed_origins": pgettext_lazy("audit detail", "widget origins"),
    "asked": pgettext_lazy("audit detail", "times asked"),
    "backup_created_at": pgettext_lazy("audit detail", "backup made"),
    "by": pgettext_lazy("audit detail", "by"),
    "bytes": pgettext_lazy("audit detail", "size"),
    "chunks": pgettext_lazy("audit detail", "passages"),
    "conversations": pgettext_lazy("audit detail", "conversations"),
    "days": pgettext_lazy("audit detail", "days kept"),
    "document": pgettext_lazy("audit detail", "document"),
    "documents": pgettext_lazy("audit detail", "documents"),
    "email": pgettext_lazy("audit detail", "address (pseudonym)"),
    "exchanges": pgettext_lazy("audit detail", "answers"),
    "expires_at": pgettext_lazy("audit detail", "expires"),
    "fields": pgettext_lazy("audit detail", "fields"),
    "filename": pgettext_lazy("audit detail", "file"),
    "files": pgettext_lazy("audit detail", "files"),
    "filters": pgettext_lazy("audit detail", "filters"),
    "forgotten_again": pgettext_lazy("audit detail", "forgotten again"),
    "gemini_key": pgettext_lazy("audit detail", "Gemini API key"),
    "format": pgettext_lazy("audit detail", "format"),
    "from": pgettext_lazy("audit detail", "from"),
    "gaps": pgettext_lazy("audit detail", "knowledge gaps"),
    "grace_seconds": pgettext_lazy("audit detail", "old key kept (seconds)"),
    "invited_by": pgettext_lazy("audit detail", "invited by"),
    "issuer": pgettext_lazy("audit detail", "identity provider"),
    "keep_contacts": pgettext_lazy("audit detail", "contacts kept"),
    "kept_by_other_documents": pgettext_lazy("audit detail", "kept by other documents"),
    "key_prefix": pgettext_lazy("audit detail", "key"),
    "kinds": pgettext_lazy("audit detail", "kinds"),
    "file_kinds": pgettext_lazy("audit detail", "file types"),
    "license": pgettext_lazy("audit detail", "license"),
    "memories": pgettext_lazy("audit detail", "memories"),
    "mailed": pgettext_lazy("audit detail", "mailed"),
    "mode": pgettext_lazy("audit detail", "mode"),
    "name": pgettext_lazy("audit detail", "name"),
    "new_filename": pgettext_lazy("audit detail", "new file"),
    "new_prefix": pgettext_lazy("audit detail", "new key"),
    "openai_key": pgettext_lazy("audit detail", "model server API key"),
    "older_than_days": pgettext_lazy("audit detail", "older than (days)"),
    "redaction": pgettext_lazy("audit detail", "redaction"),
    "removed": pgettext_lazy("audit detail", "removed"),
    "retention_days": pgettext_lazy("audit detail", "retention (days)"),
    "role": pgettext_lazy("audit detail", "role"),
    "roles": pgettext_lazy("audit detail", "roles"),
    "scope": pgettext_lazy("audit detail", "scope"),
    "signed": pgettext_lazy("audit detail", "signed"),
    "source_type": pgettext_lazy("audit detail", "source type"),
    "through": pgettext_lazy("audit detail", "through"),
    "to": pgettext_lazy("audit detail", "to"),
    "url": pgettext_lazy("audit detail", "URL"),
    "user": pgettext_lazy("audit detail", "user (pseudonym)"),
    "user_name_changed": pgettext_lazy("audit detail", "user name changed"),
    "was": pgettext_lazy("audit detail", "was"),
    "with_user": pgettext_lazy("audit detail", "with the user"),
}
# Codes a detail's value may hold, named by the app that defines them (an app above this one
# registers its choices when it loads: knowledge's redaction modes, source types...).
VALUE_LABELS: dict[str, Mapping[str, Any]] = {}


def audit_value_labels(key: str, labels: Mapping[str, Any]) -> None:
    """The reader's names for the codes the ``key`` detail holds (lazy translations); two
    apps writing the same key ("fields") each add theirs."""
    VALUE_LABELS[key] = {**VALUE_LABELS.get(key, {}), **labels}


audit_value_labels("by", {"single sign-on": pgettext_lazy("audit value", "single sign-on")})


_COMMAND_ACTOR = re.compile(r"command (?P<command>\S+) \((?P<user>.*)\)")
_ROLE_KEYS = {"role", "roles", "from", "to"}  # the values of these may be role codes
_ACTORS = {
    "system": pgettext_lazy("audit actor", "the system"),
    "anonymous": pgettext_lazy("audit actor", "anonymous"),
}


def detail_items(details: dict[str, Any]) -> list[tuple[str, str]]:
    """An entry's details as (name, value) in the reader's language: keys named, roles by
    their names, times in the reader's format, lists joined (the downloads keep the codes)."""
    return [
        (str(DETAIL_LABELS.get(key, key)), _detail_value(value, key=key))
        for key, value in details.items()
    ]


def _detail_value(value: Any, *, key: str) -> str:  # noqa: ANN401 - JSON of any shape
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    if value is None or value == "" or value == []:
        return "—"
    if isinstance(value, list):
        return ", ".join(_detail_value(item, key=key) for item in value)
    if isinstance(value, dict):
        return ", ".join(f"{k} {_detail_value(v, key=key)}" for k, v in value.items())
    if key == "bytes" and isinstance(value, int):
        return filesizeformat(value)
    roles = key in _ROLE_KEYS
    if roles and value == "all":  # a token not limited to one role
        return gettext("whatever the account may do")
    if roles and value in ROLE_LABELS:
        return str(ROLE_LABELS[value])
    if isinstance(value, str) and value in VALUE_LABELS.get(key, {}):
        return str(VALUE_LABELS[key][value])
    moment = _moment(value) if isinstance(value, str) and len(value) >= 19 else None
    if moment is not None and moment.tzinfo is not None:
        return date_format(localtime(moment), "SHORT_DATETIME_FORMAT")
    return str(value)


def _moment(text: str) -> datetime | None:
    try:
        return parse_datetime(text)
    except ValueError:  # shaped like one but not a date (a file named "2026-13-45 10:00:00")
        return None


def actor_label(actor: str) -> str:
    """Who did it: an account's name as stored; the scheduled jobs and anonymous callers in
    the reader's language."""
    if actor in _ACTORS:
        return str(_ACTORS[actor])
    command = _COMMAND_ACTOR.fullmatch(actor)  # accounts.audit names the shell so
    if command:
        return pgettext("audit actor", "command %(command)s (%(user)s)") % command.groupdict()
    return target_label(actor)  # "license:sala-01", a license's key calling


def action_label(action: str) -> str:
    return str(ACTION_LABELS.get(action, action))


def target_label(target: str) -> str:
    """ "document:3f2a…" → "document 3f2a…" in the reader's language."""
    kind, sep, rest = target.partition(":")
    if not sep or kind not in TARGET_LABELS:
        return target
    return f"{TARGET_LABELS[kind]} {rest}"
