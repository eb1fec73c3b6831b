"""The project package as an app, so that its system checks are registered."""

from django.apps import AppConfig


class AgreementServerConfig(AppConfig):
    name = "agreement_server"
    verbose_name = "Agreement server"

    def ready(self) -> None:
        from agreement_server import checks  # noqa: F401  (registers the checks)
