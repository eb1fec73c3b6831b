"""``/api/v1/``: one router holding every app's routes (each app's ``api/urls.ROUTES``)."""

from __future__ import annotations

from django.urls import path
from rest_framework.routers import DefaultRouter

from adjudication.api.urls import ROUTES as ADJUDICATION_ROUTES
from annotations.api.urls import ROUTES as ANNOTATION_ROUTES
from computations.api.urls import ROUTES as COMPUTATION_ROUTES
from connections.api.urls import ROUTES as CONNECTION_ROUTES
from exchange.api.urls import ROUTES as EXCHANGE_ROUTES
from planning.api.urls import ROUTES as PLANNING_ROUTES
from review.api.urls import ROUTES as REVIEW_ROUTES
from studies.api.sign_in import TokenObtainView
from studies.api.urls import ROUTES as STUDY_ROUTES
from webhooks.api.urls import ROUTES as WEBHOOK_ROUTES

router = DefaultRouter()
for prefix, viewset, basename in (
    *STUDY_ROUTES,
    *ANNOTATION_ROUTES,
    *EXCHANGE_ROUTES,
    *COMPUTATION_ROUTES,
    *WEBHOOK_ROUTES,
    *REVIEW_ROUTES,
    *ADJUDICATION_ROUTES,
    *PLANNING_ROUTES,
    *CONNECTION_ROUTES,
):
    router.register(prefix, viewset, basename=basename)

urlpatterns = [
    path("auth/token/", TokenObtainView.as_view(), name="token-obtain"),
    *router.urls,
]
