"""Two kinds are new: the identity numbers of other countries (passport, RG, RUT, CURP,
CUIT, PIS…), and credentials (API keys, tokens, private keys: seed 004 §2.2 keeps them out
of knowledge). They are added to every stored policy that redacts anything, and left out
of one that chose to redact nothing, as knowledge 0030 did for social security numbers."""

from django.db import migrations

NEW_KINDS = ["ID", "SECRET"]


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
    dependencies = [("knowledge", "0030_redaction_social_security")]

    operations = [migrations.RunPython(add_new_kinds, remove_new_kinds)]
