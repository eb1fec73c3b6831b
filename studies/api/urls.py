"""Routes of ``/api/v1/``: studies and everything nested under ``studies/{study_pk}/``.

The annotation endpoints live in ``annotation_urls.ROUTES`` and the computations in
``computation_urls.ROUTES`` (owned by their modules); they are registered here with the rest.
"""

from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec

from rest_framework.routers import DefaultRouter

from studies.api import views
from studies.api.annotation_urls import ROUTES as ANNOTATION_ROUTES

STUDY = r"studies/(?P<study_pk>[0-9]{1,18})"

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
for prefix, viewset, basename in ANNOTATION_ROUTES:
    router.register(prefix, viewset, basename=basename)

# Computations and history register the same way once their module exists.
if find_spec("studies.api.computation_urls") is not None:
    for prefix, viewset, basename in import_module("studies.api.computation_urls").ROUTES:
        router.register(prefix, viewset, basename=basename)

urlpatterns = router.urls
