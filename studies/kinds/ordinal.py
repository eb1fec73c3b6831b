"""Ordinal: one category of an ordered scale (weighted kappa, ordinal alpha)."""

from studies.kinds.base import Feature, Kind, ValueForm
from studies.kinds.common import (
    LABEL_FEATURES,
    UNWEIGHTED,
    label_defaults,
)
from studies.kinds.values import parse_category

KIND = Kind(
    key="ordinal",
    title="Ordinal category",
    form=ValueForm.CATEGORY,
    parse=parse_category,
    has_categories=True,
    ordered_categories=True,
    defaults=label_defaults(
        ("observed_agreement", "alpha", "kappa_w", "kappa"), "ordinal", "ordinal"
    ),
    item_decompositions={
        "nominal": (*UNWEIGHTED, "alpha", "ac1", "brennan_prediger"),
        "ordinal": (*UNWEIGHTED, "alpha"),
    },
    reference_distance=("ordinal", "ordinal"),
    # The quality models treat ordered categories as nominal ones (they have no order).
    features=LABEL_FEATURES | {Feature.QUALITY, Feature.MODELS},
    model_scoring="accuracy",
)
