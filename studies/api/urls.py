"""Routes of the core resources: studies and what is nested under ``studies/{study_pk}/``.

Each app lists its API routes as ``ROUTES`` (regex prefix, viewset, basename) in its
``api/urls.py``; ``agreement_server/api_urls.py`` registers them all on one router.
"""

from __future__ import annotations

from studies.api import views

STUDY = r"studies/(?P<study_pk>[0-9]{1,18})"

ROUTES = [
    (r"studies", views.StudyViewSet, "study"),
    (rf"{STUDY}/members", views.MemberViewSet, "member"),
    (rf"{STUDY}/tokens", views.StudyTokenViewSet, "study-token"),
    (rf"{STUDY}/questions", views.QuestionViewSet, "question"),
    (
        rf"{STUDY}/questions/(?P<question_pk>{views.QUESTION_REF_REGEX})/categories",
        views.CategoryViewSet,
        "category",
    ),
    (rf"{STUDY}/coders", views.CoderViewSet, "coder"),
    (rf"{STUDY}/items", views.ItemViewSet, "item"),
    (rf"{STUDY}/rounds", views.RoundViewSet, "round"),
    (r"tokens", views.PersonalTokenViewSet, "personal-token"),
]
