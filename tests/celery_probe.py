"""A test-only task for the real-worker fixture: it writes a row through the ORM."""

from agreement_server.celery import app


@app.task(name="tests.celery_probe.study_create_probe")
def study_create_probe(name: str) -> None:
    from studies.models import Study

    Study.objects.create(name=name)
