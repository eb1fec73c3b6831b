"""Best alignments of continua for γ: an exact set partition of the units into unitary alignments.

A *continuum* has ``k`` annotators (slots ``0 .. k-1``), each with zero or more units. A
*unitary alignment* takes at most one unit from each annotator (the others are *empty*); an
*alignment* is a set of unitary alignments in which every unit appears exactly once. The
disorder of a unitary alignment is the mean, over its ``k(k-1)/2`` pairs of annotators, of
the combined dissimilarity of their two units, a pair with an empty unit costing ``Δ∅``
(pygamma-agreement 0.5.9 counts a pair of two empty units as ``Δ∅`` too, so a lone unit costs
exactly ``Δ∅``). The best alignment minimises the summed disorder.

As in pygamma (and Mathet et al. 2015, §5.1.1), this is an integer programme over candidate
unitary alignments: one binary variable per candidate, one equality per unit ("in exactly one
chosen candidate"), minimise the summed disorders (:func:`scipy.optimize.milp`, HiGHS).
Candidates that can never be optimal are left out first:

- a candidate holding ``m`` units is dominated by ``m`` lone units when its disorder exceeds
  ``m · Δ∅``, so it is dropped (pygamma drops those above ``k · Δ∅``; both keep every optimum);
- hence two units whose dissimilarity exceeds ``k · k(k-1)/2 · Δ∅`` are never in one
  candidate, which bounds how far apart (relative to their lengths) two units may be, so
  candidates are grown annotator by annotator from neighbours found by a sorted search
  instead of from the whole product of the annotators' units.

For two annotators the problem is an assignment problem:
:func:`scipy.optimize.linear_sum_assignment` on the augmented cost matrix (unit × unit
dissimilarities, plus a ``Δ∅`` "left alone" column per unit of the first annotator and row per
unit of the second) solves it exactly.

Many continua (the documents of a corpus, or the random continua of the expected disorder)
are solved together: the candidates of all of them form one block-diagonal programme.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, sparse
from scipy.sparse import csgraph

from metrics.spans._gamma_dissimilarity import Dissimilarity

Method = Literal["auto", "milp", "assignment"]

#: Candidate unitary alignments kept in memory at once before giving up.
MAX_CANDIDATES = 5_000_000
#: Largest two-annotator continuum (units of both) solved by a dense assignment.
DENSE_ASSIGNMENT_LIMIT = 2000
# How far from 0 or 1 a relaxed solution may be and still count as integral.
_INTEGRAL = 1e-6
# Relative slack on the pruning bounds so that rounding never drops a candidate at a bound.
_SLACK = 1e-9


@dataclass(frozen=True, eq=False)
class Continua:
    """Units of several continua, sorted by (group, slot, begin, end).

    Attributes
    ----------
    group, slot : ndarray of int, shape (n_units,)
        Continuum of each unit, and its annotator within that continuum.
    begin, end : ndarray of float, shape (n_units,)
    category : ndarray of int, shape (n_units,)
    n_coders : ndarray of int, shape (n_groups,)
        Annotators of each continuum (at least two; an annotator may have no unit).
    """

    group: NDArray[np.intp]
    slot: NDArray[np.intp]
    begin: NDArray[np.float64]
    end: NDArray[np.float64]
    category: NDArray[np.intp]
    n_coders: NDArray[np.intp]

    @classmethod
    def build(
        cls,
        group: NDArray[np.intp],
        slot: NDArray[np.intp],
        begin: NDArray[np.float64],
        end: NDArray[np.float64],
        category: NDArray[np.intp],
        n_coders: NDArray[np.intp],
    ) -> Continua:
        """Sort the units; every continuum needs two annotators and every unit a slot."""
        n_coders = np.asarray(n_coders, dtype=np.intp)
        if (n_coders < 2).any():
            raise ValueError("every continuum needs at least two annotators")
        if len(group) and (np.asarray(slot) >= n_coders[group]).any():
            raise ValueError("a unit belongs to an annotator its continuum does not have")
        order = np.lexsort((end, begin, slot, group))
        return cls(
            np.asarray(group, dtype=np.intp)[order],
            np.asarray(slot, dtype=np.intp)[order],
            np.asarray(begin, dtype=np.float64)[order],
            np.asarray(end, dtype=np.float64)[order],
            np.asarray(category, dtype=np.intp)[order],
            n_coders,
        )

    @property
    def n_groups(self) -> int:
        return len(self.n_coders)

    @property
    def n_units(self) -> int:
        return len(self.begin)

    @property
    def max_coders(self) -> int:
        return int(self.n_coders.max()) if self.n_groups else 0

    @cached_property
    def counts(self) -> NDArray[np.intp]:
        """Units of each (group, slot), shape (n_groups, max_coders)."""
        flat = np.bincount(
            self.group * self.max_coders + self.slot, minlength=self.n_groups * self.max_coders
        )
        return flat.reshape(self.n_groups, self.max_coders).astype(np.intp)

    @cached_property
    def starts(self) -> NDArray[np.intp]:
        """Index of the first unit of each (group, slot) block."""
        flat = self.counts.ravel()
        return (np.cumsum(flat) - flat).reshape(self.counts.shape).astype(np.intp)

    @cached_property
    def units_per_group(self) -> NDArray[np.intp]:
        return self.counts.sum(axis=1).astype(np.intp)

    def take(self, keep: NDArray[np.bool_]) -> tuple[Continua, NDArray[np.intp]]:
        """The continua where ``keep`` is True, renumbered, and the kept units' old indices."""
        kept_units = np.flatnonzero(keep[self.group])
        new_group = (np.cumsum(keep) - 1)[self.group[kept_units]]
        sub = Continua(
            new_group.astype(np.intp),
            self.slot[kept_units],
            self.begin[kept_units],
            self.end[kept_units],
            self.category[kept_units],
            self.n_coders[keep],
        )
        return sub, kept_units


