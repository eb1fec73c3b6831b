"""The project's URLs plus the annotation routes, for as long as ``studies/api/urls.py``
does not register ``studies.api.annotation_urls.ROUTES`` itself."""

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from studies.api.annotation_urls import ROUTES

router = SimpleRouter()
for prefix, viewset, basename in ROUTES:
    router.register(prefix, viewset, basename=basename)

urlpatterns = [
    path("api/<str:version>/", include(router.urls)),
    path("", include("agreement_server.urls")),
]
