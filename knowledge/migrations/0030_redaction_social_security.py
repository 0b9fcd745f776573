"""Two kinds of personal data are new (Spanish and US social security numbers). A scope's
stored policy lists the kinds it redacts, chosen before these existed: they are added to
every policy that redacts anything, and left out of one that chose to redact nothing."""

from django.db import migrations

NEW_KINDS = ["NSS", "SSN"]


def add_new_kinds(apps, schema_editor):
    RedactionPolicy = apps.get_model("knowledge", "RedactionPolicy")
    for policy in RedactionPolicy.objects.exclude(kinds=[]):
        missing = [kind for kind in NEW_KINDS if kind not in policy.kinds]
        if missing:
            policy.kinds = [*policy.kinds, *missing]
            policy.save(update_fields=["kinds"])


def remove_new_kinds(apps, schema_editor):
    RedactionPolicy = apps.get_model("knowledge", "RedactionPolicy")
    for policy in RedactionPolicy.objects.all():
        kept = [kind for kind in policy.kinds if kind not in NEW_KINDS]
        if kept != policy.kinds:
            policy.kinds = kept
            policy.save(update_fields=["kinds"])


class Migration(migrations.Migration):
    dependencies = [("knowledge", "0029_search_log_words")]

    operations = [migrations.RunPython(add_new_kinds, remove_new_kinds)]
