"""Krippendorff's alpha on pairwise choices: nominal, or with the tie in the middle.

The choices ``A``, ``tie`` and ``B`` are three values. Nominal alpha counts any two different
choices as one disagreement. Read as an ordinal scale ``A < tie < B`` (Krippendorff's ordinal
metric over the choices' frequencies), a tie against a preference is a smaller disagreement
than ``A`` against ``B``: prefer it when a tie means "about equal" rather than a third
opinion. Both are :func:`metrics.krippendorff_alpha` on the choice codes.
"""

from __future__ import annotations

from typing import Literal

from metrics.coefficients.alpha import decompose_krippendorff_alpha, krippendorff_alpha
from metrics.coefficients.result import CoefficientResult
from metrics.data import ReliabilityData
from metrics.decomposition import Decomposition
from metrics.structured.preferences.data import CHOICES, PreferenceData

Scale = Literal["nominal", "ordinal"]

__all__ = ["decompose_preference_alpha", "preference_alpha", "preference_reliability_data"]


def preference_reliability_data(data: PreferenceData) -> ReliabilityData:
    """The choices as :class:`metrics.ReliabilityData` over the domain ``A, tie, B``."""
    return ReliabilityData.from_codes(
        data.item_index, data.coder_index, data.choice, CHOICES, data.items, data.coders
    )


def _check(scale: str) -> None:
    if scale not in ("nominal", "ordinal"):
        raise ValueError(f"scale must be 'nominal' or 'ordinal'; got {scale!r}.")


def preference_alpha(data: PreferenceData, *, scale: Scale = "nominal") -> CoefficientResult:
    """Alpha on the choices, nominal or ordinal (``A < tie < B``).

    Examples
    --------
    Hand-worked: two coders, four comparisons, choices (A, A), (B, B), (A, tie), (tie, B).
    Values: A ×3, B ×3, tie ×2 (n = 8); D_o = 4/8 (two split items, two ordered pairs each);
    D_e = (64 - 9 - 9 - 4)/(8·7) = 42/56; alpha = 1 - (1/2)/(3/4) = 1/3.

    >>> data = PreferenceData.from_long([1, 1, 2, 2, 3, 3, 4, 4], list("abababab"),
    ...                                 ["A", "A", "B", "B", "A", "tie", "tie", "B"])
    >>> round(preference_alpha(data).value, 12)
    0.333333333333
    """
    _check(scale)
    return krippendorff_alpha(preference_reliability_data(data), distance=scale)


def decompose_preference_alpha(data: PreferenceData, *, scale: Scale = "nominal") -> Decomposition:
    """The same alpha as per-item rows, for the bootstrap over items."""
    _check(scale)
    return decompose_krippendorff_alpha(preference_reliability_data(data), distance=scale)
