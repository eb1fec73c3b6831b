from django.apps import AppConfig


class AnnotationsConfig(AppConfig):
    name = "annotations"
    verbose_name = "Annotations"
    default_auto_field = "django.db.models.BigAutoField"
