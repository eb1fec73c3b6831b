from django.apps import AppConfig


class PagesConfig(AppConfig):
    name = "pages"
    verbose_name = "Pages"
    default_auto_field = "django.db.models.BigAutoField"
