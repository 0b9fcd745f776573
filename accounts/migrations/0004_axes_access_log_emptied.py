"""django-axes' log of sign-ins (AXES_DISABLE_ACCESS_LOG is now on) kept each one's name,
address and browser with no retention: the rows from before go. The audit trail has them,
under its retention."""

from django.db import migrations


def empty_access_log(apps, schema_editor):  # noqa: ANN001, ANN201
    apps.get_model("axes", "AccessLog").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_single_sign_on_identity"),
        ("axes", "0010_accessattemptexpiration"),
    ]

    operations = [migrations.RunPython(empty_access_log, migrations.RunPython.noop)]
