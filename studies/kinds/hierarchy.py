"""Hierarchy: one node of a category tree, by code or by path, compared by tree distance."""

from studies.kinds.base import Feature, Kind, ValueForm
from studies.kinds.common import LABEL_FEATURES, QUALITY_REFUSAL, label_defaults
from studies.kinds.values import parse_node

KIND = Kind(
    key="hierarchy",
    title="Node of a category tree",
    form=ValueForm.CATEGORY,
    parse=parse_node,
    has_categories=True,
    category_tree=True,
    defaults=label_defaults(("alpha", "observed_agreement"), "hierarchy", "tree"),
    reference_distance=("hierarchy", "tree"),
    features=LABEL_FEATURES | {Feature.MODELS},
    refusals={Feature.QUALITY: QUALITY_REFUSAL},
    model_scoring="accuracy",
)
