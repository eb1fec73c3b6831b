"""Interval: a number whose differences mean something (interval alpha, ICC)."""

from studies.kinds.base import Feature, Kind, ValueForm
from studies.kinds.common import LABEL_FEATURES, QUALITY_REFUSAL, label_defaults
from studies.kinds.values import parse_number_label

KIND = Kind(
    key="interval",
    title="Interval number",
    form=ValueForm.NUMBER,
    parse=parse_number_label,
    takes_range=True,
    defaults=label_defaults(("alpha",), "interval", "interval"),
    item_decompositions={"interval": ("alpha",)},
    reference_distance=("interval", "interval"),
    features=LABEL_FEATURES | {Feature.MODELS},
    refusals={Feature.QUALITY: QUALITY_REFUSAL},
    label_studio_type="number",
    model_scoring="neg_rmse",
)
