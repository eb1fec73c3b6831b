"""Random continua for γ's expected disorder: pygamma-agreement 0.5.9's default
``StatisticalContinuumSampler``, drawn with a seeded numpy generator.

From the observed data the sampler takes the mean and (population) standard deviation of

- the number of units per annotator of a continuum (an annotator with no unit counts 0),
- the *gap* before each unit: from the end of the same annotator's previous unit to its
  begin (negative when they overlap), and for an annotator's first unit its begin measured
  from the continuum's start when positive; a gap of 0 is always added (pygamma does, so
  that a continuum of lone units still has a gap),
- the unit lengths,

and the relative frequency of each category. A random continuum draws, for each annotator,
``|int(N(count))|`` units (at least one for the first annotator, so that a continuum is never
empty), each unit beginning ``N(gap)`` after the previous one's end (the first after 0), lasting
``|N(length)|`` (redrawn while shorter than 1e-6, pyannote's segment precision) and carrying a
category drawn from the frequencies.

Several documents pool their statistics (counts over annotated (document, coder) pairs, gaps
within each coder's units of a document, measured from the document's start); each random
continuum gets the number of annotators of a document drawn at random among those used. With
one document this is exactly pygamma's sampler (up to the random stream).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from metrics.spans._gamma_alignment import Continua

#: Shortest unit length a random continuum may have (pyannote.core's SEGMENT_PRECISION).
MIN_LENGTH = 1e-6
_MAX_REDRAWS = 1000


@dataclass(frozen=True)
class SamplingStatistics:
    """What random continua are drawn from (see the module docstring)."""

    count_mean: float
    count_std: float
    gap_mean: float
    gap_std: float
    length_mean: float
    length_std: float
    category_weights: NDArray[np.float64]
    n_coders: NDArray[np.intp]


def sampling_statistics(
    continua: Continua, origin: NDArray[np.float64], n_categories: int
) -> SamplingStatistics:
    """Statistics of observed continua; ``origin[g]`` is where continuum ``g`` starts."""
    k_max = continua.max_coders
    present = np.arange(k_max)[None, :] < continua.n_coders[:, None]
    counts = continua.counts[present].astype(np.float64)

    chain = continua.group * k_max + continua.slot
    follows = np.zeros(continua.n_units, dtype=bool)
    follows[1:] = chain[1:] == chain[:-1]
    within = continua.begin[1:][follows[1:]] - continua.end[:-1][follows[1:]]
    lead = continua.begin[~follows] - origin[continua.group[~follows]]
    gaps = np.concatenate([[0.0], within, lead[lead > 0]])

    lengths = continua.end - continua.begin
    weights = np.bincount(continua.category, minlength=n_categories).astype(np.float64)
    return SamplingStatistics(
        count_mean=float(np.mean(counts)),
        count_std=float(np.std(counts)),
        gap_mean=float(np.mean(gaps)),
        gap_std=float(np.std(gaps)),
        length_mean=float(np.mean(lengths)),
        length_std=float(np.std(lengths)),
        category_weights=weights / weights.sum(),
        n_coders=continua.n_coders.copy(),
    )


def sample_continua(
    statistics: SamplingStatistics, n_samples: int, rng: np.random.Generator
) -> Continua:
    """``n_samples`` random continua (group ``s`` is sample ``s``)."""
    choices = np.unique(statistics.n_coders)
    if len(choices) == 1:
        n_coders = np.full(n_samples, choices[0], dtype=np.intp)
    else:
        n_coders = statistics.n_coders[rng.integers(len(statistics.n_coders), size=n_samples)]
    chain_group = np.repeat(np.arange(n_samples), n_coders)
    chain_slot = np.arange(len(chain_group)) - np.repeat(np.cumsum(n_coders) - n_coders, n_coders)
    draws = rng.normal(statistics.count_mean, statistics.count_std, size=len(chain_group))
    counts = np.abs(np.trunc(draws)).astype(np.intp)
    counts[chain_slot == 0] = np.maximum(counts[chain_slot == 0], 1)

    n_units = int(counts.sum())
    gaps = rng.normal(statistics.gap_mean, statistics.gap_std, size=n_units)
    lengths = np.abs(rng.normal(statistics.length_mean, statistics.length_std, size=n_units))
    for _ in range(_MAX_REDRAWS):
        short = np.flatnonzero(lengths < MIN_LENGTH)
        if not len(short):
            break
        lengths[short] = np.abs(
            rng.normal(statistics.length_mean, statistics.length_std, size=len(short))
        )
    else:
        raise ValueError(
            f"the units are too short to sample random continua (mean length "
            f"{statistics.length_mean:g}; units must mostly be longer than {MIN_LENGTH:g})"
        )
    category = rng.choice(
        len(statistics.category_weights), size=n_units, p=statistics.category_weights
    )

    # Within each annotator's chain: begin_i = sum of gaps up to i + sum of lengths before i.
    step = np.cumsum(gaps + lengths)
    chain_first = np.cumsum(counts) - counts
    before = np.concatenate([[0.0], step])[chain_first]
    unit_chain = np.repeat(np.arange(len(counts)), counts)
    end = step - before[unit_chain]
    begin = end - lengths
    return Continua.build(
        chain_group[unit_chain],
        chain_slot[unit_chain],
        begin,
        end,
        category.astype(np.intp),
        n_coders,
    )
