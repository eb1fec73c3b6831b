"""The round report's sentences and cells read as a person would write them: no empty
coefficient name, no reliability band or expected term where a coefficient has none."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from tests.computations.helpers import label_round, nominal_question
from tests.factories import RoundFactory
from tests.pages.conftest import LabelsWorld, compute

pytestmark = pytest.mark.django_db


def _report(client: Any, study: Any, round_: Any, question: Any) -> str:
    url = reverse("pages:round-report", args=[study.pk, round_.pk])
    response = client.get(url, {"question": question.pk})
    assert response.status_code == 200
    return str(response.content.decode())


def _caption(html: str, table_class: str) -> str:
    table = re.search(rf'<table class="{table_class}">.*?</table>', html, re.S)
    assert table is not None, table_class
    caption = re.search(r"<caption>(.*?)</caption>", table.group(0), re.S)
    assert caption is not None
    return caption.group(1)


def test_a_hierarchy_report_without_kappa_does_not_name_an_empty_kappa(
    labels_world: LabelsWorld, viewer: Any, site_client: Any
) -> None:
    world = labels_world
    html = _report(site_client(viewer), world.study, world.round, world.tree)
    caption = _caption(html, "kappa-comparison")
    assert "The report's kappa above is ." not in html
    assert "The report's kappa" not in caption
    assert caption.endswith("and the maximum kappa.")


def test_a_report_with_kappa_names_its_value_beside_the_pairwise_table(
    study: Any, viewer: Any, site_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    # 4 yes-yes, 2 yes-no, 4 no-no: A_o = 0.8, A_e = 0.6 * 0.4 + 0.4 * 0.6 = 0.48,
    # kappa = (0.8 - 0.48) / 0.52 = 0.615.
    question = nominal_question(study, codes=("yes", "no"), key="binary")
    round_ = RoundFactory(study=study, name="only", position=1)
    label_round(round_, question, [["yes"] * 6 + ["no"] * 4, ["yes"] * 4 + ["no"] * 6])
    compute(study, question, round_, django_capture_on_commit_callbacks)
    html = _report(site_client(viewer), study, round_, question)
    caption = _caption(html, "kappa-comparison")
    assert caption.endswith('The report\'s kappa above is <span class="num">0.615</span>.')
