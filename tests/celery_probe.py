"""Test-only tasks for the real-worker fixture: they write a row through the ORM."""

from agreement_server.celery import app


@app.task(name="tests.celery_probe.study_create_probe")
def study_create_probe(name: str) -> None:
    from studies.models import Study

    Study.objects.create(name=name)


@app.task(name="tests.celery_probe.session_settings_probe")
def session_settings_probe(names: list[str]) -> None:
    """Write the worker's database session settings as a study named ``name=value;...``."""
    from django.db import connection

    from studies.models import Study

    with connection.cursor() as cursor:
        values = []
        for name in names:
            cursor.execute("SELECT current_setting(%s)", [name])
            values.append(f"{name}={cursor.fetchone()[0]}")
    Study.objects.create(name=";".join(values))
