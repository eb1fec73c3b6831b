import os

from django.core.wsgi import get_wsgi_application

from agreement_server.heap import freeze_startup_objects

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agreement_server.settings")

application = get_wsgi_application()
freeze_startup_objects()
