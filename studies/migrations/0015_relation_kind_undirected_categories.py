from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('studies', '0014_merge_batch_change_log'),
    ]

    operations = [
        migrations.AddField(
            model_name='category',
            name='undirected',
            field=models.BooleanField(db_default=False, default=False, help_text='Relation questions only: the label is symmetric (x–y is y–x).'),
        ),
        migrations.AlterField(
            model_name='question',
            name='kind',
            field=models.CharField(choices=[('nominal', 'Nominal category'), ('ordinal', 'Ordinal category'), ('interval', 'Interval number'), ('ratio', 'Ratio number'), ('set', 'Set of categories'), ('hierarchy', 'Node of a category tree'), ('span', 'Units (begin, end, category) on a continuum'), ('box', 'Boxes on an image'), ('polygon', 'Polygons on an image'), ('keypoint', 'Keypoints on an image'), ('text', 'Free text'), ('ranking', 'Ranking of options'), ('preference', 'Pairwise preference'), ('relation', 'Relations between units of a document')], max_length=20),
        ),
    ]
