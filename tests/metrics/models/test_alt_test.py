"""The alternative annotator test against the authors' reference code.

Every expected number below was printed by the reference ``alt_test`` (nitaytech/AltTest,
``alt_test_example.ipynb``) run unchanged on the fixtures in ``data/`` by
``data/run_alttest_reference.py`` (docs/references.md#alttest-reference). The humans are
passed to it in the order of their ids, so its p-values are listed in that order too.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from metrics.cli import main
from metrics.models import (
    AltTestRefusedError,
    alt_test,
    alt_tests,
    benjamini_yekutieli,
)

DATA = Path(__file__).resolve().parent / "data"
ROOT = Path(__file__).resolve().parents[3]
NAN = float("nan")

# (file, scoring, epsilon, q, the tested humans, their p-values, the rejected ones, winning
# rate, advantage probability): the reference's outputs (docs/references.md#alttest-reference).
REFERENCE_RUNS = [
    (
        "alt_nominal.csv",
        "accuracy",
        0.2,
        0.05,
        ["h1", "h2", "h3"],
        [0.037151185324463216, 0.0002457710850877696, 0.00011366886721305185],
        ["h2", "h3"],
        0.6666666666666666,
        0.8681231523541711,
    ),
    (
        "alt_nominal.csv",
        "accuracy",
        0.1,
        0.05,
        ["h1", "h2", "h3"],
        [0.5337436209710981, 0.035764330946040195, 0.006738527101712307],
        ["h3"],
        0.3333333333333333,
        0.8681231523541711,
    ),
    (
        "alt_nominal.csv",
        "accuracy",
        0.15,
        0.2,
        ["h1", "h2", "h3"],
        [0.1952922864673624, 0.003855853747128301, 0.0009965569600934433],
        ["h2", "h3"],
        0.6666666666666666,
        0.8681231523541711,
    ),
    (
        "alt_numeric.csv",
        "neg_rmse",
        0.15,
        0.05,
        ["a", "b", "c", "d", "e"],
        [
            0.0660288988833064,
            0.0010235658653528997,
            0.000260320985790827,
            0.0001576441302849481,
            0.0014448043142199743,
        ],
        ["b", "c", "d", "e"],
        0.8,
        0.8308333333333333,
    ),
    (
        "alt_numeric.csv",
        "neg_rmse",
        0.0,
        0.05,
        ["a", "b", "c", "d", "e"],
        [
            0.5753697598729487,
            0.08167013499607528,
            0.029057627489164184,
            0.016352362756579118,
            0.06396509459783642,
        ],
        [],
        0.0,
        0.8308333333333333,
    ),
    (
        "alt_ties.csv",
        "accuracy",
        0.2,
        0.05,
        ["h1", "h2", "h3"],
        [0.0] * 3,
        ["h1", "h2", "h3"],
        1.0,
        1.0,
    ),
    ("alt_ties.csv", "accuracy", 0.0, 0.05, ["h1", "h2", "h3"], [NAN] * 3, [], 0.0, 1.0),
]


def read(name: str, *, numeric: bool = False) -> tuple[list[str], list[str], list[object]]:
    with (DATA / name).open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    labels: list[object] = [float(r["label"]) if numeric else r["label"] for r in rows]
    return [r["item"] for r in rows], [r["coder"] for r in rows], labels


@pytest.mark.parametrize(
    ("name", "scoring", "epsilon", "q", "tested", "p_values", "rejected", "omega", "rho"),
    REFERENCE_RUNS,
)
def test_equals_the_reference_code(
    name: str,
    scoring: str,
    epsilon: float,
    q: float,
    tested: list[str],
    p_values: list[float],
    rejected: list[str],
    omega: float,
    rho: float,
) -> None:
    items, coders, labels = read(name, numeric=scoring == "neg_rmse")
    result = alt_test(items, coders, labels, model="llm", epsilon=epsilon, alpha=q, scoring=scoring)
    assert [test.coder for test in result.humans] == tested
    for test, expected in zip(result.humans, p_values, strict=True):
        if math.isnan(expected):
            assert math.isnan(test.p_value)
        else:
            assert test.p_value == pytest.approx(expected, rel=1e-9, abs=1e-300)
    assert [test.coder for test in result.humans if test.rejected] == rejected
    assert result.winning_rate == pytest.approx(omega, abs=1e-15)
    assert result.advantage_probability == pytest.approx(rho, abs=1e-12)
    assert result.passed is (omega >= 0.5)
    assert (result.epsilon, result.alpha, result.scoring) == (epsilon, q, scoring)


def test_the_humans_and_items_the_reference_leaves_out_are_named() -> None:
    # The reference prints "Dropped 5 instances with less than 2 annotators." (items the
    # model did not label count among them) and "Skipping annotator h4 with only 18
    # instances < 30." on alt_nominal.csv.
    result = alt_test(*read("alt_nominal.csv"), model="llm")
    assert result.excluded_humans == {
        "h4": "labelled 18 usable items, fewer than min_items_per_human (30)"
    }
    assert len(result.excluded_items) == 5
    # The generator (data/make_alt_data.py) leaves i05, i17, i42 to the humans and i70, i71
    # to h1 alone.
    assert result.excluded_items == {
        "i05": "not labelled by the model",
        "i17": "not labelled by the model",
        "i42": "not labelled by the model",
        "i70": "labelled by 1 human, fewer than min_humans_per_item (2)",
        "i71": "labelled by 1 human, fewer than min_humans_per_item (2)",
    }
    assert result.n_items == 80 - 5
    # h4 is not tested but still counts among "the remaining humans" of the others' items:
    # without h4, h2's p-value is no longer the reference's 0.0002457710850877696.
    without_h4 = alt_test(*read("alt_nominal.csv"), model="llm", humans=["h1", "h2", "h3"])
    assert without_h4.human("h2").p_value != pytest.approx(0.0002457710850877696, rel=1e-6)


def test_no_variance_p_values_follow_scipy() -> None:
    # Every difference is 0 on alt_ties.csv: the reference's ttest_1samp gives p = 0 when
    # 0 < epsilon and nan when 0 == epsilon (rows above); the result says why.
    strict = alt_test(*read("alt_ties.csv"), model="llm", epsilon=0.2)
    assert {test.ties for test in strict.humans} == {40}
    assert all("infinite" in (test.note or "") for test in strict.humans)
    undefined = alt_test(*read("alt_ties.csv"), model="llm", epsilon=0.0)
    payload = undefined.to_json()
    assert payload["humans"]["h1"]["p_value"] is None
    assert payload["humans"]["h1"]["rejected"] is False
    assert "undefined" in payload["humans"]["h1"]["note"]
    json.dumps(payload, allow_nan=False)


def test_a_study_where_no_human_qualifies_is_refused() -> None:
    with pytest.raises(AltTestRefusedError, match="No human coder qualifies") as refusal:
        alt_test(*read("alt_nominal.csv"), model="llm", min_items_per_human=100)
    assert set(refusal.value.reasons) == {"h1", "h2", "h3", "h4"}
    assert "labelled 18 usable items" in refusal.value.reasons["h4"]


def test_refusals_without_a_model_or_humans() -> None:
    items, coders, labels = read("alt_nominal.csv")
    with pytest.raises(AltTestRefusedError, match="'gpt' labelled no item"):
        alt_test(items, coders, labels, model="gpt")
    with pytest.raises(AltTestRefusedError, match="at least two human coders"):
        alt_test(items, coders, labels, model="llm", humans=["h1"])
    with pytest.raises(ValueError, match="numeric labels"):
        alt_test(items, coders, labels, model="llm", scoring="neg_rmse")
    with pytest.raises(ValueError, match="epsilon"):
        alt_test(items, coders, labels, model="llm", epsilon=1.5)


def test_fewer_than_three_tested_humans_carry_a_note() -> None:
    result = alt_test(*read("alt_nominal.csv"), model="llm", humans=["h1", "h2"])
    assert len(result.humans) == 2
    assert any("at least three" in note for note in result.notes)


def test_order_of_annotations_and_category_names_do_not_matter() -> None:
    items, coders, labels = read("alt_nominal.csv")
    reference = alt_test(items, coders, labels, model="llm")
    order = np.random.default_rng(3).permutation(len(items))
    renamed = {"neg": "z", "neu": "a", "pos": "m"}
    shuffled = alt_test(
        [items[k] for k in order],
        [coders[k] for k in order],
        [renamed[str(labels[k])] for k in order],
        model="llm",
    )
    assert shuffled.to_json() == reference.to_json()


def test_several_models_share_the_humans() -> None:
    items, coders, labels = read("alt_nominal.csv")
    # A second model: h1's labels under another name, on the items h1 labelled.
    extra = [(i, "copy", v) for i, c, v in zip(items, coders, labels, strict=True) if c == "h1"]
    items2 = items + [e[0] for e in extra]
    coders2 = coders + [e[1] for e in extra]
    labels2 = labels + [e[2] for e in extra]
    both = alt_tests(items2, coders2, labels2, models=["llm", "copy"])
    alone = alt_test(items, coders, labels, model="llm")
    assert both["llm"].to_json() == alone.to_json()
    assert both["copy"].model == "copy"


def test_benjamini_yekutieli_equals_statsmodels() -> None:
    # docs/references.md#statsmodels-wilson-kappa
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(11)
    for m in (1, 2, 5, 13, 40):
        p = rng.uniform(0, 0.05, size=m) ** rng.uniform(0.5, 2, size=m)
        expected = multitest.multipletests(p, alpha=0.05, method="fdr_by")[0]
        assert benjamini_yekutieli(p, 0.05).tolist() == expected.tolist()


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m metrics ARGS`` in this process (the exit code and both streams)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*args])
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def test_python_m_metrics_runs_the_command() -> None:
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "metrics",
            "alt-test",
            str(DATA / "alt_nominal.csv"),
            "--model",
            "llm",
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["humans"]


def test_cli_json_contract() -> None:
    completed = run_cli("alt-test", str(DATA / "alt_nominal.csv"), "--model", "llm", "--json")
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)
    assert result["winning_rate"] == pytest.approx(0.6666666666666666, abs=1e-15)
    assert result["advantage_probability"] == pytest.approx(0.8681231523541711, abs=1e-12)
    assert result["passed"] is True
    assert set(result["humans"]) == {"h1", "h2", "h3"}
    assert result["humans"]["h1"]["p_value"] == pytest.approx(0.037151185324463216, rel=1e-9)
    assert result["humans"]["h1"]["rejected"] is False
    assert result["excluded_humans"].keys() == {"h4"}


def test_cli_options_and_table() -> None:
    completed = run_cli(
        "alt-test",
        str(DATA / "alt_numeric.csv"),
        "--model",
        "llm",
        "--scoring",
        "neg_rmse",
        "--epsilon",
        "0.15",
    )
    assert completed.returncode == 0, completed.stderr
    assert "PASSES" in completed.stdout
    assert "winning rate 0.80" in completed.stdout
    failed = run_cli(
        "alt-test", str(DATA / "alt_nominal.csv"), "--model", "llm", "--epsilon", "0.1"
    )
    assert "FAILS" in failed.stdout
    assert "winning rate 0.33" in failed.stdout


def test_cli_bad_input_exits_2(tmp_path: Path) -> None:
    two_humans = tmp_path / "two.csv"
    two_humans.write_text("item,coder,label\n1,a,x\n1,b,x\n1,llm,x\n", encoding="utf-8")
    completed = run_cli("alt-test", str(two_humans), "--model", "llm")
    assert completed.returncode == 2
    assert "at least 3 human coders" in completed.stderr
    broken = tmp_path / "broken.csv"
    broken.write_text("item,coder,label\n1,a,x\n1,,x\n", encoding="utf-8")
    completed = run_cli("alt-test", str(broken), "--model", "llm")
    assert completed.returncode == 2
    assert "line 3, field 'coder'" in completed.stderr
    completed = run_cli("alt-test", str(DATA / "alt_nominal.csv"), "--model", "gpt")
    assert completed.returncode == 2
    assert "--model 'gpt'" in completed.stderr
    completed = run_cli(
        "alt-test", str(DATA / "alt_nominal.csv"), "--model", "llm", "--min-items", "100"
    )
    assert completed.returncode == 2
    assert "No human coder qualifies" in completed.stderr
    completed = run_cli(
        "alt-test", str(DATA / "alt_nominal.csv"), "--model", "llm", "--scoring", "neg_rmse"
    )
    assert completed.returncode == 2
    assert "field 'label'" in completed.stderr
