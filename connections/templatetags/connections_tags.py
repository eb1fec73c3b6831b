"""The study page's Label Studio panel: ``{% label_studio_panel study role %}``."""

from __future__ import annotations

from typing import Any

from django import template

from connections.selectors import connection_list, latest_sync
from studies.access import role_allows
from studies.models import Role, Round, Study

register = template.Library()


@register.inclusion_tag("connections/study_panel.html", takes_context=True)
def label_studio_panel(context: Any, study: Study, role: Role) -> dict[str, Any]:
    connections = [
        {"connection": connection, "sync": latest_sync(connection)}
        for connection in connection_list(study=study).select_related("round")
    ]
    return {
        "study": study,
        "connections": connections,
        "can_manage": role_allows(role, Role.MANAGER),
        "rounds": list(Round.objects.filter(study=study).order_by("position", "id")),
        "csrf_token": context.get("csrf_token"),
    }
