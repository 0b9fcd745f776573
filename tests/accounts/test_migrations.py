from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone

from accounts.models import SingleSignOnIdentity
from tests.migrations import latest, migrate


@pytest.mark.django_db(transaction=True)
def test_members_joined_before_the_upgrade_keep_their_tokens_from_their_last_sign_in():
    """Their API tokens lapse OIDC_TOKEN_SIGN_IN_DAYS after their last single sign-on; the
    upgrade must not make everyone joined before it look as if they never signed in."""
    migrate([("accounts", "0004_axes_access_log_emptied")])
    try:
        users = get_user_model().objects
        last_week = timezone.now() - timedelta(days=7)
        signed_in = users.create_user("kim@example.org", is_staff=True, last_login=last_week)
        never = users.create_user("pia@example.org", is_staff=True)
        _old_identity(signed_in.pk, "kim")
        _old_identity(never.pk, "pia")
    finally:
        migrate(latest())

    identities = {i.subject: i for i in SingleSignOnIdentity.objects.all()}
    assert identities["kim"].signed_in_at == last_week
    assert identities["pia"].signed_in_at == identities["pia"].linked_at


def _old_identity(user_id: int, subject: str) -> None:
    """A row as 0004's table holds it (today's model has a column that table lacks)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO accounts_singlesignonidentity (user_id, issuer, subject, linked_at)"
            " VALUES (%s, %s, %s, now())",
            [user_id, "https://id.example", subject],
        )
