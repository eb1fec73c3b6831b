from django.apps import AppConfig


class ComputationsConfig(AppConfig):
    name = "computations"
    verbose_name = "Computations"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the Celery tasks (so work can be sent by name) and the signal receivers.
        from computations import receivers, tasks  # noqa: F401