@dataclass(frozen=True, eq=False)
class Alignment:
    """Unitary alignments of one or more continua.

    Attributes
    ----------
    members : ndarray of int, shape (n_alignments, max_coders)
        Unit of each annotator slot, ``-1`` for an empty unit (and for slots beyond the
        continuum's annotators).
    group : ndarray of int, shape (n_alignments,)
    disorder : ndarray of float, shape (n_alignments,)
        Each unitary alignment's disorder.
    """

    members: NDArray[np.intp]
    group: NDArray[np.intp]
    disorder: NDArray[np.float64]

    def group_disorder(self, n_groups: int) -> NDArray[np.float64]:
        """Summed disorder of each continuum's unitary alignments."""
        summed = np.bincount(self.group, weights=self.disorder, minlength=n_groups)
        return summed.astype(np.float64)


def _pair_counts(n: NDArray[Any]) -> NDArray[np.float64]:
    count: NDArray[np.float64] = np.asarray(n * (n - 1) / 2.0, dtype=np.float64)
    return count


def _pair_bound(continua: Continua, dissimilarity: Dissimilarity) -> NDArray[np.float64]:
    """Largest dissimilarity two units of one candidate may have, per continuum."""
    k = continua.n_coders.astype(np.float64)
    return k * _pair_counts(k) * dissimilarity.delta_empty


