"""When a member joined to single sign-on last signed in through it (their API tokens lapse
after OIDC_TOKEN_SIGN_IN_DAYS without one). Before this, only the account's last sign-in
was kept: the identities from before start from it, else from when they were joined."""

from django.db import migrations, models
from django.db.models import F, OuterRef, Subquery
from django.db.models.functions import Coalesce


def start_from_last_sign_in(apps, schema_editor):  # noqa: ANN001, ANN201
    identities = apps.get_model("accounts", "SingleSignOnIdentity")
    users = identities._meta.get_field("user").related_model.objects
    last_login = users.filter(pk=OuterRef("user_id")).values("last_login")
    identities.objects.update(signed_in_at=Coalesce(Subquery(last_login), F("linked_at")))


class Migration(migrations.Migration):
    dependencies = [("accounts", "0004_axes_access_log_emptied")]

    operations = [
        migrations.AddField(
            model_name="singlesignonidentity",
            name="signed_in_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(start_from_last_sign_in, migrations.RunPython.noop),
    ]
