"""The Label Studio hook and the study page's connection actions (mounted at the root)."""

from __future__ import annotations

from django.urls import re_path

from connections import views

app_name = "connections"

_ID = "[0-9]{1,18}"

urlpatterns = [
    re_path(
        rf"^hooks/label-studio/(?P<connection_pk>{_ID})/$",
        views.label_studio_hook,
        name="label-studio-hook",
    ),
    re_path(
        rf"^studies/(?P<study_pk>{_ID})/label-studio/connect/$",
        views.connection_create_view,
        name="connect",
    ),
    re_path(
        rf"^studies/(?P<study_pk>{_ID})/label-studio/(?P<connection_pk>{_ID})/test/$",
        views.connection_test_view,
        name="test",
    ),
    re_path(
        rf"^studies/(?P<study_pk>{_ID})/label-studio/(?P<connection_pk>{_ID})/sync/$",
        views.connection_sync_view,
        name="sync",
    ),
]
