"""Intraclass correlation (ICC) for interval and ratio ratings.

The ten forms of McGraw & Wong (1996), six of which are Shrout & Fleiss's (1979), from one
two-way ANOVA of the items × coders table of ratings (items are McGraw & Wong's rows or
"targets", coders their columns or "judges"):

============================  ===========  =======  =============  ==================
model (who rated what)        type         unit     McGraw & Wong  Shrout & Fleiss
============================  ===========  =======  =============  ==================
``oneway``                    agreement    single   ICC(1)         ICC(1,1) "ICC1"
``oneway``                    agreement    average  ICC(k)         ICC(1,k) "ICC1k"
``twoway_random``             agreement    single   ICC(A,1)       ICC(2,1) "ICC2"
``twoway_random``             agreement    average  ICC(A,k)       ICC(2,k) "ICC2k"
``twoway_random``             consistency  single   ICC(C,1)       —
``twoway_random``             consistency  average  ICC(C,k)       —
``twoway_mixed``              agreement    single   ICC(A,1)       —
``twoway_mixed``              agreement    average  ICC(A,k)       —
``twoway_mixed``              consistency  single   ICC(C,1)       ICC(3,1) "ICC3"
``twoway_mixed``              consistency  average  ICC(C,k)       ICC(3,k) "ICC3k"
============================  ===========  =======  =============  ==================

Random and mixed two-way models share their estimates, F tests and intervals; they differ in
what the coefficient means (coders sampled from a population of coders, or these coders
only). With :math:`n` items, :math:`k` coders and the mean squares for items
(:math:`MS_R`), coders (:math:`MS_C`), residual error (:math:`MS_E`) and within items
(:math:`MS_W`, the one-way error):

.. math::

    \\mathrm{ICC}(1) = \\frac{MS_R - MS_W}{MS_R + (k-1) MS_W}, \\quad
    \\mathrm{ICC}(C,1) = \\frac{MS_R - MS_E}{MS_R + (k-1) MS_E}, \\quad
    \\mathrm{ICC}(A,1) = \\frac{MS_R - MS_E}{MS_R + (k-1) MS_E + \\frac{k}{n}(MS_C - MS_E)}

and the average measures (the reliability of the mean of the :math:`k` coders)
:math:`(MS_R - MS_W)/MS_R`, :math:`(MS_R - MS_E)/MS_R` and
:math:`(MS_R - MS_E)/(MS_R + (MS_C - MS_E)/n)`.

The F test is of :math:`H_0: \\rho = 0` against :math:`\\rho > 0` (McGraw & Wong 1996,
Table 8 with :math:`\\rho_0 = 0`): :math:`F = MS_R / MS_W` on :math:`(n-1, n(k-1))` degrees
of freedom for the one-way model, :math:`F = MS_R / MS_E` on :math:`(n-1, (n-1)(k-1))` for
the two-way models. The intervals are McGraw & Wong's (1996, Table 7, with the 1999
correction): exact F intervals for the one-way and consistency forms, and for absolute
agreement Satterthwaite's approximate degrees of freedom
:math:`\\nu = (a MS_C + b MS_E)^2 / [(a MS_C)^2/(k-1) + (b MS_E)^2/((n-1)(k-1))]` with
:math:`a = k\\hat\\rho / (n(1-\\hat\\rho))` and
:math:`b = 1 + k\\hat\\rho(n-1) / (n(1-\\hat\\rho))`, :math:`\\hat\\rho = \\mathrm{ICC}(A,1)`;
the average-measure intervals are the single-measure ones stepped up by Spearman–Brown.
These are the intervals of R ``psych::ICC``, R ``irr::icc`` and pingouin.

Data
----
Data go through :func:`metrics.data.as_reliability_data` like every coefficient's: a
``ReliabilityData`` whose domain holds numbers (or strings that spell numbers), or a
**coders × items** array with ``nan`` for a missing rating. (R ``irr::icc``, ``psych::ICC``
and pingouin's wide tables are items × coders: transpose them.) A numeric array is read as
is, without the factorisation into a value domain.

The ANOVA needs a complete design: every coder rates every item. Items with a missing
rating are refused with a ``ValueError`` that says how many there are, unless
``missing="drop"`` leaves them out (listwise deletion, as ``psych::ICC(missing=TRUE)`` and
pingouin's ``nan_policy="omit"``); the result's ``n_dropped`` counts them.

References
----------
Shrout, P. E. & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing rater
reliability. *Psychological Bulletin* 86(2), 420–428. https://doi.org/10.1037/0033-2909.86.2.420

McGraw, K. O. & Wong, S. P. (1996). Forming inferences about some intraclass correlation
coefficients. *Psychological Methods* 1(1), 30–46. https://doi.org/10.1037/1082-989X.1.1.30
Correction: *Psychological Methods* 1(4), 390.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from metrics.data import DataLike, ReliabilityData, as_reliability_data
from metrics.decomposition import Decomposition

Model = Literal["oneway", "twoway_random", "twoway_mixed"]
Type = Literal["agreement", "consistency"]
Unit = Literal["single", "average"]
Missing = Literal["raise", "drop"]

MODELS: tuple[Model, ...] = ("oneway", "twoway_random", "twoway_mixed")
TYPES: tuple[Type, ...] = ("agreement", "consistency")
UNITS: tuple[Unit, ...] = ("single", "average")

#: Every (model, type, unit) with an ICC, in McGraw & Wong's (1996, Table 4) order.
FORMS: tuple[tuple[Model, Type, Unit], ...] = (
    ("oneway", "agreement", "single"),
    ("oneway", "agreement", "average"),
    ("twoway_random", "agreement", "single"),
    ("twoway_random", "agreement", "average"),
    ("twoway_random", "consistency", "single"),
    ("twoway_random", "consistency", "average"),
    ("twoway_mixed", "agreement", "single"),
    ("twoway_mixed", "agreement", "average"),
    ("twoway_mixed", "consistency", "single"),
    ("twoway_mixed", "consistency", "average"),
)

_SHROUT_FLEISS: dict[tuple[Model, Type, Unit], str] = {
    ("oneway", "agreement", "single"): "ICC1",
    ("oneway", "agreement", "average"): "ICC1k",
    ("twoway_random", "agreement", "single"): "ICC2",
    ("twoway_random", "agreement", "average"): "ICC2k",
    ("twoway_mixed", "consistency", "single"): "ICC3",
    ("twoway_mixed", "consistency", "average"): "ICC3k",
}

__all__ = [
    "FORMS",
    "ICCAnova",
    "ICCResult",
    "ICCTable",
    "decompose_icc",
    "icc",
    "icc_anova",
    "icc_table",
]


@dataclass(frozen=True)
class ICCAnova:
    """The two-way ANOVA of an items × coders table that every ICC is computed from.

    Attributes
    ----------
    n_items, n_coders : int
        Items (rows, :math:`n`) and coders (columns, :math:`k`) of the complete design.
    n_dropped : int
        Items left out because a rating was missing (``missing="drop"``).
    ss_items, ss_coders, ss_error : float
        Sums of squares between items, between coders, and residual; they add up to the
        total sum of squares about the grand mean.
    ms_items, ms_coders, ms_error : float
        Mean squares :math:`MS_R`, :math:`MS_C`, :math:`MS_E` on :math:`n-1`, :math:`k-1`
        and :math:`(n-1)(k-1)` degrees of freedom.
    ms_within : float
        The one-way model's within-item mean square
        :math:`MS_W = (SS_C + SS_E) / (n(k-1))`.
    """

    n_items: int
    n_coders: int
    n_dropped: int
    ss_items: float
    ss_coders: float
    ss_error: float
    ms_items: float
    ms_coders: float
    ms_error: float
    ms_within: float


@dataclass(frozen=True)
class ICCResult:
    """One ICC form with its F test and confidence interval.

    Attributes
    ----------
    model : {"oneway", "twoway_random", "twoway_mixed"}
    type : {"agreement", "consistency"}
        Absolute agreement (coder mean differences count as disagreement) or consistency
        (they do not).
    unit : {"single", "average"}
        The reliability of one coder's rating, or of the mean of the ``n_coders`` ratings.
    form : str
        McGraw & Wong's name: ``"ICC(1)"``, ``"ICC(k)"``, ``"ICC(A,1)"``, ``"ICC(A,k)"``,
        ``"ICC(C,1)"`` or ``"ICC(C,k)"``.
    shrout_fleiss : str or None
        Shrout & Fleiss's name as R ``psych::ICC`` prints it (``"ICC1"`` … ``"ICC3k"``), or
        None for the four forms they did not list.
    value : float
        The ICC.
    f, df1, df2, p_value : float
        F statistic of :math:`H_0: \\rho = 0` (one-sided), its degrees of freedom and
        p-value. ``f`` is ``inf`` (``p_value`` 0) when the error mean square is 0.
    low, high : float
        Confidence interval at ``confidence`` (not clipped to [-1, 1]).
    confidence : float
    n_items, n_coders, n_dropped : int
        The design, as in :class:`ICCAnova`.
    """

    model: Model
    type: Type
    unit: Unit
    form: str
    shrout_fleiss: str | None
    value: float
    f: float
    df1: float
    df2: float
    p_value: float
    low: float
    high: float
    confidence: float
    n_items: int
    n_coders: int
    n_dropped: int


@dataclass(frozen=True)
class ICCTable:
    """Every ICC form of one data set, with the ANOVA they come from.

    Attributes
    ----------
    anova : ICCAnova
    results : tuple of ICCResult
        The ten forms in the order of :data:`FORMS`.
    """

    anova: ICCAnova
    results: tuple[ICCResult, ...]

    def get(self, model: Model, type: Type, unit: Unit) -> ICCResult:
        """The result of one form (see :func:`icc` for the arguments)."""
        _check_form(model, type, unit)
        return next(r for r in self.results if (r.model, r.type, r.unit) == (model, type, unit))

    def shrout_fleiss(self) -> dict[str, ICCResult]:
        """The six Shrout & Fleiss forms by their ``psych::ICC`` names (``"ICC1"`` …)."""
        return {r.shrout_fleiss: r for r in self.results if r.shrout_fleiss is not None}


# -- public API ------------------------------------------------------------------------------


def icc_anova(
    data: DataLike,
    *,
    missing: Missing = "raise",
    domain: Sequence[Hashable] | None = None,
) -> ICCAnova:
    """Sums and mean squares of the items × coders ANOVA behind every ICC.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        Numeric ratings, ``nan`` for missing (see the module docstring).
    missing : {"raise", "drop"}, default "raise"
        What to do with items some coder did not rate: refuse them with a ``ValueError``
        naming how many there are, or leave them out.
    domain : sequence, optional
        As in :func:`metrics.data.as_reliability_data`; its values must be numbers.

    Returns
    -------
    ICCAnova

    Raises
    ------
    ValueError
        For non-numeric ratings, incomplete items under ``missing="raise"``, fewer than two
        items or coders, or items that do not vary (:math:`MS_R = 0`).

    Examples
    --------
    Shrout & Fleiss (1979), Table 2 (coders × items), and their Table 3's mean squares:

    >>> ratings = [[9, 6, 8, 7, 10, 6], [2, 1, 4, 1, 5, 2], [5, 3, 6, 2, 6, 4],
    ...            [8, 2, 8, 6, 9, 7]]
    >>> a = icc_anova(ratings)
    >>> [round(x, 2) for x in (a.ms_items, a.ms_within, a.ms_coders, a.ms_error)]
    [11.24, 6.26, 32.49, 1.02]
    """
    values, n_dropped = _complete_ratings(data, missing=missing, domain=domain)
    return _anova(values, n_dropped)


def icc(
    data: DataLike,
    *,
    model: Model = "twoway_random",
    type: Type = "agreement",
    unit: Unit = "single",
    confidence: float = 0.95,
    missing: Missing = "raise",
    domain: Sequence[Hashable] | None = None,
) -> ICCResult:
    """One intraclass correlation with its F test and confidence interval.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        Numeric ratings, ``nan`` for missing. Note the orientation: coders are rows, as
        everywhere in ``metrics`` (R and pingouin take items × coders).
    model : {"twoway_random", "twoway_mixed", "oneway"}, default "twoway_random"
        ``oneway``: each item rated by its own set of coders (coders are not identified
        across items); the data's rows are then read as rating slots, and every item
        needs the same number of ratings. ``twoway_random``: the same coders rate every
        item and stand for a larger population of coders. ``twoway_mixed``: these coders
        are the only ones of interest.
    type : {"agreement", "consistency"}, default "agreement"
        Absolute agreement counts a coder who scores everything one point higher as
        disagreeing; consistency does not. The one-way model has only agreement.
    unit : {"single", "average"}, default "single"
        The reliability of one coder's ratings, or of the mean of all coders' ratings.
    confidence : float, default 0.95
        Confidence level of the interval.
    missing : {"raise", "drop"}, default "raise"
        Items some coder did not rate: refuse (``ValueError`` naming how many), or drop.
    domain : sequence, optional
        As in :func:`metrics.data.as_reliability_data`.

    Returns
    -------
    ICCResult

    Raises
    ------
    ValueError
        As :func:`icc_anova`; for a one-way consistency ICC; for an unknown form.

    References
    ----------
    McGraw & Wong (1996), Tables 4, 7 and 8; Shrout & Fleiss (1979).

    Examples
    --------
    Shrout & Fleiss (1979), Table 2: six targets, four judges (here coders × items). Their
    Table 4 prints ICC(2,1) = .29 and ICC(3,1) = .71:

    >>> ratings = [[9, 6, 8, 7, 10, 6], [2, 1, 4, 1, 5, 2], [5, 3, 6, 2, 6, 4],
    ...            [8, 2, 8, 6, 9, 7]]
    >>> r = icc(ratings)
    >>> r.form, r.shrout_fleiss, round(r.value, 2), round(r.f, 2), (r.df1, r.df2)
    ('ICC(A,1)', 'ICC2', 0.29, 11.03, (5.0, 15.0))
    >>> round(icc(ratings, model="twoway_mixed", type="consistency").value, 2)
    0.71
    """
    _check_form(model, type, unit)
    _check_confidence(confidence)
    values, n_dropped = _complete_ratings(
        data, missing=missing, domain=domain, oneway=model == "oneway"
    )
    return _form(_anova(values, n_dropped), model, type, unit, confidence)


def icc_table(
    data: DataLike,
    *,
    confidence: float = 0.95,
    missing: Missing = "raise",
    domain: Sequence[Hashable] | None = None,
) -> ICCTable:
    """All ten ICC forms of McGraw & Wong (1996) from one ANOVA.

    Like R ``psych::ICC`` and pingouin's ``intraclass_corr``, which print Shrout & Fleiss's
    six; :meth:`ICCTable.shrout_fleiss` selects those. Arguments as in :func:`icc`.

    Returns
    -------
    ICCTable

    Examples
    --------
    >>> ratings = [[9, 6, 8, 7, 10, 6], [2, 1, 4, 1, 5, 2], [5, 3, 6, 2, 6, 4],
    ...            [8, 2, 8, 6, 9, 7]]
    >>> table = icc_table(ratings)
    >>> {name: round(r.value, 2) for name, r in table.shrout_fleiss().items()}
    {'ICC1': 0.17, 'ICC1k': 0.44, 'ICC2': 0.29, 'ICC2k': 0.62, 'ICC3': 0.71, 'ICC3k': 0.91}
    """
    _check_confidence(confidence)
    anova = icc_anova(data, missing=missing, domain=domain)
    results = tuple(_form(anova, *form, confidence) for form in FORMS)
    return ICCTable(anova=anova, results=results)


def decompose_icc(
    data: DataLike,
    *,
    model: Model = "twoway_random",
    type: Type = "agreement",
    unit: Unit = "single",
    missing: Missing = "raise",
    domain: Sequence[Hashable] | None = None,
) -> Decomposition:
    """Per-item decomposition of :func:`icc`, for bootstrap intervals over items.

    Row ``u`` holds item ``u``'s ratings centred on the grand mean, their sum squared and
    their sum of squares, with a 1 counting the item; the ANOVA's sums of squares are
    functions of the column totals. An item left out by ``missing="drop"`` gets a row of
    zeros, so that the rows stay aligned with the data's items (for paired resampling of
    two rounds). A resample whose items all have one mean is degenerate (``nan``).

    Examples
    --------
    >>> ratings = [[9, 6, 8, 7, 10, 6], [2, 1, 4, 1, 5, 2], [5, 3, 6, 2, 6, 4],
    ...            [8, 2, 8, 6, 9, 7]]
    >>> round(float(decompose_icc(ratings).evaluate()), 4)
    0.2898
    """
    _check_form(model, type, unit)
    values, kept = _complete_ratings_mask(
        data, missing=missing, domain=domain, oneway=model == "oneway"
    )
    k = values.shape[0]
    centred = values - values.mean()
    sums = centred.sum(axis=0)
    stats = np.column_stack(
        [np.ones(centred.shape[1]), centred.T, sums * sums, np.einsum("ij,ij->j", centred, centred)]
    )
    name = f"icc_{model}_{type}_{unit}"

    def finalize(totals: NDArray[np.float64]) -> NDArray[np.float64]:
        return _icc_from_totals(totals, k, model, type, unit)

    return Decomposition(name, stats, finalize).on_items(kept)


# -- ratings ----------------------------------------------------------------------------------


def _complete_ratings(
    data: DataLike,
    *,
    missing: Missing,
    domain: Sequence[Hashable] | None,
    oneway: bool = False,
) -> tuple[NDArray[np.float64], int]:
    """Coders × items float ratings of the complete items, and how many items were dropped."""
    values, kept = _complete_ratings_mask(data, missing=missing, domain=domain, oneway=oneway)
    return values, int(kept.size - np.count_nonzero(kept))


def _complete_ratings_mask(
    data: DataLike,
    *,
    missing: Missing,
    domain: Sequence[Hashable] | None,
    oneway: bool = False,
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Coders × items float ratings of the complete items, and which items those are.

    With ``oneway`` the rows are rating slots rather than coders: each item's ratings are
    moved to the top rows, and an item is complete when it has as many ratings as the
    best-rated item.
    """
    if missing not in ("raise", "drop"):
        raise ValueError(f"missing must be 'raise' or 'drop'; got {missing!r}.")
    if not oneway and isinstance(data, ReliabilityData) and not data.coders_identified:
        raise ValueError(
            "A two-way ICC needs coder identities, but these data come from an agreement "
            "table (anonymous rating slots); use model='oneway'."
        )
    values, complete = _ratings(data, domain, oneway=oneway)
    n_items = complete.size
    n_coders = values.shape[0]
    n_incomplete = int(n_items - np.count_nonzero(complete))
    if n_incomplete:
        if missing == "raise":
            design = (
                f"the same number of ratings ({n_coders}) for every item"
                if oneway
                else f"every one of the {n_coders} coders' ratings of every item"
            )
            raise ValueError(
                f"The ICC needs a complete design, {design}: {n_incomplete} of {n_items} "
                "items miss a rating. Pass missing='drop' to leave those items out."
            )
    if n_coders < 2:
        what = "ratings per item" if oneway else "coders"
        raise ValueError(f"The ICC needs at least two {what}; got {n_coders}.")
    if values.shape[1] < 2:
        remaining = values.shape[1]
        raise ValueError(
            f"The ICC needs at least two complete items; {remaining} of {n_items} are "
            f"complete ({n_incomplete} dropped for a missing rating). A coder who rated few "
            "items empties the complete design: leave that coder out."
        )
    return values, complete


