"""Distances between labels of a hierarchical tagset (a tree of categories).

Two families, both from Artstein & Poesio (2008, §4.2 and §4.5):

- :class:`TreeDistance`: proportional to the length of the path between two categories, in
  the spirit of Geertzen & Bunt (2006), whose paper gives no formula. The exact choice made
  here is documented on the class: path length divided by twice the depth of the tree, so a
  flat tagset (one root, all labels its children) gives the nominal distance; optional depth
  weights make disagreements higher in the tree count more; optionally only ancestor–
  descendant pairs get a distance below 1 (Geertzen & Bunt's condition).
- :class:`MelamedResnik`: ``d = 1 − Σ_leaves min(P(l|A), P(l|B))``, with a node's probability
  mass distributed recursively, equally over its children, down to the leaves.

A :class:`CategoryTree` is built from a parent map ``{node: parent or None}``. Several
top-level categories are allowed: they hang under an implicit root that is not a label.

References
----------
Artstein, R. & Poesio, M. (2008). Inter-coder agreement for computational linguistics.
*Computational Linguistics* 34(4), §4.2, §4.5. https://doi.org/10.1162/coli.07-034-R2
Geertzen, J. & Bunt, H. (2006). Measuring annotator agreement in a complex hierarchical
dialogue act annotation scheme. *Proc. 7th SIGdial Workshop*, 126–133.
Melamed, I. D. & Resnik, P. (2000). Tagger evaluation given hierarchical tag sets.
*Computers and the Humanities* 34(1–2), 79–84.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from scipy import sparse


class CategoryTree:
    """A tree (or forest) of categories built from a parent map.

    Parameters
    ----------
    parents : mapping
        ``{node: parent}`` for every node, ``None`` for a top-level node. Every parent must
        itself be a key. Several top-level nodes hang under an implicit root (not a label).

    Raises
    ------
    ValueError
        On an empty map, a parent that is not a node, or a cycle.

    Notes
    -----
    Depths count edges from the top: with a single root the root has depth 0; with several
    top-level nodes the implicit root has depth 0 and the top-level nodes depth 1, so that
    every path between two labels runs through the tree's edges (two top-level nodes are 2
    apart).

    Examples
    --------
    Artstein & Poesio (2008), Table 9: the "call" group with its WordNet senses.

    >>> tree = CategoryTree({"Group1": None, "WN1": "Group1", "WN3": "Group1",
    ...                      "WN19": "Group1", "WN22": "Group1"})
    >>> tree.depth("WN3"), tree.path_length("WN1", "WN3"), tree.leaves
    (1, 2, ('WN1', 'WN3', 'WN19', 'WN22'))
    """

    def __init__(self, parents: Mapping[Hashable, Hashable | None]) -> None:
        if not isinstance(parents, Mapping) or len(parents) == 0:
            raise ValueError("A category tree needs a non-empty mapping {node: parent or None}.")
        self._parent: dict[Hashable, Hashable | None] = dict(parents)
        unknown = [p for p in self._parent.values() if p is not None and p not in self._parent]
        if unknown:
            raise ValueError(
                f"Parents that are not nodes of the tree: {unknown[:10]!r}. Every parent "
                "must also be a key (with None as the parent of a top-level node)."
            )
        self.nodes: tuple[Hashable, ...] = tuple(self._parent)
        self._index = {node: i for i, node in enumerate(self.nodes)}
        self.roots: tuple[Hashable, ...] = tuple(n for n, p in self._parent.items() if p is None)
        if not self.roots:
            raise ValueError("The parent map has a cycle: no node has None as its parent.")
        self.has_implicit_root = len(self.roots) > 1
        self._chains = self._build_chains()
        self._chain_flat = np.concatenate(self._chains)
        self._chain_starts = np.cumsum([0] + [len(c) for c in self._chains[:-1]])
        offset = 1 if self.has_implicit_root else 0
        self._depth = np.array([len(c) - 1 + offset for c in self._chains], dtype=np.intp)
        children: dict[Hashable, list[Hashable]] = {node: [] for node in self.nodes}
        for node, parent in self._parent.items():
            if parent is not None:
                children[parent].append(node)
        self._children = {node: tuple(kids) for node, kids in children.items()}
        self.leaves: tuple[Hashable, ...] = tuple(n for n in self.nodes if not children[n])
        self.height = int(self._depth.max())

    def _build_chains(self) -> list[NDArray[np.intp]]:
        """For each node, the indices of itself and its ancestors, nearest first."""
        chains: dict[Hashable, list[int]] = {}
        for start in self.nodes:
            walk: list[Hashable] = []
            seen: set[Hashable] = set()
            node: Hashable | None = start
            while node is not None and node not in chains:
                if node in seen:
                    raise ValueError(f"The parent map has a cycle through {node!r}.")
                seen.add(node)
                walk.append(node)
                node = self._parent[node]
            tail = chains[node] if node is not None else []
            for position in range(len(walk) - 1, -1, -1):
                tail = [self._index[walk[position]], *tail]
                chains[walk[position]] = tail
        return [np.asarray(chains[node], dtype=np.intp) for node in self.nodes]

    def __repr__(self) -> str:
        return (
            f"CategoryTree({len(self.nodes)} nodes, {len(self.roots)} top-level, "
            f"height {self.height})"
        )

    def chain_sums(self, weights: NDArray[np.float64]) -> NDArray[np.float64]:
        """For each node, the sum of ``weights`` over itself and its ancestors.

        Parameters
        ----------
        weights : float array, shape (T,), indexed like ``nodes``

        Returns
        -------
        float array, shape (T,)
        """
        return np.asarray(np.add.reduceat(weights[self._chain_flat], self._chain_starts))

    # -- lookups ------------------------------------------------------------------------

    def _position(self, node: Hashable) -> int:
        try:
            return self._index[node]
        except (KeyError, TypeError):
            raise ValueError(f"{node!r} is not a category of the tree.") from None

    def positions(self, domain: Sequence[Hashable]) -> NDArray[np.intp]:
        """Index of each domain value among ``nodes``; ``ValueError`` for unknown values.

        Parameters
        ----------
        domain : sequence of hashable, length V

        Returns
        -------
        ndarray of int, shape (V,)
        """
        unknown = [value for value in domain if value not in self._index]
        if unknown:
            raise ValueError(
                f"Labels that are not categories of the tree: {unknown[:10]!r}. Every label "
                "must be a node of the CategoryTree."
            )
        return np.asarray([self._index[value] for value in domain], dtype=np.intp)

    def parent(self, node: Hashable) -> Hashable | None:
        """The parent of ``node``; None for a top-level node."""
        return self._parent[self.nodes[self._position(node)]]

    def children(self, node: Hashable) -> tuple[Hashable, ...]:
        """The children of ``node``, in the order of the parent map."""
        return self._children[self.nodes[self._position(node)]]

    def depth(self, node: Hashable) -> int:
        """Number of edges from the top (see the class Notes)."""
        return int(self._depth[self._position(node)])

    def ancestors(self, node: Hashable) -> tuple[Hashable, ...]:
        """Proper ancestors of ``node``, nearest first (the implicit root is not listed)."""
        chain = self._chains[self._position(node)]
        return tuple(self.nodes[i] for i in chain[1:])

    def is_ancestor(self, ancestor: Hashable, node: Hashable) -> bool:
        """True when ``ancestor`` is a proper ancestor of ``node``."""
        position = self._position(ancestor)
        chain = self._chains[self._position(node)]
        return bool(position in chain[1:])

    def lowest_common_ancestor(self, a: Hashable, b: Hashable) -> Hashable | None:
        """The deepest node that is an ancestor-or-self of both; None for the implicit root."""
        chain_b = set(self._chains[self._position(b)].tolist())
        for i in self._chains[self._position(a)]:
            if int(i) in chain_b:
                return self.nodes[int(i)]
        return None

    def path(self, a: Hashable, b: Hashable) -> tuple[Hashable | None, ...]:
        """Nodes from ``a`` to ``b`` through their lowest common ancestor (None: implicit root)."""
        top = self.lowest_common_ancestor(a, b)
        up = [a, *self.ancestors(a)]
        down = [b, *self.ancestors(b)]
        if top is None:
            return (*up, None, *reversed(down))
        return (*up[: up.index(top) + 1], *reversed(down[: down.index(top)]))

    def path_length(self, a: Hashable, b: Hashable) -> int:
        """Number of edges on the path between ``a`` and ``b``."""
        return len(self.path(a, b)) - 1

    def leaf_distribution(self, node: Hashable) -> dict[Hashable, float]:
        """``P(l | node)`` for the leaves under ``node``: mass split equally among children.

        Examples
        --------
        >>> CategoryTree({"A": None, "A1": "A", "A2": "A"}).leaf_distribution("A")
        {'A1': 0.5, 'A2': 0.5}
        """
        start = self._position(node)
        log_reach = self._log_reach()
        return {
            self.nodes[i]: float(np.exp(log_reach[i] - log_reach[start]))
            for i in (self._index[leaf] for leaf in self.leaves)
            if start in self._chains[i]
        }

    # -- vectorised building blocks ---------------------------------------------------------

    def _log_reach(self) -> NDArray[np.float64]:
        """``log r(x)``: r(x) is the product of 1/(number of children) over x's ancestors."""
        n_children = np.array([len(self._children[n]) for n in self.nodes], dtype=np.float64)
        log_share = -np.log(np.maximum(n_children, 1.0))
        return self.chain_sums(log_share) - log_share

    def ancestry(self, domain: Sequence[Hashable]) -> tuple[sparse.csr_matrix, NDArray[np.intp]]:
        """Ancestor-or-self membership of the domain's nodes over the nodes they involve.

        Parameters
        ----------
        domain : sequence of tree nodes, length V

        Returns
        -------
        membership : scipy.sparse.csr_matrix of float (0 or 1), shape (V, U)
            ``membership[v, u]`` is 1 when node ``columns[u]`` is ``domain[v]`` or one of
            its ancestors (sparse: each row holds one chain to the top).
        columns : int array, shape (U,)
            Indices into ``nodes`` of every ancestor-or-self of some domain value.
        """
        chains = [self._chains[i] for i in self.positions(domain)]
        flat = np.concatenate(chains) if chains else np.zeros(0, dtype=np.intp)
        rows = np.repeat(np.arange(len(chains)), [len(c) for c in chains])
        columns, inverse = np.unique(flat, return_inverse=True)
        membership = sparse.csr_matrix(
            (np.ones(len(flat)), (rows, inverse)), shape=(len(chains), len(columns))
        )
        return membership, columns


