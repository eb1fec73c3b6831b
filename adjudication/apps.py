from django.apps import AppConfig


class AdjudicationConfig(AppConfig):
    name = "adjudication"
    verbose_name = "Gold and adjudication"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the signal receivers (a finished computation refreshes the reference
        # results) and the tasks.
        from adjudication import receivers, tasks  # noqa: F401
