"""A Label Studio project's labeling configuration: its controls (the tags that write
results: ``<Choices name="sentiment" toName="text">``...).

A control's ``name`` is the results' ``from_name``, the tool field the import maps onto a
question; its tag, lower-cased, is the results' ``type``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from defusedxml import ElementTree

from exchange.formats.label_studio import SPAN_TYPES
from exchange.formats.label_studio_regions import REGION_TYPES

# Tags that look like controls but write no result of their own.
_NOT_CONTROLS = {"label", "choice", "relation", "relations", "header", "view", "style"}


@dataclass(frozen=True)
class Control:
    name: str
    type: str  # the tag lower-cased: choices, labels, rectanglelabels, textarea...
    to_name: str

    @property
    def is_span(self) -> bool:
        return self.type in SPAN_TYPES

    @property
    def region(self) -> str | None:
        return REGION_TYPES.get(self.type)


def controls_of(label_config: str) -> list[Control]:
    """The controls of a labeling configuration, in document order; [] when unreadable."""
    try:
        root = ElementTree.fromstring(label_config or "<View/>")
    except ElementTree.ParseError:
        return []
    controls = []
    for element in root.iter():
        name, to_name = element.get("name"), element.get("toName")
        tag = str(element.tag).lower()
        if name and to_name and tag not in _NOT_CONTROLS:
            controls.append(Control(name=name, type=tag, to_name=to_name))
    return controls


def control_question(
    control: Control, *, question_map: Mapping[str, str | None], question_keys: set[str]
) -> str | None:
    """The question a control's results go to, as the import maps tool fields: the
    ``question_map`` entry (null: ignored), else the question with the control's name."""
    if control.name in question_map:
        return question_map[control.name]
    return control.name if control.name in question_keys else None
