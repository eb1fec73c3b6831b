"""The label kinds: one module per kind, each a :class:`~studies.kinds.base.Kind`.

The apps ask a question's kind (``kind_of(question.kind)``) what they need to know: how a
value is parsed and stored, which coefficients it has and which decompose over items,
which features apply (``kind.require(Feature.REVIEW)`` refuses with the reason). They
never compare ``Question.kind`` with a kind's key. docs/architecture.md tells how to add
a kind.
"""

from __future__ import annotations

from studies.kinds import (
    box,
    category_set,
    hierarchy,
    interval,
    keypoint,
    nominal,
    ordinal,
    polygon,
    preference,
    ranking,
    ratio,
    relation,
    span,
    text,
)
from studies.kinds.base import Feature, Kind, KindRefusalError, ValueForm

#: Every registered kind by its key, in the order people choose them.
KINDS: dict[str, Kind] = {
    module.KIND.key: module.KIND
    for module in (
        nominal,
        ordinal,
        interval,
        ratio,
        category_set,
        hierarchy,
        span,
        box,
        polygon,
        keypoint,
        text,
        ranking,
        preference,
        relation,
    )
}


def kind_of(key: str) -> Kind:
    """The kind a question's ``kind`` names; a KeyError for a key no kind has."""
    return KINDS[str(key)]


def kinds_of_form(form: ValueForm) -> list[str]:
    """The keys of the kinds whose values take ``form`` (for a database filter)."""
    return [key for key, kind in KINDS.items() if kind.form is form]


def kinds_with(feature: Feature) -> list[str]:
    """The keys of the kinds that have ``feature`` (for a database filter)."""
    return [key for key, kind in KINDS.items() if kind.supports(feature)]


def kinds_taking(parameter: str) -> list[str]:
    """The keys of the kinds whose computations take ``parameter``, in the order above."""
    return [key for key, kind in KINDS.items() if parameter in kind.parameters]


def computation_parameters() -> dict[str, list[str]]:
    """Every computation parameter some kind takes, with the keys of the kinds that take it."""
    taken: dict[str, list[str]] = {}
    for key, kind in KINDS.items():
        for name in kind.defaults:
            taken.setdefault(name, []).append(key)
    return taken


__all__ = [
    "KINDS",
    "Feature",
    "Kind",
    "KindRefusalError",
    "ValueForm",
    "computation_parameters",
    "kind_of",
    "kinds_of_form",
    "kinds_taking",
    "kinds_with",
]
