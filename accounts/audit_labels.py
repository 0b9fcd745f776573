"""What the audit page shows for each action and kind of object, in the reader's language
(the trail itself stores stable codes, which the CSV/JSON downloads keep)."""

from __future__ import annotations

from django.utils.translation import pgettext_lazy

ACTION_LABELS = {
    "account.signed_in": pgettext_lazy("audit", "signed in"),
    "account.sign_in_failed": pgettext_lazy("audit", "failed to sign in"),
    "account.password_reset_requested": pgettext_lazy("audit", "asked for a password reset"),
    "account.password_reset": pgettext_lazy("audit", "reset the password"),
    "account.two_factor_enabled": pgettext_lazy("audit", "turned two-factor sign-in on"),
    "account.two_factor_failed": pgettext_lazy("audit", "gave a wrong two-factor code"),
    "account.two_factor_removed": pgettext_lazy("audit", "removed two-factor sign-in"),
    "account.recovery_codes_renewed": pgettext_lazy("audit", "renewed recovery codes"),
    "member.invited": pgettext_lazy("audit", "invited a member"),
    "member.invitation_revoked": pgettext_lazy("audit", "revoked an invitation"),
    "member.joined": pgettext_lazy("audit", "joined"),
    "member.role_changed": pgettext_lazy("audit", "changed a role"),
    "member.role_granted": pgettext_lazy("audit", "granted a role"),
    "member.role_revoked": pgettext_lazy("audit", "revoked a role"),
    "member.deactivated": pgettext_lazy("audit", "deactivated a member"),
    "member.reactivated": pgettext_lazy("audit", "reactivated a member"),
    "knowledge.uploaded": pgettext_lazy("audit", "uploaded a document"),
    "knowledge.forgotten": pgettext_lazy("audit", "forgot a document"),
    "knowledge.chunk_forgotten": pgettext_lazy("audit", "forgot a passage"),
    "knowledge.retried": pgettext_lazy("audit", "queued a document again"),
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
    "user_data.exported": pgettext_lazy("audit", "exported a user's data"),
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
}


def action_label(action: str) -> str:
    return str(ACTION_LABELS.get(action, action))


def target_label(target: str) -> str:
    """ "document:3f2a…" → "document 3f2a…" in the reader's language."""
    kind, sep, rest = target.partition(":")
    if not sep or kind not in TARGET_LABELS:
        return target
    return f"{TARGET_LABELS[kind]} {rest}"
