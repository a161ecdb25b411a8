# The versions of what the pages cache (core.versions); the people and the daily challenge's days
# already there get theirs, so their pages are cached from the start.

import time

from django.conf import settings
from django.db import migrations, models


def start_versions(apps, schema_editor):
    CacheVersion = apps.get_model("dicegame", "CacheVersion")
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    DailySeed = apps.get_model("daily", "DailySeed")
    value = time.time_ns()
    names = [f"user:{pk}" for pk in User.objects.values_list("pk", flat=True).iterator()]
    names += [f"day:{date.isoformat()}" for date in DailySeed.objects.values_list("date", flat=True)]
    CacheVersion.objects.bulk_create(
        [CacheVersion(name=name, value=value) for name in names], batch_size=1000, ignore_conflicts=True
    )


class Migration(migrations.Migration):

    dependencies = [
        ('dicegame', '0013_shared_dice'),
        ('daily', '0002_attempts_and_par'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='CacheVersion',
            fields=[
                ('name', models.CharField(max_length=64, primary_key=True, serialize=False)),
                ('value', models.BigIntegerField()),
            ],
        ),
        migrations.RunPython(start_versions, migrations.RunPython.noop),
    ]
