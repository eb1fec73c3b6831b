#!/usr/bin/env bash
# Prove that metrics/ is a standalone distribution: it installs into a bare virtual
# environment with `pip install ./metrics` (numpy and scipy from PyPI, nothing else), imports
# and computes without Django, Celery, DRF or psycopg, and reproduces a published value.
#
#   scripts/check-metrics-standalone.sh            # uses python3
#   PYTHON=python3.12 scripts/check-metrics-standalone.sh
#
# Needs network access to PyPI. Prints every check; exits non-zero on the first failure.
# metrics/ is copied to a temporary directory first (without caches), so the build leaves
# nothing behind in the working tree.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/metrics-standalone.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

FORBIDDEN="django celery rest_framework psycopg"
ALLOWED_DISTRIBUTIONS="agreement-metrics numpy scipy pip setuptools wheel"

step() { printf '\n==> %s\n' "$*"; }
ok() { printf '    ok: %s\n' "$*"; }
fail() {
    printf '    FAIL: %s\n' "$*" >&2
    exit 1
}

step "published value: Krippendorff (2011) nominal alpha, from docs/references.md#k2011-reliability-data"
PUBLISHED="$(awk '/^### k2011-reliability-data$/ {inside = 1; next} inside && /^### / {exit}
    inside && /^- \*\*Value:\*\*/ {print $3; exit}' "$ROOT/docs/references.md")"
[[ "$PUBLISHED" =~ ^[0-9]+\.[0-9]+$ ]] || fail "no value line in docs/references.md#k2011-reliability-data"
ok "alpha must round to $PUBLISHED"

step "copy metrics/ to $WORK/src/metrics (no caches)"
mkdir -p "$WORK/src"
cp -R "$ROOT/metrics" "$WORK/src/metrics"
find "$WORK/src/metrics" \( -name __pycache__ -o -name .ruff_cache -o -name .mypy_cache \
    -o -name build -o -name '*.egg-info' \) -prune -exec rm -rf {} +
[[ -f "$WORK/src/metrics/pyproject.toml" ]] || fail "metrics/pyproject.toml is missing"
ok "$(find "$WORK/src/metrics" -name '*.py' | wc -l | tr -d ' ') Python files"

step "bare virtual environment ($("$PYTHON" --version 2>&1))"
"$PYTHON" -m venv "$WORK/venv"
VENV_PYTHON="$WORK/venv/bin/python"
ok "$WORK/venv"

step "pip install ./metrics"
(cd "$WORK/src" && "$VENV_PYTHON" -m pip install --quiet --disable-pip-version-check ./metrics) \
    || fail "pip install ./metrics failed"
ok "installed"

step "installed distributions are agreement-metrics, numpy and scipy only"
INSTALLED="$("$VENV_PYTHON" -m pip list --disable-pip-version-check --format=freeze)"
printf '%s\n' "$INSTALLED" | sed 's/^/    /'
while IFS= read -r line; do
    name="$(printf '%s' "${line%%==*}" | tr '[:upper:]_' '[:lower:]-')"
    [[ " $ALLOWED_DISTRIBUTIONS " == *" $name "* ]] || fail "unexpected distribution installed: $line"
done <<<"$INSTALLED"
for name in agreement-metrics numpy scipy; do
    printf '%s\n' "$INSTALLED" | tr '[:upper:]_' '[:lower:]-' | grep -q "^$name==" \
        || fail "$name is not installed"
done
ok "nothing else"

# Everything below runs from a neutral directory with `python -I` (no current directory,
# PYTHONPATH or user site on sys.path), so only the installed copy can be imported.
cd "$WORK"

step "the server's frameworks are not importable: $FORBIDDEN"
"$VENV_PYTHON" -I - "$FORBIDDEN" <<'PY' || fail "a forbidden package is importable"
import importlib.util
import sys

found = [name for name in sys.argv[1].split() if importlib.util.find_spec(name) is not None]
if found:
    sys.exit(f"importable: {found}")
PY
ok "none of them"

step "import metrics, compute, and check sys.modules"
"$VENV_PYTHON" -I - "$PUBLISHED" "$FORBIDDEN" <<'PY' || fail "smoke check failed"
import sys
import sysconfig

