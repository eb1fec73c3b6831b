"""Hierarchy distances against Artstein & Poesio (2008) §4.2/§4.5 (docs/references.md)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.distances.base import Distance
from metrics.distances.hierarchy import (
    HIERARCHY_DISTANCES,
    CategoryTree,
    MelamedResnik,
    TreeDistance,
)
from metrics.distances.sets import passonneau_distance

# Artstein & Poesio (2008) §4.5 (docs/references.md#ap2008-melamed-resnik): parent A with children
# A1 and A2.
SMALL = CategoryTree({"A": None, "A1": "A", "A2": "A"})

# Artstein & Poesio (2008) Table 9: group 1 of the senses of "call" (Palmer, Dang & Fellbaum
# 2007) and the senses' hypernyms.
CALL = CategoryTree(
    {"Group1": None, "WN1": "Group1", "WN3": "Group1", "WN19": "Group1", "WN22": "Group1"}
)
HYPERNYMS = CategoryTree(
    {
        "LABEL": None,
        "SEE": None,
        "ADDRESS": None,
        "WN1": "LABEL",
        "WN3": "LABEL",
        "WN19": "SEE",
        "WN22": "ADDRESS",
    }
)


def test_melamed_resnik_on_the_papers_example():
    # docs/references.md#ap2008-melamed-resnik (derived): d(A, A) = 0, d(A, A1) = 1/2,
    # d(A1, A2) = 1.
    d = MelamedResnik(tree=SMALL).matrix(["A", "A1", "A2"])
    assert d[0, 0] == 0.0
    assert d[0, 1] == pytest.approx(0.5)
    assert d[1, 2] == pytest.approx(1.0)


def test_melamed_resnik_product_flaw_and_the_min_fix():
    # A&P §4.5: both coders mark A; with the product, agreement is 0.5² + 0.5² = 0.5
    # where the intuitive answer is 1. With min (A&P's proposal) it is 1.
    p = SMALL.leaf_distribution("A")
    assert p == {"A1": 0.5, "A2": 0.5}
    assert sum(v * v for v in p.values()) == pytest.approx(0.5)
    assert sum(min(v, v) for v in p.values()) == pytest.approx(1.0)


def test_melamed_resnik_on_the_call_group():
    # docs/references.md#ap2008-melamed-resnik (derived): d_{M+R}(WN1, Group1) = 3/4.
    d = MelamedResnik(tree=CALL).matrix(["WN1", "Group1", "WN3"])
    assert d[0, 1] == pytest.approx(0.75)
    assert d[0, 2] == 1.0


def test_extended_senses_through_the_tree_give_the_papers_d_p():
    # A&P §4.5 (docs/references.md#ap2008-extended-senses): es(s) = {s, hypernym}; d_P(es(WN1),
    # es(WN3)) = 2/3, and against a coder who chose the superlabel {LABEL}: 1/3.
    def extended(sense):
        return frozenset({sense, *HYPERNYMS.ancestors(sense)})

    assert passonneau_distance(extended("WN1"), extended("WN3")) == pytest.approx(2 / 3)
    assert passonneau_distance(extended("WN1"), extended("LABEL")) == pytest.approx(1 / 3)
    assert passonneau_distance(extended("WN1"), extended("WN19")) == 1.0


def _random_tree(draw_parents):
    return CategoryTree({i: p for i, p in enumerate(draw_parents)})


@st.composite
def trees(draw):
    size = draw(st.integers(1, 12))
    parents = [None]
    for i in range(1, size):
        parents.append(draw(st.one_of(st.none(), st.integers(0, i - 1))))
    return _random_tree(parents)


def _explicit_melamed_resnik(tree, a, b):
    pa, pb = tree.leaf_distribution(a), tree.leaf_distribution(b)
    return 1 - sum(min(pa.get(leaf, 0.0), pb.get(leaf, 0.0)) for leaf in tree.leaves)


@settings(max_examples=60, deadline=None)
@given(tree=trees())
def test_melamed_resnik_closed_form_equals_the_leaf_sum(tree):
    d = MelamedResnik(tree=tree).matrix(tree.nodes)
    for (i, a), (j, b) in itertools.product(enumerate(tree.nodes), repeat=2):
        assert d[i, j] == pytest.approx(_explicit_melamed_resnik(tree, a, b), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(tree=trees())
def test_tree_distance_is_the_normalised_path_length(tree):
    d = TreeDistance(tree=tree).matrix(tree.nodes)
    height = max(tree.depth(n) for n in tree.nodes)
    for (i, a), (j, b) in itertools.product(enumerate(tree.nodes), repeat=2):
        expected = tree.path_length(a, b) / (2 * height) if height else 0.0
        assert d[i, j] == pytest.approx(expected, abs=1e-12)
    assert np.array_equal(d, d.T)
    assert np.all((d >= 0) & (d <= 1))


@settings(max_examples=60, deadline=None)
@given(tree=trees())
def test_geertzen_bunt_option_is_below_one_only_for_ancestors(tree):
    d = TreeDistance(tree=tree, ancestor_only_below_one=True).matrix(tree.nodes)
    for (i, a), (j, b) in itertools.product(enumerate(tree.nodes), repeat=2):
        related = a == b or tree.is_ancestor(a, b) or tree.is_ancestor(b, a)
        assert (d[i, j] < 1) == related
        if related and a != b:
            assert d[i, j] <= 0.5


def test_flat_tagset_gives_the_nominal_distance():
    d = TreeDistance(tree=CALL).matrix(["WN1", "WN3", "WN19", "WN22"])
    assert d.tolist() == (np.ones((4, 4)) - np.eye(4)).tolist()
    assert TreeDistance(tree=CALL).matrix(["WN1", "Group1"])[0, 1] == 0.5


def test_depth_weights_make_higher_disagreements_count_more():
    # Dialogue-act example in the spirit of A&P §4.2: information-seeking vs ynq should be
    # farther apart than check vs positive-check.
    tree = CategoryTree(
        {
            "info-seeking": None,
            "info-providing": None,
            "ynq": "info-seeking",
            "check": "info-seeking",
            "positive-check": "check",
            "negative-check": "check",
            "inform": "info-providing",
        }
    )
    plain = TreeDistance(tree=tree)
    weighted = TreeDistance(tree=tree, depth_weights=(3, 2, 1))
    top = ["ynq", "inform"]
    low = ["positive-check", "negative-check"]
    assert plain.matrix(top)[0, 1] == pytest.approx(4 / 6)
    assert plain.matrix(low)[0, 1] == pytest.approx(2 / 6)
    # Weighted: H = 3 + 2 + 1 = 6; ynq–inform = 2·(3 + 2) = 10; the two checks = 2·1 = 2.
    assert weighted.matrix(top)[0, 1] == pytest.approx(10 / 12)
    assert weighted.matrix(low)[0, 1] == pytest.approx(2 / 12)
    assert weighted.matrix(["info-seeking", "info-providing"])[0, 1] == pytest.approx(6 / 12)


def test_category_tree_lookups():
    tree = HYPERNYMS
    assert tree.roots == ("LABEL", "SEE", "ADDRESS")
    assert tree.has_implicit_root
    assert tree.depth("LABEL") == 1
    assert tree.depth("WN1") == 2
    assert tree.height == 2
    assert tree.parent("WN1") == "LABEL"
    assert tree.parent("LABEL") is None
    assert tree.children("LABEL") == ("WN1", "WN3")
    assert tree.ancestors("WN1") == ("LABEL",)
    assert tree.leaves == ("WN1", "WN3", "WN19", "WN22")
    assert tree.lowest_common_ancestor("WN1", "WN3") == "LABEL"
    assert tree.lowest_common_ancestor("WN1", "WN19") is None
    assert tree.path("WN1", "WN19") == ("WN1", "LABEL", None, "SEE", "WN19")
    assert tree.path_length("WN1", "WN19") == 4
    assert tree.path("WN1", "LABEL") == ("WN1", "LABEL")
    assert tree.path_length("WN1", "WN1") == 0
    assert tree.is_ancestor("LABEL", "WN1")
    assert not tree.is_ancestor("WN1", "WN1")


@pytest.mark.parametrize(
    ("parents", "message"),
    [
        ({}, "non-empty"),
        ({"a": None, "b": "c"}, "not nodes of the tree"),
        ({"a": "b", "b": "a"}, "cycle"),
        ({"r": None, "a": "b", "b": "a"}, "cycle"),
        ({"r": None, "a": "a"}, "cycle"),
    ],
)
def test_category_tree_refuses_bad_parent_maps(parents, message):
    with pytest.raises(ValueError, match=message):
        CategoryTree(parents)


def test_distances_refuse_labels_outside_the_tree_and_bad_weights():
    with pytest.raises(ValueError, match="not categories of the tree"):
        TreeDistance(tree=SMALL).matrix(["A", "B"])
    with pytest.raises(ValueError, match="not categories of the tree"):
        MelamedResnik(tree=SMALL).matrix(["Z"])
    with pytest.raises(ValueError, match="one weight per depth"):
        TreeDistance(tree=HYPERNYMS, depth_weights=(1.0,))
    with pytest.raises(ValueError, match="positive"):
        TreeDistance(tree=SMALL, depth_weights=(0.0,))
    with pytest.raises(ValueError, match="CategoryTree"):
        TreeDistance(tree={"A": None})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a category"):
        SMALL.depth("Z")


def test_registry_and_protocol():
    assert set(HIERARCHY_DISTANCES) == {"tree", "melamed_resnik"}
    for name, cls in HIERARCHY_DISTANCES.items():
        distance = cls(tree=SMALL)
        assert isinstance(distance, Distance)
        assert distance.name == name
        d = distance.matrix(["A1", "A"], counts=np.array([1.0, 2.0]))
        assert d.dtype == np.float64
        assert d.shape == (2, 2)
