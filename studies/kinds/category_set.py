"""Set: several categories per item and coder, compared by MASI (Passonneau 2006)."""

from studies.kinds.base import Feature, Kind, ValueForm
from studies.kinds.common import LABEL_FEATURES, QUALITY_REFUSAL, label_defaults
from studies.kinds.values import parse_set

KIND = Kind(
    key="set",
    title="Set of categories",
    form=ValueForm.CATEGORY_SET,
    parse=parse_set,
    has_categories=True,
    defaults=label_defaults(("alpha", "observed_agreement"), "set", "masi"),
    reference_distance=("set", "masi"),
    features=LABEL_FEATURES,
    refusals={Feature.QUALITY: QUALITY_REFUSAL},
)
