"""Every ``docs/references.md`` entry a test or docstring cites exists.

Tests cite published values as ``docs/references.md#<entry>`` (docstrings as
``docs/references.md, ``<entry>````); each entry is a ``### <entry>`` heading there.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REFERENCES = ROOT / "docs" / "references.md"

CITATION = re.compile(
    r"docs/references\.md(?:#|,\s*``)([a-z0-9-]+)((?:\s*(?:,|and)\s*#[a-z0-9-]+)*)"
)
MORE = re.compile(r"#([a-z0-9-]+)")


def _entries() -> set[str]:
    return set(re.findall(r"^### ([a-z0-9-]+)$", REFERENCES.read_text(encoding="utf-8"), re.M))


def _cited() -> dict[str, set[str]]:
    files = [*sorted((ROOT / "tests").rglob("*.py"))]
    files += sorted((ROOT / "metrics").rglob("*.py"))
    files += [ROOT / "docs" / "metrics.md", REFERENCES]
    cited: dict[str, set[str]] = {}
    for path in files:
        text = path.read_text(encoding="utf-8")
        for match in CITATION.finditer(text):
            for anchor in [match.group(1), *MORE.findall(match.group(2))]:
                cited.setdefault(anchor, set()).add(path.name)
        if path == REFERENCES:
            for anchor in re.findall(r"\]\(#([a-z0-9-]+)\)", text):
                cited.setdefault(anchor, set()).add(path.name)
    return cited


def test_every_cited_entry_exists() -> None:
    entries = _entries()
    cited = _cited()
    assert len(cited) > 30
    assert {anchor: sorted(files) for anchor, files in cited.items() if anchor not in entries} == {}


def test_the_standalone_check_reads_krippendorff_2011_from_its_entry() -> None:
    # scripts/check-metrics-standalone.sh compares alpha with this line.
    text = REFERENCES.read_text(encoding="utf-8")
    entry = text.split("### k2011-reliability-data", 1)[1].split("\n### ", 1)[0]
    value = re.search(r"^- \*\*Value:\*\* ([0-9.]+)", entry, re.M)
    assert value is not None
    assert value.group(1) == "0.743"
