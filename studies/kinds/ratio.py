"""Ratio: a number with a true zero, never negative (ratio alpha)."""

from studies.kinds.base import Feature, Kind, ValueForm
from studies.kinds.common import LABEL_FEATURES, QUALITY_REFUSAL, label_defaults
from studies.kinds.values import parse_number_label

KIND = Kind(
    key="ratio",
    title="Ratio number",
    form=ValueForm.NUMBER,
    parse=parse_number_label,
    takes_range=True,
    lowest_value=0.0,
    defaults=label_defaults(("alpha",), "ratio", "ratio"),
    reference_distance=("ratio", "ratio"),
    features=LABEL_FEATURES | {Feature.MODELS},
    refusals={Feature.QUALITY: QUALITY_REFUSAL},
    label_studio_type="number",
    model_scoring="neg_rmse",
)
