import hashlib
import json

from django.db import migrations, models


def fingerprint_tables(apps, schema_editor):
    """The fingerprint of each stored table, as ``distance_tables.pairs_fingerprint``
    computes it (copied: a migration keeps the function of its time)."""
    table_model = apps.get_model("studies", "QuestionDistanceTable")
    for table in table_model.objects.all().iterator():
        canonical = [[a, b, float(d)] for a, b, d in table.pairs]
        table.fingerprint = hashlib.sha256(
            json.dumps(canonical, separators=(",", ":")).encode()
        ).hexdigest()
        table.save(update_fields=["fingerprint"])


class Migration(migrations.Migration):
    dependencies = [
        ("studies", "0017_merge_20261128_1030"),
    ]

    operations = [
        migrations.AddField(
            model_name="questiondistancetable",
            name="fingerprint",
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.RunPython(fingerprint_tables, migrations.RunPython.noop),
    ]
