"""Account reads: a member's tokens."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from accounts.models import PersonalToken


def tokens_of(user: Any) -> QuerySet[PersonalToken]:  # noqa: ANN401 - a user model instance
    account = getattr(user, "account", user)  # a token's user is a limited copy
    return PersonalToken.objects.filter(user_id=account.pk).order_by("revoked_at", "-created_at")
