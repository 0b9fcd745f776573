"""A kind of personal data is new: the identity numbers of other countries (passport, RG,
RUT, CURP, CUIT, PIS…). It is added to every stored policy that redacts anything, and left
out of one that chose to redact nothing, as knowledge 0030 did for social security
numbers."""

from django.db import migrations

NEW_KINDS = ["ID"]


def add_new_kinds(apps, schema_editor):
    RedactionPolicy = apps.get_model("knowledge", "RedactionPolicy")
    for policy in RedactionPolicy.objects.exclude(kinds=[]):
        if "ID" not in policy.kinds:
            policy.kinds = [*policy.kinds, *NEW_KINDS]
            policy.save(update_fields=["kinds"])


def remove_new_kinds(apps, schema_editor):
    RedactionPolicy = apps.get_model("knowledge", "RedactionPolicy")
    for policy in RedactionPolicy.objects.all():
        kept = [kind for kind in policy.kinds if kind not in NEW_KINDS]
        if kept != policy.kinds:
            policy.kinds = kept
            policy.save(update_fields=["kinds"])


class Migration(migrations.Migration):
    dependencies = [("knowledge", "0030_redaction_social_security")]

    operations = [migrations.RunPython(add_new_kinds, remove_new_kinds)]
