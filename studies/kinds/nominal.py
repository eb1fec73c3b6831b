"""Nominal: one unordered category per item and coder (Artstein & Poesio 2008, §2)."""

from studies.kinds.base import Feature, Kind, ValueForm
from studies.kinds.common import (
    CATEGORICAL_COEFFICIENTS,
    LABEL_FEATURES,
    UNWEIGHTED,
    label_defaults,
)
from studies.kinds.values import parse_category

KIND = Kind(
    key="nominal",
    title="Nominal category",
    form=ValueForm.CATEGORY,
    parse=parse_category,
    has_categories=True,
    defaults=label_defaults((*CATEGORICAL_COEFFICIENTS, "brennan_prediger"), "nominal", "nominal"),
    item_decompositions={
        "nominal": (*UNWEIGHTED, "alpha", "ac1", "brennan_prediger"),
        "ordinal": (*UNWEIGHTED, "alpha"),
    },
    reference_distance=("nominal", "nominal"),
    features=LABEL_FEATURES | {Feature.QUALITY, Feature.MODELS},
    plan_model=True,
    model_scoring="accuracy",
)
