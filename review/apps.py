from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "review"
    verbose_name = "Review queue"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the signal receivers (the queue is rebuilt when a computation finishes).
        from review import receivers  # noqa: F401
