"""The admin alone, built after ``webhooks.admin`` registered its pages (until
``studies/admin.py`` imports that module, the project's URLconf may be built without them)."""

from django.contrib import admin
from django.urls import path

import webhooks.admin  # noqa: F401  # the webhook pages

urlpatterns = [path("admin/", admin.site.urls)]
