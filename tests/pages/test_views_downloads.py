"""The pages' downloads serve the exports (``exchange.exports``) of the stored data."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
from django.urls import reverse

from studies.models import Annotation
from tests.pages.conftest import PagesWorld

pytestmark = pytest.mark.django_db


def _rows(response: Any) -> list[list[str]]:
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    return list(csv.reader(io.StringIO(response.content.decode())))


def _url(world: PagesWorld, name: str, *extra: str, round_index: int = 0) -> str:
    args = [world.study.pk, world.rounds[round_index].pk, world.question.pk, *extra]
    return reverse(f"pages:{name}", args=args)


def test_results_json_carries_the_stored_coefficients(
    pages_world: PagesWorld, viewer: Any, site_client: Any
) -> None:
    url = _url(pages_world, "results-download", "json", round_index=1)
    body = json.loads(site_client(viewer).get(url).content)
    stored = pages_world.computations[1].results
    assert body["computation"] == pages_world.computations[1].pk
    assert {row["coefficient"]: row["value"] for row in body["coefficients"]} == {
        name: entry["value"] for name, entry in stored["coefficients"].items()
    }
    assert body["diagnostics"] == stored["diagnostics"]


def test_results_csv_has_one_row_per_stored_coefficient(
    pages_world: PagesWorld, viewer: Any, site_client: Any
) -> None:
    header, *rows = _rows(site_client(viewer).get(_url(pages_world, "results-download", "csv")))
    coefficients = pages_world.computations[0].results["coefficients"]
    assert [row[0] for row in rows] == list(coefficients)
    for row in rows:
        entry = coefficients[row[0]]
        assert float(row[header.index("value")]) == pytest.approx(entry["value"], abs=1e-5)
        assert float(row[header.index("ci_low")]) == pytest.approx(entry["ci"]["low"], abs=1e-5)
        assert float(row[header.index("ci_high")]) == pytest.approx(entry["ci"]["high"], abs=1e-5)


def test_annotations_long_csv_has_every_annotation_of_the_round(
    pages_world: PagesWorld, viewer: Any, site_client: Any
) -> None:
    response = site_client(viewer).get(_url(pages_world, "annotations-download", "long"))
    header, *rows = _rows(response)
    assert header == ["item", "coder", "label"]
    annotations = Annotation.objects.filter(round=pages_world.rounds[0]).select_related(
        "item", "coder", "category"
    )
    assert sorted(rows) == sorted(
        [a.item.external_id, a.coder.key, a.category.code] for a in annotations
    )


def test_annotations_wide_csv_has_an_item_per_row_and_a_coder_per_column(
    pages_world: PagesWorld, viewer: Any, site_client: Any
) -> None:
    response = site_client(viewer).get(_url(pages_world, "annotations-download", "wide"))
    header, *rows = _rows(response)
    assert header == ["item", *sorted(c.key for c in pages_world.coders)]
    assert len(rows) == 40
    annotation = (
        Annotation.objects.filter(round=pages_world.rounds[0])
        .select_related("item", "coder", "category")
        .first()
    )
    row = next(r for r in rows if r[0] == annotation.item.external_id)
    assert row[header.index(annotation.coder.key)] == annotation.category.code


def test_item_diagnostics_csv_has_every_item_with_each_coders_label(
    pages_world: PagesWorld, viewer: Any, site_client: Any
) -> None:
    header, *rows = _rows(site_client(viewer).get(_url(pages_world, "items-download")))
    assert header[0] == "item"
    assert "pairwise_agreement" in header
    assert header[-3:] == sorted(c.key for c in pages_world.coders)
    assert len(rows) == 40


def test_results_of_a_round_without_a_computation_are_404(
    pages_world: PagesWorld, viewer: Any, site_client: Any
) -> None:
    pages_world.computations[0].delete()
    response = site_client(viewer).get(_url(pages_world, "results-download", "csv"))
    assert response.status_code == 404
