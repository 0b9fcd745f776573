"""The console's roles (accounts/roles.py) as groups. Staff accounts from before roles
existed had the whole console: they become owners, so an upgrade takes nothing away. The
groups' permissions are set after every migrate (licenses.apps)."""

from django.db import migrations

ROLES = ("owner", "knowledge_editor", "support", "privacy_officer")


def create_roles(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    User = apps.get_model("auth", "User")
    for role in ROLES:
        Group.objects.get_or_create(name=role)
    owner = Group.objects.get(name="owner")
    for user in User.objects.filter(is_staff=True, is_superuser=False):
        user.groups.add(owner)


class Migration(migrations.Migration):
    dependencies = [
        ("licenses", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(create_roles, migrations.RunPython.noop)]