def _ratings(
    data: DataLike, domain: Sequence[Hashable] | None, *, oneway: bool
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Rows × complete items float ratings, and which items are complete.

    Rows are coders, or with ``oneway`` rating slots (each item's ratings sorted, on top; an
    item is complete when it has as many ratings as the best-rated item). For
    :class:`ReliabilityData` the matrix is built from the long arrays for the complete items
    only, never coders × all items.
    """
    if domain is None and not isinstance(data, ReliabilityData):
        array = np.asarray(data)
        if array.dtype.kind in "biuf":
            values = array.astype(np.float64)
            if np.isinf(values).any():
                raise ValueError("Ratings must be finite numbers (nan marks a missing rating).")
            if values.ndim != 2:
                raise ValueError("Ratings must be a coders × items matrix (2 dimensions).")
            if oneway:
                values = np.sort(values, axis=0)  # nan sorts last: each item's ratings on top
                per_item = np.count_nonzero(~np.isnan(values), axis=0)
                values = values[: int(per_item.max()) if values.shape[1] else 0]
            complete = ~np.isnan(values).any(axis=0)
            return np.ascontiguousarray(values[:, complete]), complete
    rd = as_reliability_data(data, domain=domain)
    numbers = _numeric_domain(rd.domain)
    per_item = rd.values_per_item
    rows = (int(per_item.max()) if rd.n_items else 0) if oneway else rd.n_coders
    complete = per_item == rows
    kept = complete[rd.item_index]
    column = (np.cumsum(complete) - 1)[rd.item_index[kept]]
    rating = numbers[rd.value_code[kept]]
    if oneway:
        row = np.arange(rd.n_annotations)[kept] - rd.item_starts[rd.item_index[kept]]
    else:
        row = rd.coder_index[kept]
    values = np.full((rows, int(np.count_nonzero(complete))), np.nan)
    values[row, column] = rating
    if oneway:
        values = np.sort(values, axis=0)
    return values, complete


def _numeric_domain(domain: tuple[Hashable, ...]) -> NDArray[np.float64]:
    if not domain:
        return np.zeros(1)
    try:
        numbers = np.asarray(domain, dtype=np.float64)
    except (TypeError, ValueError):
        examples = [value for value in domain if not _is_number(value)][:3]
        raise ValueError(
            "The ICC needs interval or ratio ratings (numbers); the data hold "
            f"{examples!r}. Use an agreement coefficient for categorical labels."
        ) from None
    if numbers.ndim != 1 or not np.isfinite(numbers).all():
        raise ValueError("Ratings must be finite numbers (nan marks a missing rating).")
    return numbers


def _is_number(value: object) -> bool:
    try:
        return math.isfinite(float(value))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


# -- ANOVA and forms --------------------------------------------------------------------------


def _anova(values: NDArray[np.float64], n_dropped: int) -> ICCAnova:
    """Two-way ANOVA without interaction of a complete coders × items matrix, vectorised."""
    k, n = values.shape
    centred = values - values.mean()  # centring first keeps the squares accurate
    item_effects = centred.mean(axis=0)
    coder_effects = centred.mean(axis=1)
    residual = centred - item_effects[np.newaxis, :] - coder_effects[:, np.newaxis]
    ss_items = float(k * np.dot(item_effects, item_effects))
    ss_coders = float(n * np.dot(coder_effects, coder_effects))
    ss_error = float(np.einsum("ij,ij->", residual, residual))
    ms_items = ss_items / (n - 1)
    if ms_items <= 0.0:
        raise ValueError(
            "The ICC is undefined: every item has the same mean rating, so there is no "
            "between-item variance to compare coder disagreement with."
        )
    return ICCAnova(
        n_items=n,
        n_coders=k,
        n_dropped=n_dropped,
        ss_items=ss_items,
        ss_coders=ss_coders,
        ss_error=ss_error,
        ms_items=ms_items,
        ms_coders=ss_coders / (k - 1),
        ms_error=ss_error / ((n - 1) * (k - 1)),
        ms_within=(ss_coders + ss_error) / (n * (k - 1)),
    )


def _form(anova: ICCAnova, model: Model, type: Type, unit: Unit, confidence: float) -> ICCResult:
    n, k = anova.n_items, anova.n_coders
    msr, msc, mse = anova.ms_items, anova.ms_coders, anova.ms_error
    tail = (1.0 - confidence) / 2.0
    if model == "oneway":
        error, df2 = anova.ms_within, float(n * (k - 1))
    else:
        error, df2 = mse, float((n - 1) * (k - 1))
    df1 = float(n - 1)
    f = msr / error if error > 0 else math.inf
    p_value = float(stats.f.sf(f, df1, df2))
    if model == "oneway" or type == "consistency":
        f_low = f / float(stats.f.isf(tail, df1, df2))
        f_high = f * float(stats.f.isf(tail, df2, df1))
        if unit == "single":
            value = (msr - error) / (msr + (k - 1) * error)
            low, high = _single_from_f(f_low, k), _single_from_f(f_high, k)
        else:
            value = (msr - error) / msr
            low, high = 1.0 - 1.0 / f_low, 1.0 - 1.0 / f_high
    else:
        single = (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)
        low, high = _agreement_interval(anova, single, tail)
        if unit == "single":
            value = single
        else:
            value = (msr - mse) / (msr + (msc - mse) / n)
            low, high = _spearman_brown(low, k), _spearman_brown(high, k)
    name = (
        ("ICC(1)" if unit == "single" else "ICC(k)")
        if model == "oneway"
        else (f"ICC({'A' if type == 'agreement' else 'C'},{'1' if unit == 'single' else 'k'})")
    )
    return ICCResult(
        model=model,
        type=type,
        unit=unit,
        form=name,
        shrout_fleiss=_SHROUT_FLEISS.get((model, type, unit)),
        value=float(value),
        f=float(f),
        df1=df1,
        df2=df2,
        p_value=p_value,
        low=float(low),
        high=float(high),
        confidence=float(confidence),
        n_items=n,
        n_coders=k,
        n_dropped=anova.n_dropped,
    )


def _icc_from_totals(
    totals: NDArray[np.float64], k: int, model: Model, type: Type, unit: Unit
) -> NDArray[np.float64]:
    """The ICC from column totals ``(..., 3 + k)`` of :func:`decompose_icc`'s statistics."""
    n = totals[..., 0]
    coder_sums = totals[..., 1 : 1 + k]
    grand = coder_sums.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        correction = grand * grand / (n * k)
        ss_items = totals[..., 1 + k] / k - correction
        ss_coders = np.einsum("...j,...j->...", coder_sums, coder_sums) / n - correction
        ss_error = totals[..., 2 + k] - correction - ss_items - ss_coders
        msr = ss_items / (n - 1)
        msc = ss_coders / (k - 1)
        mse = ss_error / ((n - 1) * (k - 1))
        if model == "oneway":
            msw = (ss_coders + ss_error) / (n * (k - 1))
            value = (msr - msw) / (msr + (k - 1) * msw) if unit == "single" else 1 - msw / msr
        elif type == "consistency":
            value = (msr - mse) / (msr + (k - 1) * mse) if unit == "single" else 1 - mse / msr
        elif unit == "single":
            value = (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)
        else:
            value = (msr - mse) / (msr + (msc - mse) / n)
    # A resample of items with one common mean has MS_R = 0 up to rounding: undefined.
    scale = totals[..., 2 + k] / np.maximum(n * k, 1)
    undefined = (n < 2) | ~(msr > 1e-12 * np.maximum(scale, np.finfo(float).tiny))
    return np.asarray(np.where(undefined, np.nan, value), dtype=np.float64)


def _single_from_f(f: float, k: int) -> float:
    """``(F - 1) / (F + k - 1)``, written to give 1 for an infinite F."""
    return 1.0 - k / (f + k - 1.0)


def _spearman_brown(rho: float, k: int) -> float:
    return k * rho / (1.0 + (k - 1) * rho)


def _agreement_interval(anova: ICCAnova, rho: float, tail: float) -> tuple[float, float]:
    """McGraw & Wong's (1996, Table 7, Case 2A) interval for ICC(A,1)."""
    n, k = anova.n_items, anova.n_coders
    msr, msc, mse = anova.ms_items, anova.ms_coders, anova.ms_error
    if mse == 0.0 and msc == 0.0:  # every coder gives every item the same rating
        return 1.0, 1.0
    a = k * rho / (n * (1.0 - rho))
    b = 1.0 + k * rho * (n - 1) / (n * (1.0 - rho))
    numerator = (a * msc + b * mse) ** 2
    denominator = (a * msc) ** 2 / (k - 1) + (b * mse) ** 2 / ((n - 1) * (k - 1))
    nu = numerator / denominator
    f_star = float(stats.f.isf(tail, n - 1, nu))
    f_star_inverse = float(stats.f.isf(tail, nu, n - 1))
    spread = k * msc + (k * n - k - n) * mse
    low = n * (msr - f_star * mse) / (f_star * spread + n * msr)
    high = n * (f_star_inverse * msr - mse) / (spread + n * f_star_inverse * msr)
    return low, high


# -- validation -------------------------------------------------------------------------------


def _check_form(model: object, type: object, unit: object) -> None:
    if model not in MODELS:
        raise ValueError(f"model must be one of {list(MODELS)}; got {model!r}.")
    if type not in TYPES:
        raise ValueError(f"type must be one of {list(TYPES)}; got {type!r}.")
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {list(UNITS)}; got {unit!r}.")
    if model == "oneway" and type == "consistency":
        raise ValueError(
            "The one-way model has no consistency ICC: coder effects cannot be separated "
            "from error when each item has its own coders. Use type='agreement', or a "
            "two-way model if the same coders rated every item."
        )


def _check_confidence(confidence: object) -> None:
    if not (
        isinstance(confidence, float | int)
        and not isinstance(confidence, bool)
        and 0.0 < float(confidence) < 1.0
    ):
        raise ValueError(f"confidence must be strictly between 0 and 1; got {confidence!r}.")
