"""The alternative annotator test (Calderon, Reichart & Dror 2025): may a model replace a coder?

Leave each human coder out in turn. On every item that human labelled, score the human and
the model by how well each aligns with the *remaining* humans who labelled the item, and
record who did at least as well. Then test, per human ``h``,

.. math::

    H_0^h:\\ \\rho_h - \\rho_f \\ge \\varepsilon \\quad\\text{against}\\quad
    H_1^h:\\ \\rho_h - \\rho_f < \\varepsilon,

where :math:`\\rho_f` is the probability that the model does at least as well as ``h`` on an
item and :math:`\\rho_h` that ``h`` does at least as well as the model; ``ε`` is the
cost-benefit margin (a penalty on the humans for what the model saves). The test is a one-sided
one-sample t-test of the per-item differences :math:`W_i^h - W_i^f \\in \\{-1, 0, 1\\}`
against ``ε``; the false discovery rate across humans is controlled by the
Benjamini–Yekutieli procedure at level ``alpha``. The **winning rate** ω is the share of
humans whose null hypothesis is rejected; the model passes when ω ≥ 0.5. The **advantage
probability** ρ (the mean over humans of :math:`\\hat\\rho_f^h`) ranks models.

This module reproduces the authors' reference code (nitaytech/AltTest, ``alt_test`` in
``alt_test_example.ipynb``; see ``docs/references.md#alttest-reference``), vectorised:

- an item is kept when the model labelled it and at least ``min_humans_per_item`` (2) humans
  did; the others are named in :attr:`AltTestResult.excluded_items` with the reason;
- a human is tested when they labelled at least ``min_items_per_human`` (30) kept items;
  the others are named in :attr:`AltTestResult.excluded_humans`. A human who is not tested
  still counts among "the remaining humans" of the other humans' items, as in the reference;
- alignment of a label ``x`` with the remaining labels ``y_1..y_k`` of an item:
  ``accuracy`` = the share of them equal to ``x``; ``neg_rmse`` =
  :math:`-\\sqrt{\\tfrac1k \\sum_j (x - y_j)^2}` (numeric labels);
- ties count for both: the model's indicator is ``score_f >= score_h`` and the human's
  ``score_h >= score_f``, so a tie contributes a difference of 0;
- the t-test is :func:`scipy.stats.ttest_1samp` (``alternative="less"``) on the differences;
  when they have no variance (every item the same difference ``d``) its statistic is
  ``±inf`` or undefined, and so is the p-value here: 0 when ``d < ε``, 1 when ``d > ε``, and
  undefined (``nan``, never rejected, still counted among the humans) when ``d == ε``;
- Benjamini–Yekutieli: with the ``m`` tested humans' p-values sorted, reject the ``k``
  smallest for the largest ``k`` with :math:`p_{(k)} \\le \\frac{k}{m} \\frac{q}{H_m}`,
  :math:`H_m = \\sum_{i=1}^m 1/i`; an undefined p-value is never below its threshold;
- ω = rejections / tested humans; ρ = the mean of the tested humans' :math:`\\hat\\rho_f^h`.

No Python loop runs over items: every (item, human, other human) triple is one position of a
few arrays, and the per-human statistics are ``bincount`` sums.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray
from scipy import special

from metrics.data import ReliabilityData
from metrics.models._data import from_long

__all__ = [
    "ALT_TEST_SCORINGS",
    "AltTestRefusedError",
    "AltTestResult",
    "HumanTest",
    "alt_test",
    "alt_tests",
    "benjamini_yekutieli",
]

#: The alignment scores of the reference code: categorical and numeric labels.
ALT_TEST_SCORINGS: tuple[str, ...] = ("accuracy", "neg_rmse")

Scoring = Literal["accuracy", "neg_rmse"]


class AltTestRefusedError(ValueError):
    """The test cannot run: no human qualifies, or the model or the humans are missing.

    ``reasons`` maps each human coder left out to why (empty when the refusal is not about
    the humans).
    """

    def __init__(self, message: str, reasons: dict[Hashable, str] | None = None) -> None:
        super().__init__(message)
        self.reasons = dict(reasons or {})


@dataclass(frozen=True)
class HumanTest:
    """One left-out human against the model.

    Attributes
    ----------
    coder : hashable
        The human coder.
    n_items : int
        Kept items this human labelled: the sample of the t-test.
    p_value : float
        One-sided p-value of :math:`H_0^h` (``nan`` when undefined, see the module docstring).
    rejected : bool
        Whether Benjamini–Yekutieli rejects :math:`H_0^h`: the model "wins" against this human.
    advantage_probability : float
        :math:`\\hat\\rho_f^h`: share of the items where the model aligned with the remaining
        humans at least as well as this human.
    human_advantage_probability : float
        :math:`\\hat\\rho_h^h`: share where the human did at least as well as the model.
    model_better, human_better, ties : int
        Items where the model scored strictly higher, the human strictly higher, or equal.
    note : str or None
        Why the p-value is what it is when the differences have no variance.
    """

    coder: Hashable
    n_items: int
    p_value: float
    rejected: bool
    advantage_probability: float
    human_advantage_probability: float
    model_better: int
    human_better: int
    ties: int
    note: str | None = None

    @property
    def mean_difference(self) -> float:
        """The mean of :math:`W_i^h - W_i^f`, compared with ε."""
        return (self.human_better - self.model_better) / self.n_items

    def to_json(self) -> dict[str, Any]:
        return {
            "p_value": _json_float(self.p_value),
            "rejected": self.rejected,
            "n_items": self.n_items,
            "advantage_probability": self.advantage_probability,
            "human_advantage_probability": self.human_advantage_probability,
            "mean_difference": self.mean_difference,
            "model_better": self.model_better,
            "human_better": self.human_better,
            "ties": self.ties,
            "note": self.note,
        }


@dataclass(frozen=True)
class AltTestResult:
    """The alternative annotator test of one model.

    Attributes
    ----------
    model : hashable
        The model coder.
    scoring : str
        ``"accuracy"`` or ``"neg_rmse"``.
    epsilon, alpha : float
        The cost-benefit margin ε and the false discovery rate level q.
    winning_rate : float
        ω: share of the tested humans against whom the model wins.
    advantage_probability : float
        ρ: mean over the tested humans of the model's advantage probability.
    passed : bool
        ``winning_rate >= 0.5``.
    humans : tuple of HumanTest
        The tested humans, in the order of the coders.
    n_items : int
        Items kept (labelled by the model and by at least ``min_humans_per_item`` humans).
    excluded_humans : dict
        Human coder → why they were not tested.
    excluded_items : dict
        Item → why it was not used.
    notes : tuple of str
        Caveats, e.g. fewer than three tested humans.
    """

    model: Hashable
    scoring: str
    epsilon: float
    alpha: float
    winning_rate: float
    advantage_probability: float
    passed: bool
    humans: tuple[HumanTest, ...]
    n_items: int
    excluded_humans: dict[Hashable, str] = field(default_factory=dict)
    excluded_items: dict[Hashable, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def human(self, coder: Hashable) -> HumanTest:
        """The test against one human coder."""
        for test in self.humans:
            if test.coder == coder:
                return test
        raise KeyError(coder)

    def to_json(self) -> dict[str, Any]:
        """The JSON contract of ``python -m metrics alt-test --json``."""
        return {
            "model": str(self.model),
            "scoring": self.scoring,
            "epsilon": self.epsilon,
            "alpha": self.alpha,
            "winning_rate": self.winning_rate,
            "advantage_probability": self.advantage_probability,
            "passed": self.passed,
            "n_items": self.n_items,
            "humans": {str(test.coder): test.to_json() for test in self.humans},
            "excluded_humans": {str(k): v for k, v in self.excluded_humans.items()},
            "excluded_items": {str(k): v for k, v in self.excluded_items.items()},
            "notes": list(self.notes),
        }


def alt_test(
    items: npt.ArrayLike | Sequence[Hashable],
    coders: npt.ArrayLike | Sequence[Hashable],
    labels: npt.ArrayLike | Sequence[Hashable],
    *,
    model: Hashable,
    humans: Sequence[Hashable] | None = None,
    epsilon: float = 0.2,
    alpha: float = 0.05,
    scoring: Scoring = "accuracy",
    min_humans_per_item: int = 2,
    min_items_per_human: int = 30,
) -> AltTestResult:
    """The alternative annotator test of ``model`` against the human coders.

    Parameters
    ----------
    items, coders, labels : array_like, shape (n_annotations,)
        One annotation per position (a coder labels an item at most once).
    model : hashable
        The model's coder identifier.
    humans : sequence of hashable, optional
        The human coders; default every coder but ``model``. Coders in neither are ignored
        (other models of the same study, for instance).
    epsilon : float, default 0.2
        The cost-benefit margin ε in [0, 1): the authors suggest 0.2 for expert coders, 0.15
        for skilled ones and 0.1 for crowd workers.
    alpha : float, default 0.05
        The false discovery rate level q of the Benjamini–Yekutieli procedure.
    scoring : {"accuracy", "neg_rmse"}, default "accuracy"
        Alignment with the remaining humans: the share of equal labels (categories), or the
        negative root mean squared difference (numeric labels).
    min_humans_per_item : int, default 2
        Items labelled by fewer humans are left out (at least 2).
    min_items_per_human : int, default 30
        Humans with fewer kept items are not tested (at least 2; the authors ask for 30 so
        that the t-test's normal approximation holds).

    Returns
    -------
    AltTestResult

    Raises
    ------
    AltTestRefusedError
        When the model labelled nothing, fewer than two humans labelled anything, or no human
        qualifies (the message names each human and why).
    ValueError
        For bad options, or ``neg_rmse`` on labels that are not numbers.

    References
    ----------
    Calderon, N., Reichart, R. & Dror, R. (2025). The Alternative Annotator Test for
    LLM-as-a-Judge: How to Statistically Justify Replacing Human Annotators with LLMs.
    Proceedings of ACL 2025, 16051–16081. https://aclanthology.org/2025.acl-long.782/

    Benjamini, Y. & Yekutieli, D. (2001). The control of the false discovery rate in multiple
    testing under dependency. Annals of Statistics 29(4), 1165–1188.
    https://doi.org/10.1214/aos/1013699998

    Examples
    --------
    Three humans and a model on 30 items; the model always agrees with the majority:

    >>> truth = ["a", "b", "c"] * 10
    >>> items, coders, labels = [], [], []
    >>> for i, label in enumerate(truth):
    ...     for coder in ("h1", "h2", "h3", "llm"):
    ...         wrong = coder == "h1" and i % 3 == 0
    ...         items.append(i); coders.append(coder); labels.append("x" if wrong else label)
    >>> result = alt_test(items, coders, labels, model="llm")
    >>> result.winning_rate, result.passed
    (1.0, True)
    """
    return alt_tests(
        items,
        coders,
        labels,
        models=[model],
        humans=humans,
        epsilon=epsilon,
        alpha=alpha,
        scoring=scoring,
        min_humans_per_item=min_humans_per_item,
        min_items_per_human=min_items_per_human,
    )[model]


def alt_tests(
    items: npt.ArrayLike | Sequence[Hashable],
    coders: npt.ArrayLike | Sequence[Hashable],
    labels: npt.ArrayLike | Sequence[Hashable],
    *,
    models: Sequence[Hashable],
    humans: Sequence[Hashable] | None = None,
    epsilon: float = 0.2,
    alpha: float = 0.05,
    scoring: Scoring = "accuracy",
    min_humans_per_item: int = 2,
    min_items_per_human: int = 30,
) -> dict[Hashable, AltTestResult]:
    """:func:`alt_test` of several models against the same humans, sharing the work.

    ``humans`` defaults to every coder that is not one of ``models``. Each model is tested
    on its own (its own kept items, its own Benjamini–Yekutieli step), as the reference code
    does when called once per model. Returns ``{model: AltTestResult}`` in the order given.
    """
    _check_options(epsilon, alpha, scoring, min_humans_per_item, min_items_per_human)
    data = from_long(items, coders, labels)
    return alt_tests_on_data(
        data,
        models=models,
        humans=humans,
        epsilon=epsilon,
        alpha=alpha,
        scoring=scoring,
        min_humans_per_item=min_humans_per_item,
        min_items_per_human=min_items_per_human,
    )


def alt_tests_on_data(
    data: ReliabilityData,
    *,
    models: Sequence[Hashable],
    humans: Sequence[Hashable] | None = None,
    epsilon: float = 0.2,
    alpha: float = 0.05,
    scoring: Scoring = "accuracy",
    min_humans_per_item: int = 2,
    min_items_per_human: int = 30,
) -> dict[Hashable, AltTestResult]:
    """:func:`alt_tests` on :class:`~metrics.data.ReliabilityData` (the CLI's reader)."""
    _check_options(epsilon, alpha, scoring, min_humans_per_item, min_items_per_human)
    models = list(models)
    if not models:
        raise ValueError("Name at least one model coder.")
    position = {coder: index for index, coder in enumerate(data.coders)}
    missing = [model for model in models if model not in position]
    if missing:
        raise AltTestRefusedError(f"The model coder {missing[0]!r} labelled no item.")
    if humans is None:
        human_ids = [coder for coder in data.coders if coder not in set(models)]
    else:
        human_ids = list(dict.fromkeys(humans))
        overlap = [h for h in human_ids if h in set(models)]
        if overlap:
            raise ValueError(f"Coder {overlap[0]!r} cannot be both a human and a model.")
    human_ids = [h for h in human_ids if h in position]
    if len(human_ids) < 2:
        raise AltTestRefusedError(
            "The alternative annotator test needs at least two human coders (the authors "
            f"recommend three or more); found {len(human_ids)}."
        )
    values = _numeric_values(data, scoring)
    pairs = _HumanPairs(data, [position[h] for h in human_ids], values)
    return {
        model: _one_model(
            data,
            pairs,
            position[model],
            model,
            values,
            epsilon=float(epsilon),
            alpha=float(alpha),
            scoring=scoring,
            min_humans_per_item=min_humans_per_item,
            min_items_per_human=min_items_per_human,
        )
        for model in models
    }


def benjamini_yekutieli(p_values: npt.ArrayLike, q: float) -> NDArray[np.bool_]:
    """Which hypotheses the Benjamini–Yekutieli (2001) step-up procedure rejects at level q.

    With the ``m`` p-values sorted, rejects the ``k`` smallest for the largest ``k`` such
    that :math:`p_{(k)} \\le \\frac{k}{m}\\frac{q}{H_m}`, :math:`H_m = \\sum_{i \\le m} 1/i`;
    ``nan`` p-values count in ``m`` and are never rejected (as in the reference code).

    Examples
    --------
    ``m = 4``, :math:`H_4 = 25/12`: thresholds 0.006, 0.012, 0.018, 0.024; the sorted
    p-values 0.001 and 0.01 are below theirs (statsmodels' ``multipletests(...,
    method="fdr_by")`` rejects the same two of ``[0.001, 0.2, 0.01, 0.04]``):

    >>> benjamini_yekutieli([0.001, 0.2, 0.01, float("nan")], 0.05).tolist()
    [True, False, True, False]
    """
    p = np.asarray(p_values, dtype=np.float64).reshape(-1)
    m = p.size
    rejected = np.zeros(m, dtype=bool)
    if m == 0:
        return rejected
    order = np.argsort(p)
    harmonic = np.sum(1.0 / np.arange(1, m + 1))
    thresholds = (np.arange(1, m + 1) / m) * (q / harmonic)
    below = np.flatnonzero(p[order] <= thresholds)
    if below.size:
        rejected[order[: below[-1] + 1]] = True
    return rejected


# -- helpers ---------------------------------------------------------------------------------


def _check_options(
    epsilon: float,
    alpha: float,
    scoring: str,
    min_humans_per_item: int,
    min_items_per_human: int,
) -> None:
    if not (isinstance(epsilon, int | float) and 0 <= epsilon < 1):
        raise ValueError(f"epsilon must be a number in [0, 1), got {epsilon!r}.")
    if not (isinstance(alpha, int | float) and 0 < alpha < 1):
        raise ValueError(f"alpha must be a number in (0, 1), got {alpha!r}.")
    if scoring not in ALT_TEST_SCORINGS:
        raise ValueError(f"scoring must be one of {ALT_TEST_SCORINGS}, got {scoring!r}.")
    if not (isinstance(min_humans_per_item, int) and min_humans_per_item >= 2):
        raise ValueError("min_humans_per_item must be an integer of at least 2.")
    if not (isinstance(min_items_per_human, int) and min_items_per_human >= 2):
        raise ValueError("min_items_per_human must be an integer of at least 2.")


def _numeric_values(data: ReliabilityData, scoring: str) -> NDArray[np.float64] | None:
    """``(V,)`` the domain as floats for ``neg_rmse``; None for ``accuracy``."""
    if scoring == "accuracy":
        return None
    values = data.domain_as_floats
    if values is None:
        raise ValueError("scoring 'neg_rmse' needs numeric labels; use 'accuracy' for categories.")
    return values


class _HumanPairs:
    """Every ordered pair (annotation a, annotation b) of two different humans on one item.

    ``a`` is the left-out human's annotation, ``b`` one of the remaining humans'; sorted by
    ``a`` then by ``b``'s coder (the order in which the reference sums a human's remaining
    labels, when its humans are in the coders' order). Shared by every model.
    """

    def __init__(
        self, data: ReliabilityData, human_positions: list[int], values: NDArray[np.float64] | None
    ) -> None:
        is_human = np.zeros(data.n_coders, dtype=bool)
        is_human[human_positions] = True
        kept = np.flatnonzero(is_human[data.coder_index])
        self.annotation = kept  # positions in data of the human annotations
        self.item = data.item_index[kept]
        self.coder = data.coder_index[kept]
        self.code = data.value_code[kept]
        self.humans = np.asarray(human_positions, dtype=np.intp)
        self.humans_per_item = np.bincount(self.item, minlength=data.n_items)
        humans_only = ReliabilityData.from_codes(
            self.item,
            self.coder,
            self.code,
            data.domain,
            range(data.n_items),
            range(data.n_coders),
        )
        # from_codes keeps the annotations in the (item, coder) order of ``data``.
        left, right = humans_only.item_pairs()
        first = np.concatenate([left, right])
        second = np.concatenate([right, left])
        order = np.lexsort((second, first))
        self.left = first[order]
        self.right = second[order]
        n = self.item.size
        # Scores of each left-out human against the remaining humans of the item: a sum over
        # them (matches for accuracy, squared differences for neg_rmse) and their number.
        self.others = np.bincount(self.left, minlength=n)
        if values is None:
            match = self.code[self.left] == self.code[self.right]
            self.human_sum = np.bincount(self.left, weights=match, minlength=n)
        else:
            x = values[self.code]
            self.human_sum = np.bincount(
                self.left, weights=(x[self.left] - x[self.right]) ** 2, minlength=n
            )


def _one_model(
    data: ReliabilityData,
    pairs: _HumanPairs,
    model_position: int,
    model: Hashable,
    values: NDArray[np.float64] | None,
    *,
    epsilon: float,
    alpha: float,
    scoring: str,
    min_humans_per_item: int,
    min_items_per_human: int,
) -> AltTestResult:
    # The model's label per item (-1 where it has none).
    model_code = np.full(data.n_items, -1, dtype=np.intp)
    mine = data.coder_index == model_position
    model_code[data.item_index[mine]] = data.value_code[mine]
    kept_item = (model_code >= 0) & (pairs.humans_per_item >= min_humans_per_item)
    excluded_items = _excluded_items(data, model_code, pairs.humans_per_item, min_humans_per_item)

    n = pairs.item.size
    right_item_code = model_code[pairs.item[pairs.left]]
    if values is None:
        match = right_item_code == pairs.code[pairs.right]
        model_sum = np.bincount(pairs.left, weights=match, minlength=n)
        # Same denominator (the remaining humans): compare the numbers of matches exactly.
        model_score, human_score = model_sum, pairs.human_sum
    else:
        x = values[pairs.code]
        m = values[np.maximum(right_item_code, 0)]
        model_sum = np.bincount(pairs.left, weights=(m - x[pairs.right]) ** 2, minlength=n)
        with np.errstate(invalid="ignore", divide="ignore"):
            model_score = -np.sqrt(model_sum / pairs.others)
            human_score = -np.sqrt(pairs.human_sum / pairs.others)
    used = kept_item[pairs.item]
    model_ge = (model_score >= human_score) & used
    human_ge = (human_score >= model_score) & used
    n_coders = data.n_coders
    per_coder = np.bincount(pairs.coder[used], minlength=n_coders)
    model_ge_count = np.bincount(pairs.coder[model_ge], minlength=n_coders)
    human_ge_count = np.bincount(pairs.coder[human_ge], minlength=n_coders)

    tested, excluded_humans = [], {}
    for position in pairs.humans:
        count = int(per_coder[position])
        if count < min_items_per_human:
            excluded_humans[data.coders[position]] = (
                f"labelled {count} usable item{'s' if count != 1 else ''}, fewer than "
                f"min_items_per_human ({min_items_per_human})"
            )
        else:
            tested.append(int(position))
    if not tested:
        reasons = "; ".join(f"{coder!r} {why}" for coder, why in excluded_humans.items())
        raise AltTestRefusedError(
            f"No human coder qualifies for the alternative annotator test of {model!r}: "
            f"{reasons}. Items are usable when the model and at least {min_humans_per_item} "
            "humans labelled them.",
            excluded_humans,
        )
    index = np.asarray(tested, dtype=np.intp)
    counts = per_coder[index].astype(np.float64)
    model_ge_h = model_ge_count[index].astype(np.float64)
    human_ge_h = human_ge_count[index].astype(np.float64)
    ties = model_ge_h + human_ge_h - counts
    model_better = counts - human_ge_h
    human_better = counts - model_ge_h
    p_values, notes = _one_sided_t(human_better, ties, model_better, epsilon)
    rejected = benjamini_yekutieli(p_values, alpha)
    humans = tuple(
        HumanTest(
            coder=data.coders[position],
            n_items=int(counts[k]),
            p_value=float(p_values[k]),
            rejected=bool(rejected[k]),
            advantage_probability=float(model_ge_h[k] / counts[k]),
            human_advantage_probability=float(human_ge_h[k] / counts[k]),
            model_better=int(model_better[k]),
            human_better=int(human_better[k]),
            ties=int(ties[k]),
            note=notes[k],
        )
        for k, position in enumerate(tested)
    )
    advantage = float(np.mean([test.advantage_probability for test in humans]))
    winning_rate = int(rejected.sum()) / len(humans)
    caveats = []
    if len(humans) < 3:
        caveats.append(
            f"Only {len(humans)} human{'s' if len(humans) != 1 else ''} tested: the authors "
            "recommend at least three, so that the remaining humans give a consensus."
        )
    return AltTestResult(
        model=model,
        scoring=scoring,
        epsilon=epsilon,
        alpha=alpha,
        winning_rate=winning_rate,
        advantage_probability=advantage,
        passed=winning_rate >= 0.5,
        humans=humans,
        n_items=int(np.count_nonzero(kept_item)),
        excluded_humans=excluded_humans,
        excluded_items=excluded_items,
        notes=tuple(caveats),
    )


def _excluded_items(
    data: ReliabilityData,
    model_code: NDArray[np.intp],
    humans_per_item: NDArray[np.intp],
    minimum: int,
) -> dict[Hashable, str]:
    no_model = model_code < 0
    few = ~no_model & (humans_per_item < minimum)
    out: dict[Hashable, str] = {}
    for i in np.flatnonzero(no_model):
        out[data.items[i]] = "not labelled by the model"
    for i in np.flatnonzero(few):
        k = int(humans_per_item[i])
        out[data.items[i]] = (
            f"labelled by {k} human{'s' if k != 1 else ''}, fewer than "
            f"min_humans_per_item ({minimum})"
        )
    return out


def _one_sided_t(
    plus: NDArray[np.float64],
    zero: NDArray[np.float64],
    minus: NDArray[np.float64],
    epsilon: float,
) -> tuple[NDArray[np.float64], list[str | None]]:
    """p-values of ``ttest_1samp(d, epsilon, alternative="less")`` for samples of -1, 0, 1.

    ``plus``, ``zero``, ``minus``: ``(m,)`` counts of the differences +1 (the human did
    strictly better), 0 and -1. The statistic is :math:`(\\bar d - \\varepsilon) /
    (s / \\sqrt n)` with the sample standard deviation ``s`` (``ddof=1``), the p-value the
    Student t CDF with ``n - 1`` degrees of freedom, as scipy computes them.
    """
    n = plus + zero + minus
    mean = (plus - minus) / n
    sum_squares = plus * (1 - mean) ** 2 + zero * mean**2 + minus * (1 + mean) ** 2
    variance = sum_squares / (n - 1)
    constant = np.count_nonzero(np.stack([plus, zero, minus]), axis=0) == 1
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (mean - epsilon) / np.sqrt(variance / n)
        p = special.stdtr(n - 1, t)
    notes: list[str | None] = [None] * n.size
    for k in np.flatnonzero(constant):
        d = float(mean[k])
        if d < epsilon:
            p[k], why = 0.0, "below"
        elif d > epsilon:
            p[k], why = 1.0, "above"
        else:
            p[k], why = np.nan, "equal to"
        notes[k] = (
            f"every item gave the same difference {d:g}, {why} epsilon: the t statistic is "
            + ("undefined, so is the p-value" if why == "equal to" else "infinite")
        )
    return p, notes


def _json_float(value: float) -> float | None:
    return None if value != value else value