def _check_depth_weights(
    depth_weights: Sequence[float] | None, tree: CategoryTree
) -> tuple[float, ...] | None:
    if depth_weights is None:
        return None
    weights = tuple(float(w) for w in depth_weights)
    if len(weights) < tree.height:
        raise ValueError(
            f"depth_weights needs one weight per depth of the tree ({tree.height}); "
            f"got {len(weights)}."
        )
    if not all(np.isfinite(w) and w > 0 for w in weights):
        raise ValueError("depth_weights must be positive, finite numbers.")
    return weights


@dataclass(frozen=True)
class TreeDistance:
    r"""Distance proportional to the (weighted) path length between two categories.

    With :math:`w_k` the weight of an edge that ends at depth :math:`k` (all 1 by default)
    and :math:`L(a, b)` the sum of the edge weights on the path from a to b,

    .. math::

        d(a, b) = \frac{L(a, b)}{2 H}, \qquad H = \max_{x} L(\text{top}, x),

    H being the (weighted) depth of the deepest category, so ``2H`` bounds every path and
    d lies in [0, 1]. A flat tagset (one root, the labels its children) gives the nominal
    distance between labels, and a parent is 1/2 from its child there.

    With ``ancestor_only_below_one=True`` (Geertzen & Bunt 2006, as described by Artstein &
    Poesio 2008 §4.2) every pair that is not ancestor–descendant gets distance 1, while an
    ancestor–descendant pair keeps ``L / (2H) <= 1/2``.

    ``depth_weights=(w_1, w_2, ...)`` sets :math:`w_k`; decreasing weights make
    disagreements higher in the tree count more (Geertzen & Bunt's correction for depth): with
    ``(2, 1)``, two top-level siblings are ``4 / (2·3)`` apart and two siblings one step
    deeper ``2 / 6``.

    Parameters
    ----------
    tree : CategoryTree
    ancestor_only_below_one : bool, default False
    depth_weights : sequence of float, optional
        One positive weight per depth (edges ending at depth 1, 2, ...), at least
        ``tree.height`` of them.

    Examples
    --------
    Artstein & Poesio (2008) §4.5: A with children A1 and A2.

    >>> tree = CategoryTree({"A": None, "A1": "A", "A2": "A"})
    >>> TreeDistance(tree=tree).matrix(["A", "A1", "A2"]).tolist()
    [[0.0, 0.5, 0.5], [0.5, 0.0, 1.0], [0.5, 1.0, 0.0]]
    """

    tree: CategoryTree
    ancestor_only_below_one: bool = False
    depth_weights: Sequence[float] | None = None
    name: str = field(default="tree", init=False)

    def __post_init__(self) -> None:
        if not isinstance(self.tree, CategoryTree):
            raise ValueError("tree must be a CategoryTree.")
        object.__setattr__(
            self, "depth_weights", _check_depth_weights(self.depth_weights, self.tree)
        )

    def _edge_weights(self) -> NDArray[np.float64]:
        """Weight of the edge from each node up to its parent (0 for a single root)."""
        depth = self.tree._depth
        if self.depth_weights is None:
            return (depth > 0).astype(np.float64)
        table = np.array((0.0, *self.depth_weights), dtype=np.float64)
        return table[depth]

    def matrix(
        self, domain: Sequence[Hashable], counts: NDArray[np.float64] | None = None
    ) -> NDArray[np.float64]:
        """The V × V matrix of distances between the categories of ``domain``.

        Parameters
        ----------
        domain : sequence of tree nodes, length V
        counts : ignored

        Returns
        -------
        ndarray of float, shape (V, V)
        """
        membership, columns = self.tree.ancestry(domain)
        edge = self._edge_weights()
        weighted = membership.multiply(edge[columns][None, :]).tocsr()
        own = np.asarray(weighted.sum(axis=1)).ravel()
        shared = (weighted @ membership.T).toarray()
        length = np.maximum(own[:, None] + own[None, :] - 2 * shared, 0.0)
        scale = 2 * float(self.tree.chain_sums(edge).max())
        distance = length / scale if scale > 0 else np.zeros_like(length)
        if self.ancestor_only_below_one:
            steps = np.asarray(membership.sum(axis=1)).ravel()
            common = (membership @ membership.T).toarray()
            related = common == np.minimum(steps[:, None], steps[None, :])
            distance = np.where(related, distance, 1.0)
        return np.asarray(distance, dtype=np.float64)


