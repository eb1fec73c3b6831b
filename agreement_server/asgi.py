import os

from django.core.asgi import get_asgi_application

from agreement_server.heap import freeze_startup_objects

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agreement_server.settings")

application = get_asgi_application()
freeze_startup_objects()
