from django.apps import AppConfig


class PlanningConfig(AppConfig):
    name = "planning"
    verbose_name = "Sample-size planning"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the Celery tasks by name (services send them by name after commit).
        from planning import tasks  # noqa: F401
