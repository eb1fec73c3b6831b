from django.apps import AppConfig


class ConnectionsConfig(AppConfig):
    name = "connections"
    verbose_name = "Connections to labeling tools"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the Celery tasks (sent by name from dispatch.py).
        from connections import tasks  # noqa: F401
