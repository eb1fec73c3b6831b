from django.db import migrations, models


def _text(help_text: str) -> models.TextField:
    return models.TextField(blank=True, help_text=help_text)


class Migration(migrations.Migration):
    dependencies = [
        ("studies", "0011_item_image_region_kinds"),
    ]

    operations = [
        migrations.AddField(
            model_name="study",
            name="benchmark_scale",
            field=models.CharField(
                blank=True,
                choices=[
                    ("landis_koch", "Landis & Koch"),
                    ("fleiss", "Fleiss"),
                    ("altman", "Altman"),
                    ("krippendorff", "Krippendorff"),
                ],
                help_text="Empty: Krippendorff's scale for nominal alpha, Landis & Koch's for "
                "the unweighted kappa family, none for weighted coefficients and observed "
                "agreement. A scale: every chance-corrected coefficient is read on it.",
                max_length=20,
            ),
        ),
    ] + [
        migrations.AddField(
            model_name="study",
            name=name,
            field=_text(help_text),
        )
        for name, help_text in (
            (
                "subject_population",
                "GRRAS 3: the items and the population they stand for (e.g. forum posts of "
                "2023 from three German news sites).",
            ),
            (
                "rater_population",
                "GRRAS 4: who the coders are and whom they stand for (e.g. trained student "
                "assistants, crowd workers).",
            ),
            (
                "background",
                "GRRAS 5: what is known about this instrument's reliability, and why this "
                "study.",
            ),
            (
                "sample_size_rationale",
                "GRRAS 6: how the numbers of items and coders were chosen (e.g. a "
                "sample-size plan from the pilot round).",
            ),
            (
                "sampling",
                "GRRAS 7: how the items (and coders) were sampled (e.g. simple random "
                "sample of 40 posts).",
            ),
            (
                "blinding",
                "GRRAS 8: the rating process: what the coders saw, whether they were blind "
                "to each other's labels and to other information, time between repeats.",
            ),
            (
                "independence",
                "GRRAS 9: whether the coders labelled independently (no discussion before "
                "labelling).",
            ),
            ("rater_training", "GRRAS 12: the coders' training and experience."),
            ("practical_relevance", "GRRAS 14: what the results mean for the use of the labels."),
        )
    ]
