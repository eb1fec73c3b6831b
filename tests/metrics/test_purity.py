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
