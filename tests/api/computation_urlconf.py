"""The project's URLs plus the computation routes, for as long as ``studies/api/urls.py``
does not register ``studies.api.computation_urls.ROUTES`` itself."""

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from studies.api.computation_urls import ROUTES

router = SimpleRouter()
for prefix, viewset, basename in ROUTES:
    router.register(prefix, viewset, basename=basename)

urlpatterns = [
    path("api/<str:version>/", include(router.urls)),
    path("", include("agreement_server.urls")),
]