published = float(sys.argv[1])
forbidden = set(sys.argv[2].split()) | {"studies", "agreement_server"}

import numpy as np

import metrics

site = sysconfig.get_paths()["purelib"]
assert metrics.__file__.startswith(site), f"metrics imported from {metrics.__file__}, not {site}"
print(f"    metrics {metrics.__version__} from {metrics.__file__}")

nan = np.nan
data = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, nan],
    [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 3],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
]
alpha = metrics.krippendorff_alpha(data)
print(f"    Krippendorff's alpha (nominal) = {alpha.value:.6f}; published {published}")
assert round(alpha.value, 3) == published, (alpha.value, published)

# Touch every part of the library once: report with a bootstrap, analytic SEs, the
# true-agreement interval, interpretation and a distance matrix.
result = metrics.report(data, level="interval", bootstrap=200, seed=1)
assert result["coefficients"]["alpha"]["ci"]["confidence"] == 0.95
se = metrics.linearized_se(metrics.as_reliability_data(data), coefficient="alpha")
interval = metrics.true_agreement_interval([[123, 23], [33, 676]], model="homogeneity")
label = metrics.interpret_interval(interval.low, interval.high).summary
matrix = metrics.distance_matrix("masi", metrics.as_reliability_data(
    np.array([[frozenset("x"), frozenset("xy")]], dtype=object)))
print(f"    interval alpha {result['coefficients']['alpha']['value']:.4f} "
      f"(bootstrap {result['coefficients']['alpha']['ci']['low']:.3f}"
      f"..{result['coefficients']['alpha']['ci']['high']:.3f}), analytic se {se.se:.3f}, "
      f"true agreement {interval.low:.4f}..{interval.high:.4f} ({label}), "
      f"MASI {matrix[0, 1]:.4f}")

loaded = sorted({name.split(".")[0] for name in sys.modules} & forbidden)
assert not loaded, f"loaded: {loaded}"
print(f"    sys.modules holds none of {sorted(forbidden)} ({len(sys.modules)} modules loaded)")
PY
ok "computed, published value reproduced, no framework loaded"

step "python -m metrics --help"
"$VENV_PYTHON" -I -m metrics --help >"$WORK/help.txt" || fail "python -m metrics --help exited $?"
head -n 1 "$WORK/help.txt" | sed 's/^/    /'
ok "exit 0"

step "agreement-metrics --help (console script)"
"$WORK/venv/bin/agreement-metrics" --help >/dev/null || fail "agreement-metrics --help exited $?"
ok "exit 0"

step "python -m metrics report on a CSV file"
{
    echo "item,coder,label"
    echo "1,A,a"; echo "1,B,a"; echo "2,A,b"; echo "2,B,b"; echo "3,A,a"; echo "3,B,b"
} >"$WORK/small.csv"
"$VENV_PYTHON" -I -m metrics report "$WORK/small.csv" --json >"$WORK/report.json" \
    || fail "python -m metrics report exited $?"
"$VENV_PYTHON" -I -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["n_items"] == 3' \
    "$WORK/report.json" || fail "unexpected report"
ok "JSON report of 3 items"

step "python -m metrics report --level span on a CSV file"
{
    echo "document,coder,begin,end,label"
    echo "d1,A,0,5,PER"; echo "d1,B,0,5,PER"; echo "d1,A,10,14,LOC"; echo "d1,B,11,14,LOC"
    echo "d2,A,3,8,PER"; echo "d2,B,,,"
} >"$WORK/spans.csv"
"$VENV_PYTHON" -I -m metrics report "$WORK/spans.csv" --level span --json >"$WORK/spans.json" \
    || fail "python -m metrics report --level span exited $?"
"$VENV_PYTHON" -I -c 'import json, sys; r = json.load(open(sys.argv[1]))
assert (r["n_documents"], r["n_coders"], r["n_units"]) == (2, 2, 5), r
assert r["coefficients"]["alpha_u"]["value"] is not None, r' \
    "$WORK/spans.json" || fail "unexpected span report"
ok "JSON span report of 2 documents, 5 units"

printf '\nmetrics installs and runs standalone with numpy and scipy only.\n'
