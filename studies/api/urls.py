"""Routes of ``/api/v1/``: studies and everything nested under ``studies/{study_pk}/``.

Other parts of the API (annotations, imports/exports, computations/history, webhooks)
declare their routes in ``studies/api/<part>_urls.py`` as ``ROUTES``, a list of
``(regex prefix, viewset, basename)`` owned by that module; they are registered here
with the rest.
"""

from __future__ import annotations

from importlib import import_module

from rest_framework.routers import DefaultRouter

from studies.api import views

STUDY = r"studies/(?P<study_pk>[0-9]{1,18})"
ROUTE_MODULES = (
    "studies.api.annotation_urls",
    "studies.api.import_urls",
    "studies.api.computation_urls",
    "studies.api.webhook_urls",
)

router = DefaultRouter()
router.register(r"studies", views.StudyViewSet, basename="study")
router.register(rf"{STUDY}/members", views.MemberViewSet, basename="member")
router.register(rf"{STUDY}/tokens", views.StudyTokenViewSet, basename="study-token")
router.register(rf"{STUDY}/questions", views.QuestionViewSet, basename="question")
router.register(
    rf"{STUDY}/questions/(?P<question_pk>[0-9]{{1,18}})/categories",
    views.CategoryViewSet,
    basename="category",
)
router.register(rf"{STUDY}/coders", views.CoderViewSet, basename="coder")
router.register(rf"{STUDY}/items", views.ItemViewSet, basename="item")
router.register(rf"{STUDY}/rounds", views.RoundViewSet, basename="round")
router.register(r"tokens", views.PersonalTokenViewSet, basename="personal-token")

for module_name in ROUTE_MODULES:
    for prefix, viewset, basename in import_module(module_name).ROUTES:
        router.register(prefix, viewset, basename=basename)

urlpatterns = router.urls
