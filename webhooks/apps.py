from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = "Webhooks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the Celery task (so deliveries can be sent by name) and the receivers.
        from webhooks import receivers, tasks  # noqa: F401