def _window(
    continua: Continua,
    sources: NDArray[np.intp],
    slot: int,
    reach: NDArray[np.float64],
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """For each source unit, the index range of the units of ``slot`` in its continuum that
    begin close enough to be paired with it (a superset of the compatible units)."""
    groups = continua.group[sources]
    block_start = continua.starts[groups, slot]
    block_stop = block_start + continua.counts[groups, slot]
    source_reach = reach[groups]
    if not np.isfinite(source_reach).all() or not len(sources):
        return block_start, block_stop
    lengths = continua.end - continua.begin
    longest = np.zeros(continua.counts.shape)
    np.maximum.at(longest, (continua.group, continua.slot), lengths)
    margin = source_reach * (lengths[sources] + longest[groups, slot]) * (1 + _SLACK)
    low = continua.begin[sources] - margin
    high = continua.begin[sources] + margin
    # One sorted search over every block at once: units are sorted by (group, slot, begin), so
    # (block id, rank of begin) is a sorted integer key.
    values = np.unique(np.concatenate([continua.begin, low, high]))
    width = len(values) + 1
    width_blocks = continua.max_coders
    unit_key = (continua.group * width_blocks + continua.slot) * width + np.searchsorted(
        values, continua.begin
    )
    target = (groups * width_blocks + slot) * width
    first = np.searchsorted(unit_key, target + np.searchsorted(values, low), side="left")
    stop = np.searchsorted(unit_key, target + np.searchsorted(values, high), side="right")
    return np.clip(first, block_start, block_stop), np.clip(stop, block_start, block_stop)


def _expand(starts: NDArray[np.intp], counts: NDArray[np.intp]) -> NDArray[np.intp]:
    """Concatenated ``arange(start, start + count)`` for each pair."""
    total = int(counts.sum())
    offsets = np.repeat(starts - (np.cumsum(counts) - counts), counts)
    return (np.arange(total, dtype=np.intp) + offsets).astype(np.intp)


def _neighbours(
    continua: Continua, dissimilarity: Dissimilarity, slot: int, bound: NDArray[np.float64]
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Compatible units of ``slot`` for every unit of an earlier slot, as CSR (indptr, indices)."""
    sources = np.flatnonzero(
        (continua.slot < slot) & (continua.n_coders[continua.group] > slot)
    ).astype(np.intp)
    reach = dissimilarity.positional_reach(bound)
    first, stop = _window(continua, sources, slot, reach)
    sizes = stop - first
    left = np.repeat(sources, sizes)
    right = _expand(first, sizes)
    d = dissimilarity.combined(continua.begin, continua.end, continua.category, left, right)
    keep = d <= bound[continua.group[left]] * (1 + _SLACK)
    left, right = left[keep], right[keep]
    indptr = np.concatenate([[0], np.cumsum(np.bincount(left, minlength=continua.n_units))])
    return indptr.astype(np.intp), right.astype(np.intp)


@dataclass(frozen=True, eq=False)
class Candidates:
    """Candidate unitary alignments (see :class:`Alignment` for the fields)."""

    members: NDArray[np.intp]
    group: NDArray[np.intp]
    disorder: NDArray[np.float64]


def candidates(continua: Continua, dissimilarity: Dissimilarity) -> Candidates:
    """Every unitary alignment that may belong to a best alignment, with its disorder."""
    k_max = continua.max_coders
    delta = dissimilarity.delta_empty
    bound = _pair_bound(continua, dissimilarity)
    k = continua.n_coders.astype(np.float64)
    pairs = _pair_counts(k)

    members = np.empty((continua.n_groups, 0), dtype=np.intp)
    group = np.arange(continua.n_groups, dtype=np.intp)
    pair_sum = np.zeros(continua.n_groups)
    filled = np.zeros(continua.n_groups, dtype=np.intp)
    everything = np.arange(continua.n_units, dtype=np.intp)
    for slot in range(k_max):
        active = continua.n_coders[group] > slot
        # The units a partial candidate may take from this slot's annotator: every unit of
        # its block while it holds none yet, else the compatible neighbours of its first unit
        # (indices into `pool`, which is every unit followed by the neighbour lists).
        first, size = continua.starts[group, slot], continua.counts[group, slot]
        pool = everything
        if slot:
            indptr, indices = _neighbours(continua, dissimilarity, slot, bound)
            anchor = members[np.arange(len(group)), np.argmax(members >= 0, axis=1)]
            anchored = filled > 0
            first = np.where(anchored, indptr[anchor] + continua.n_units, first)
            size = np.where(anchored, indptr[anchor + 1] - indptr[anchor], size)
            pool = np.concatenate([everything, indices])
        size = np.where(active, size, 0)
        reps = size + 1  # every choice, plus the empty unit
        if int(reps.sum()) > MAX_CANDIDATES:
            raise ValueError(
                f"more than {MAX_CANDIDATES} candidate unitary alignments: the units overlap too "
                "much for an exact best alignment (set alpha > 0, or split the documents)"
            )
        parent = np.repeat(np.arange(len(group)), reps)
        position = np.arange(len(parent)) - np.repeat(np.cumsum(reps) - reps, reps)
        chosen = np.full(len(parent), -1, dtype=np.intp)
        real = position < size[parent]
        chosen[real] = pool[first[parent[real]] + position[real]]

        members, group = members[parent], group[parent]
        pair_sum, filled = pair_sum[parent], filled[parent]
        ok = np.ones(len(parent), dtype=bool)
        for earlier in range(slot):
            both = real & (members[:, earlier] >= 0)
            left, right = members[both, earlier], chosen[both]
            d = dissimilarity.combined(continua.begin, continua.end, continua.category, left, right)
            ok[both] &= d <= bound[group[both]] * (1 + _SLACK)
            pair_sum[both] += d
        filled = filled + real
        # Prune: whatever the remaining annotators add, the candidate must stay within
        # (m - 1)·P + C(m, 2) times Δ∅, m its final number of units and P the pairs of annotators.
        most = filled + np.maximum(continua.n_coders[group] - slot - 1, 0)
        limit = ((most - 1) * pairs[group] + _pair_counts(most)) * delta
        ok &= pair_sum <= limit * (1 + _SLACK) + 1e-12
        members = np.column_stack([members[ok], chosen[ok]])
        group, pair_sum, filled = group[ok], pair_sum[ok], filled[ok]

    nonempty = filled > 0
    members, group, pair_sum, filled = (
        members[nonempty],
        group[nonempty],
        pair_sum[nonempty],
        filled[nonempty],
    )
    disorder = (pair_sum + (pairs[group] - _pair_counts(filled)) * delta) / pairs[group]
    return Candidates(members.astype(np.intp), group, disorder)


def _partition(incidence: sparse.csr_matrix, x: NDArray[np.float64]) -> bool:
    """Whether the candidates with ``x > 0.5`` hold every unit exactly once."""
    return bool((incidence @ (x > 0.5).astype(np.float64) == 1).all())


def _integer_programme(incidence: sparse.csr_matrix, cost: NDArray[np.float64]) -> NDArray:
    result = optimize.milp(
        cost,
        constraints=optimize.LinearConstraint(incidence, 1.0, 1.0),
        integrality=np.ones(len(cost)),
        bounds=optimize.Bounds(0.0, 1.0),
        options={"mip_rel_gap": 0.0},
    )
    if result.x is None or not _partition(incidence, result.x):  # pragma: no cover
        raise RuntimeError(f"the alignment programme failed: {result.message}")
    return np.asarray(result.x)


def _components(found: Candidates, n_units: int) -> NDArray[np.intp]:
    """Connected component of each candidate: units sharing a candidate are connected."""
    members = found.members
    first = members[np.arange(len(members)), np.argmax(members >= 0, axis=1)]
    rows, cols = np.nonzero(members >= 0)
    graph = sparse.coo_matrix(
        (np.ones(len(rows)), (first[rows], members[rows, cols])), shape=(n_units, n_units)
    )
    _, label = csgraph.connected_components(graph, directed=False)
    return np.asarray(label[first], dtype=np.intp)


def _solve(found: Candidates, n_units: int, *, relax: bool) -> NDArray[np.bool_]:
    """Which candidates make a best alignment."""
    rows, cols = np.nonzero(found.members >= 0)
    # int32 indices: scipy's HiGHS wrapper takes no others.
    incidence = sparse.csr_matrix(
        (np.ones(len(rows)), (found.members[rows, cols].astype(np.int32), rows.astype(np.int32))),
        shape=(n_units, len(found.disorder)),
    )
    if not relax:
        return _integer_programme(incidence, found.disorder) > 0.5
    # The LP relaxation is usually integral (always with two annotators: the constraint matrix
    # is then a bipartite incidence matrix); an integral vertex optimum is a best alignment.
    # Where it is not, only the connected components holding fractional values need the
    # integer programme: components share no unit, so they are solved independently.
    relaxed = optimize.linprog(
        found.disorder,
        A_eq=incidence,
        b_eq=np.ones(n_units),
        bounds=(0.0, 1.0),
        method="highs-ds",
    )
    if relaxed.x is None:  # pragma: no cover - the relaxation of a feasible programme
        return _integer_programme(incidence, found.disorder) > 0.5
    x = np.round(relaxed.x)
    fractional = np.abs(relaxed.x - x) > _INTEGRAL
    if fractional.any():
        component = _components(found, n_units)
        redo = np.isin(component, component[fractional])
        units = np.flatnonzero(np.asarray(incidence[:, redo].sum(axis=1)).ravel() > 0)
        x[redo] = _integer_programme(incidence[units][:, redo], found.disorder[redo])
    if not _partition(incidence, x):  # pragma: no cover - tolerance trouble: solve it whole
        return _integer_programme(incidence, found.disorder) > 0.5
    return x > 0.5


def _milp(continua: Continua, dissimilarity: Dissimilarity, *, relax: bool = True) -> Alignment:
    found = candidates(continua, dissimilarity)
    if len(found.disorder) == 0:
        return Alignment(np.empty((0, continua.max_coders), np.intp), found.group, found.disorder)
    chosen = _solve(found, continua.n_units, relax=relax)
    return Alignment(found.members[chosen], found.group[chosen], found.disorder[chosen])


def _assignment(continua: Continua, dissimilarity: Dissimilarity) -> Alignment:
    """Two annotators per continuum: one assignment problem per continuum."""
    delta = dissimilarity.delta_empty
    members: list[NDArray[np.intp]] = []
    groups: list[NDArray[np.intp]] = []
    disorders: list[NDArray[np.float64]] = []
    for g in range(continua.n_groups):  # one dense problem per continuum, not per unit
        first = np.arange(continua.counts[g, 0]) + continua.starts[g, 0]
        second = np.arange(continua.counts[g, 1]) + continua.starts[g, 1]
        n1, n2 = len(first), len(second)
        if n1 + n2 == 0:
            continue
        d = dissimilarity.combined(
            continua.begin, continua.end, continua.category, first[:, None], second[None, :]
        )
        cost = np.full((n1 + n2, n2 + n1), np.inf)
        cost[:n1, :n2] = d
        cost[:n1, n2:][np.diag_indices(n1)] = delta
        cost[n1:, :n2][np.diag_indices(n2)] = delta
        cost[n1:, n2:] = 0.0
        row, col = optimize.linear_sum_assignment(cost)
        pair = np.full((n1 + n2, 2), -1, dtype=np.intp)
        pair[row < n1, 0] = first[row[row < n1]]
        pair[col < n2, 1] = second[col[col < n2]]
        keep = (pair >= 0).any(axis=1)
        value = cost[row, col][keep]
        members.append(pair[keep])
        disorders.append(value)
        groups.append(np.full(int(keep.sum()), g, dtype=np.intp))
    if not members:
        return Alignment(np.empty((0, 2), np.intp), np.empty(0, np.intp), np.empty(0))
    return Alignment(np.concatenate(members), np.concatenate(groups), np.concatenate(disorders))


def best_alignment(
    continua: Continua, dissimilarity: Dissimilarity, *, method: Method = "auto"
) -> Alignment:
    """A best alignment of every continuum.

    Parameters
    ----------
    method : {"auto", "milp", "assignment"}
        ``"milp"`` solves the integer programme with :func:`scipy.optimize.milp`;
        ``"assignment"`` the two-annotator assignment problem (every continuum must have two
        annotators); ``"auto"`` the assignment for two-annotator continua of up to
        ``DENSE_ASSIGNMENT_LIMIT`` units, and for the others the programme's LP relaxation
        first (:func:`scipy.optimize.linprog`, dual simplex), the integer programme only when
        the relaxed optimum is fractional. All three give a best alignment.
    """
    if method not in ("auto", "milp", "assignment"):
        raise ValueError(f"method must be 'auto', 'milp' or 'assignment', not {method!r}")
    two = continua.n_coders == 2
    if method == "assignment":
        if not two.all():
            raise ValueError("the assignment method needs exactly two annotators per continuum")
        return _assignment(continua, dissimilarity)
    if method == "milp":
        return _milp(continua, dissimilarity, relax=False)
    dense = two & (continua.units_per_group <= DENSE_ASSIGNMENT_LIMIT)
    parts: list[Alignment] = []
    width = continua.max_coders
    for keep, solve in ((dense, _assignment), (~dense, _milp)):
        if not keep.any():
            continue
        sub, units = continua.take(keep)
        found = solve(sub, dissimilarity)
        members = np.full((len(found.group), width), -1, dtype=np.intp)
        inner = found.members
        members[:, : inner.shape[1]] = np.where(inner >= 0, units[np.maximum(inner, 0)], -1)
        parts.append(Alignment(members, np.flatnonzero(keep)[found.group], found.disorder))
    if not parts:
        return Alignment(np.empty((0, width), np.intp), np.empty(0, np.intp), np.empty(0))
    return Alignment(
        np.concatenate([p.members for p in parts]),
        np.concatenate([p.group for p in parts]),
        np.concatenate([p.disorder for p in parts]),
    )
