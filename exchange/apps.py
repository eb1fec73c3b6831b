from django.apps import AppConfig


class ExchangeConfig(AppConfig):
    name = "exchange"
    verbose_name = "Imports and exports"
    default_auto_field = "django.db.models.BigAutoField"