@dataclass(frozen=True)
class MelamedResnik:
    r"""Melamed & Resnik's distance between tags of a hierarchy.

    .. math:: d_{M+R}(A, B) = 1 - \sum_{l \in \text{leaves}} \min(P(l \mid A), P(l \mid B))

    ``P(l | T)`` is the probability of reaching leaf l from T when T's mass is handed down
    equally to its children, recursively (one reading of Artstein & Poesio's "distributed
    uniformly to all the nodes dominated by T"; the other, flat over the leaves, is not
    used). Leaves under two nodes overlap only when one is an ancestor of the other, so the
    sum reduces to ``P(B reached from A) = r(B) / r(A)`` for an ancestor A of B, with
    ``r(x)`` the product of ``1 / (number of children)`` over x's ancestors, and d = 1 for
    unrelated tags. That closed form is what is computed, for all pairs at once. A node
    with a single child passes all its mass on, so it is at distance 0 from that child.

    Parameters
    ----------
    tree : CategoryTree

    References
    ----------
    Artstein & Poesio (2008), §4.5 (with the product replaced by min, as they propose).

    Examples
    --------
    Artstein & Poesio (2008) §4.5: A with children A1, A2.

    >>> tree = CategoryTree({"A": None, "A1": "A", "A2": "A"})
    >>> MelamedResnik(tree=tree).matrix(["A", "A1", "A2"]).tolist()
    [[0.0, 0.5, 0.5], [0.5, 0.0, 1.0], [0.5, 1.0, 0.0]]
    """

    tree: CategoryTree
    name: str = field(default="melamed_resnik", init=False)

    def __post_init__(self) -> None:
        if not isinstance(self.tree, CategoryTree):
            raise ValueError("tree must be a CategoryTree.")

    def matrix(
        self, domain: Sequence[Hashable], counts: NDArray[np.float64] | None = None
    ) -> NDArray[np.float64]:
        """The V × V matrix of distances between the categories of ``domain``.

        Parameters
        ----------
        domain : sequence of tree nodes, length V
        counts : ignored

        Returns
        -------
        ndarray of float, shape (V, V)
        """
        positions = self.tree.positions(domain)
        membership, columns = self.tree.ancestry(domain)
        # Column of each domain node among ``columns``; ``a_over_b[i, j]``: i is an
        # ancestor-or-self of j.
        own_column = np.searchsorted(columns, positions)
        a_over_b = membership[:, own_column].T.toarray() > 0
        log_reach = self.tree._log_reach()[positions]
        ratio = np.exp(-np.abs(log_reach[:, None] - log_reach[None, :]))
        related = a_over_b | a_over_b.T
        return np.asarray(np.where(related, 1.0 - ratio, 1.0), dtype=np.float64)


HIERARCHY_DISTANCES: dict[str, type[TreeDistance] | type[MelamedResnik]] = {
    "tree": TreeDistance,
    "melamed_resnik": MelamedResnik,
}
"""The two hierarchy distances by name; each is built with ``tree=CategoryTree(...)``."""
