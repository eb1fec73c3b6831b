"""The admin alone, built after ``studies.admin_webhooks`` registered its pages (until
``studies/admin.py`` imports that module, the project's URLconf may be built without them)."""

from django.contrib import admin
from django.urls import path

import studies.admin  # the project's admin pages
import studies.admin_webhooks  # noqa: F401  # the webhook pages

urlpatterns = [path("admin/", admin.site.urls)]
