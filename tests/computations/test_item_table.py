"""The worker stores a one-round computation's per-item diagnostics beside it
(``ComputationItemTable``), not in ``results``; the item downloads read that table, and a
computation split by items has none (409 naming why)."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from computations.item_table import unpack
from computations.models import ComputationItemTable, ComputationScope, ComputationStatus
from computations.services import computation_request
from tests.computations.helpers import label_round, nominal_question
from tests.factories import RoundFactory

pytestmark = pytest.mark.django_db

CODES = ("c1", "c2", "c3", "c4", "c5")
#: Wikipedia's Fleiss' kappa example, subjects 1 and 2: how many of the 14 raters chose each
#: of the 5 categories.  # docs/references.md#fleiss-wikipedia-14-raters
SUBJECT_COUNTS = ([0, 0, 0, 0, 14], [0, 2, 6, 4, 2])


def fleiss_round(study: Any) -> tuple[Any, Any]:
    round_ = RoundFactory(study=study)
    question = nominal_question(study, codes=CODES)
    columns = []
    for counts in SUBJECT_COUNTS:
        columns.append([code for code, n in zip(CODES, counts, strict=True) for _ in range(n)])
    table = [[column[c] for column in columns] for c in range(14)]
    label_round(round_, question, table)
    return round_, question


def compute(study: Any, question: Any, round_: Any, capture: Any, **params: Any) -> Any:
    with capture(execute=True):
        computation = computation_request(
            study=study,
            question=question,
            scope=ComputationScope.ROUND,
            rounds=[round_],
            parameters={"bootstrap": 0, **params},
        ).computation
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.DONE, computation.error
    return computation


def test_the_worker_stores_each_items_figures_beside_the_results(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    round_, question = fleiss_round(study)
    computation = compute(study, question, round_, django_capture_on_commit_callbacks)
    stored = ComputationItemTable.objects.get(computation=computation)
    assert stored.n_items == 2
    table = unpack(stored.table)
    assert len(table.coders) == 14
    first, second = table.items
    assert (first["n_coders"], first["n_distinct"], first["majority_share"]) == (14, 1, 1.0)
    assert first["pairwise_agreement"] == 1.0
    # docs/references.md#fleiss-wikipedia-14-raters: P_2 = 0.253, 6 of 14 chose category 3.
    assert (second["n_coders"], second["n_distinct"]) == (14, 4)
    assert second["pairwise_agreement"] == pytest.approx(0.253, abs=5e-4)
    assert second["majority_share"] == pytest.approx(6 / 14)
    assert len(second["labels"]) == 14
    # The pages read ``results`` often: the item table is not in it.
    assert "item_table" not in computation.results
    assert "labels" not in str(computation.results.get("diagnostics", {}).keys())


def test_a_computation_split_by_items_has_no_item_table_and_the_download_says_so(
    study: Any,
    settings: Any,
    viewer: Any,
    client: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    round_, question = fleiss_round(study)
    settings.AGREEMENT_ITEM_CHUNK_ANNOTATIONS = 10
    computation = compute(study, question, round_, django_capture_on_commit_callbacks)
    assert computation.item_chunks.exists()
    assert not ComputationItemTable.objects.filter(computation=computation).exists()
    url = reverse("pages:items-download", args=[study.pk, round_.pk, question.pk])
    client.force_login(viewer)
    response = client.get(url)
    assert response.status_code == 409
    assert response.content.decode() == (
        "The latest computation of this round and question was split by items over the "
        "workers; the item table is not available for split computations."
    )


def test_the_page_download_without_a_computation_is_404(
    study: Any, viewer: Any, client: Any
) -> None:
    round_, question = fleiss_round(study)
    url = reverse("pages:items-download", args=[study.pk, round_.pk, question.pk])
    client.force_login(viewer)
    assert client.get(url).status_code == 404
