# Plans stored before this migration took the pilot as the truth: they get "none"; new plans
# default to "lower-bound" (metrics.planning.DEFAULT_PILOT_UNCERTAINTY).

from django.db import migrations, models

CHOICES = [("lower-bound", "lower-bound"), ("bootstrap", "bootstrap"), ("none", "none")]


class Migration(migrations.Migration):
    dependencies = [
        ("planning", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="planrequest",
            name="pilot_uncertainty",
            field=models.CharField(choices=CHOICES, default="none", max_length=20),
        ),
        migrations.AlterField(
            model_name="planrequest",
            name="pilot_uncertainty",
            field=models.CharField(choices=CHOICES, default="lower-bound", max_length=20),
        ),
    ]
