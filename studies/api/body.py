"""Request bodies: a field the input serializer does not declare is a 400 naming it.

DRF drops an undeclared field silently, so a misspelled option (``min_overlpa``) would
change nothing, unseen. Query parameters are refused the same way (``studies.api.query``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import exceptions

from studies.closest import unknown_field

UNKNOWN_FIELD = "unknown_field"


class RefuseUnknownFieldsMixin:
    """For input serializers: refuses every body field that is not one of ``fields``."""

    fields: Any

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            declared = list(self.fields)
            unknown = sorted(str(name) for name in data if name not in self.fields)
            if unknown:
                raise exceptions.ValidationError(
                    {
                        name: [
                            exceptions.ErrorDetail(
                                unknown_field(name, declared), code=UNKNOWN_FIELD
                            )
                        ]
                        for name in unknown
                    }
                )
        return super().to_internal_value(data)  # type: ignore[misc]
