"""metrics/ must stay usable without the server: no framework import anywhere in it."""

import re
from pathlib import Path

import metrics

FORBIDDEN = re.compile(r"^\s*(from|import)\s+(django|rest_framework|celery|studies)\b", re.M)


def test_metrics_imports_no_server_framework() -> None:
    package_dir = Path(metrics.__file__).parent
    offenders = [
        str(path.relative_to(package_dir))
        for path in package_dir.rglob("*.py")
        if FORBIDDEN.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_the_standalone_distribution_depends_on_numpy_and_scipy_only() -> None:
    # metrics/pyproject.toml builds `agreement-metrics` from metrics/ itself;
    # scripts/check-metrics-standalone.sh installs it into a bare virtual environment.
    import tomllib

    package_dir = Path(metrics.__file__).parent
    project = tomllib.loads((package_dir / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["name"] == "agreement-metrics"
    names = [
        re.split(r"[<>=!~ \[]", spec, maxsplit=1)[0] for spec in project["project"]["dependencies"]
    ]
    assert names == ["numpy", "scipy"]
    assert project["tool"]["setuptools"]["package-dir"] == {"metrics": "."}
    assert project["tool"]["setuptools"]["package-data"]["metrics"] == ["py.typed"]
    assert project["project"]["scripts"]["agreement-metrics"] == "metrics.__main__:main"
