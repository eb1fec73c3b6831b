"""From a Label Studio export with relations, a ranker, a pairwise and a textarea control to
the round report, the history and the per-item view, as a team would go: import the file into
a study with a relation, a span, a ranking, a preference and a text question, compute each
structured question on a worker, read the pages.

The file (``samples/label_studio_every_structured_control.json``): three tasks, three
annotators (alice, bob, carol), each annotation with a ranker, a pairwise and a textarea
result, and the entity spans (``labels``, from_name ``entity``) and relations of the task's
text.

- Relations (``question=rel``; the spans go to the span question ``entity``). Task 1
  "Alice met Bob in Paris." (Alice [0, 5), Bob [10, 13), Paris [17, 22)): alice and bob
  Alice -> Bob works_for and Bob -> Paris lives_in; carol Alice -> Bob works_for only (drawn
  from Bob to Alice with ``direction`` ``left``). Task 2 "Carl left Rome." (Carl [0, 4),
  Rome [10, 14)): alice and carol Carl -> Rome lives_in; bob relates nothing. Task 3
  "Nothing here.": nobody relates anything.
  Relation F1 on exact tuples, each pair's counts pooled over the documents, the mean over
  the three pairs: alice-bob TP 2, FN 1 (task 2): 4/5; alice-carol TP 2 (works_for, task 2),
  FN 1 (lives_in, task 1): 4/5; bob-carol TP 1, FN 1, FP 1: 2/4; mean (0.8 + 0.8 + 0.5) / 3
  = 0.7 (by overlap the same: every unit is drawn identically).
  Alpha on relations: candidate pairs (Alice, Bob) works_for ×3; (Bob, Paris) lives_in,
  lives_in, no relation; (Carl, Rome) lives_in, no relation, lives_in. n = 9 values
  (works_for 3, lives_in 4, none 2); D_o = (0 + 4/2 + 4/2) / 9 = 4/9;
  D_e = (81 − 9 − 16 − 4) / (9 · 8) = 13/18; alpha = 1 − (4/9) / (13/18) = 5/13.

- Ranker ``rank`` (items a, b, c; the list's order is the ranking, first = rank 1):
  task 1 abc, abc, acb; task 2 bac, bca, bac; task 3 cba, abc, cab.
  Kendall's W per task by hand (m = 3 coders, n = 3 options, W = 12 S / (m² (n³ − n)),
  S the squared deviations of the rank sums from m (n + 1) / 2 = 6): rank sums task 1
  (3, 7, 8), S = 9 + 1 + 4 = 14, W = 168 / 216 = 7/9; task 2 (7, 3, 8), S = 14, W = 7/9;
  task 3 (6, 7, 5), S = 2, W = 24 / 216 = 1/9; the mean is 5/9. (``scipy.stats.
  friedmanchisquare`` gives chi² 4.667, 4.667, 0.667 and W = chi² / (m (n − 1)).)
  Alpha with the normalised Kendall tau distance 2/7 and with Spearman's footrule 0.28:
  ``krippendorff`` 0.9.0 with the plain distances of ``tests/metrics/structured``.
- Pairwise ``pw`` (left = A): task 1 A, A, A; task 2 B, A, B; task 3 B, B, B. Nominal
  alpha by hand: 4 A and 5 B among 9 values; D_o = (2 disagreeing ordered pairs of task 2
  × 2 / (3 − 1)) / 9 = 2/9, D_e = 2 · 4 · 5 / (9 · 8) = 5/9, alpha = 1 − 2/5 = 0.6 (the
  ``krippendorff`` package: 0.6). Every pick's shown first is A (the left), so position bias
  is the share of left picks: alice 1/3, bob 2/3, carol 1/3.
- Textarea ``caption``: task 1 "A dog runs." twice and "A dog is running."; task 2 "Two
  cats." twice and "Two cats sleep."; task 3 "A red bus" twice and "A bus". Alpha with the
  normalised Levenshtein distance 0.564789131050099 (``krippendorff`` 0.9.0 with the
  textbook Levenshtein of ``tests/metrics/structured/conftest.py``).

See docs/references.md#label-studio-structured-export.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from studies.models import Item, Question, Role, Round, Study
from tests.exchange.conftest import sample
from tests.factories import MembershipFactory, RoundFactory, StudyFactory, UserFactory
from tests.plugins.services import WorkerProcess

SAMPLE = "label_studio_every_structured_control.json"
KENDALL_W = 5 / 9
KENDALL_W_ITEMS = {"1": 7 / 9, "2": 7 / 9, "3": 1 / 9}
RANKING_ALPHA = 2 / 7
FOOTRULE_ALPHA = 0.28
PREFERENCE_ALPHA = 0.6
TEXT_ALPHA = 0.564789131050099
RELATION_F1 = 0.7
RELATION_ALPHA = 5 / 13
CODERS = ("alice@example.org", "bob@example.org", "carol@example.org")

Compute = Callable[[APIClient, Study, str], dict[str, Any]]


def _study() -> tuple[Study, Any, APIClient]:
    study = StudyFactory(name="Replies")
    user = UserFactory(username="lead")
    MembershipFactory(study=study, user=user, role=Role.MANAGER)
    client = APIClient()
    client.force_authenticate(user=user)
    RoundFactory(study=study, name="Round 1", position=1)
    for key, kind, categories in (
        ("rank", "ranking", []),
        ("pw", "preference", []),
        ("caption", "text", []),
        ("rel", "relation", [{"code": "works_for"}, {"code": "lives_in"}]),
        ("entity", "span", [{"code": "PER"}, {"code": "LOC"}]),
    ):
        declared = {"key": key, "kind": kind, **({"categories": categories} if categories else {})}
        response = client.post(f"/api/v1/studies/{study.pk}/questions/", declared, format="json")
        assert response.status_code == 201, response.json()
    return study, user, client


def _import(client: APIClient, study: Study) -> dict[str, Any]:
    response = client.post(
        f"/api/v1/studies/{study.pk}/imports/",
        {
            "file": SimpleUploadedFile(SAMPLE, sample(SAMPLE)),
            "format": "label_studio",
            "round": "Round 1",
            # The relation results name no control: they go to this question.
            "question": "rel",
            "create_missing": "true",
        },
        format="multipart",
    )
    assert response.status_code == 200, response.json()
    return dict(response.json())


def _post_computation(client: APIClient, study: Study, question: str) -> Any:
    response = client.post(
        f"/api/v1/studies/{study.pk}/computations/",
        {"question": question, "round": "Round 1", "bootstrap": 200, "seed": 3},
        format="json",
    )
    assert response.status_code == 202, response.json()
    return response


def _check_import_and_compute(client: APIClient, study: Study, compute: Compute) -> None:
    report = _import(client, study)
    assert report["rejected"] == []
    assert sorted((q["question"], q["created"]) for q in report["questions"]) == [
        ("caption", 9),
        ("entity", 9),
        ("pw", 9),
        ("rank", 9),
        ("rel", 9),
    ]
    listed = client.get(
        f"/api/v1/studies/{study.pk}/annotations/", {"question": "rank", "page_size": 50}
    ).json()["results"]
    stored = {(row["item"], row["coder"]): row["units"] for row in listed}
    assert len(stored) == 9
    assert stored[("3", "carol@example.org")] == [
        {"option": "a", "rank": 2},
        {"option": "b", "rank": 3},
        {"option": "c", "rank": 1},
    ]

    ranking = compute(client, study, "rank")["results"]
    w = ranking["coefficients"]["kendall_w"]
    assert w["value"] == pytest.approx(KENDALL_W, abs=1e-12)
    assert {e["item"]: e["value"] for e in w["items"]} == pytest.approx(KENDALL_W_ITEMS)
    assert ranking["coefficients"]["alpha"]["value"] == pytest.approx(RANKING_ALPHA, abs=1e-9)
    assert ranking["coefficients"]["alpha_footrule"]["value"] == pytest.approx(
        FOOTRULE_ALPHA, abs=1e-9
    )
    preference = compute(client, study, "pw")["results"]
    assert preference["coefficients"]["alpha"]["value"] == pytest.approx(PREFERENCE_ALPHA)
    shares = {c: v["share_first"] for c, v in preference["position_bias"].items()}
    assert shares == pytest.approx(
        {"alice@example.org": 1 / 3, "bob@example.org": 2 / 3, "carol@example.org": 1 / 3}
    )
    text = compute(client, study, "caption")["results"]
    assert text["coefficients"]["alpha"]["value"] == pytest.approx(TEXT_ALPHA, abs=1e-9)
    relations = compute(client, study, "rel")["results"]
    coefficients = relations["coefficients"]
    assert coefficients["relation_f1"]["value"] == pytest.approx(RELATION_F1, abs=1e-12)
    assert coefficients["relation_f1_overlap"]["value"] == pytest.approx(RELATION_F1, abs=1e-12)
    assert coefficients["alpha"]["value"] == pytest.approx(RELATION_ALPHA, abs=1e-12)
    assert coefficients["alpha"]["observed"] == pytest.approx(4 / 9, abs=1e-12)
    assert coefficients["alpha"]["expected"] == pytest.approx(13 / 18, abs=1e-12)
    for results in (ranking, preference, text, relations):
        for entry in results["coefficients"].values():
            ci = entry["ci"]
            assert ci["low"] <= ci["high"]
            assert (ci["confidence"], ci["replicates"]) == (0.95, 200)


def _check_pages(client: APIClient, user: Any, study: Study) -> None:
    client.force_login(user)
    round_ = Round.objects.get(study=study, name="Round 1")
    interval = r"\[-?\d\.\d{3}, -?\d\.\d{3}\] <small>95 %"
    for key, name, value in (
        ("rank", "Kendall&#x27;s W (mean over items)", "0.556"),
        ("rank", "Krippendorff&#x27;s alpha, Kendall tau distance", "0.286"),
        ("pw", "Krippendorff&#x27;s alpha on the choice (nominal)", "0.600"),
        ("caption", "Krippendorff&#x27;s alpha, text distance", "0.565"),
        ("rel", "Relation F1, exact (head, tail, label)", "0.700"),
        ("rel", "Krippendorff&#x27;s alpha on relations (nominal)", "0.385"),
    ):
        question = Question.objects.get(study=study, key=key)
        page = client.get(
            reverse("pages:round-report", args=[study.pk, round_.pk]) + f"?question={question.pk}"
        ).content.decode()
        row = re.search(rf'<th scope="row">{re.escape(name)}</th>(.*?)</tr>', page, re.S)
        assert row is not None, name
        assert f'<td class="num value">{value}</td>' in row.group(1)
        assert re.search(rf'<td class="num ci">{interval}', row.group(1)), row.group(1)
        # The history: this round's value with its interval.
        assert re.search(
            rf'<td class="num" data-round="Round 1">{value} <small>\[-?\d\.\d{{3}}, ', page
        ), name

    caption = Question.objects.get(study=study, key="caption")
    item_1 = Item.objects.get(study=study, external_id="1")
    view = client.get(
        reverse("pages:structured-item", args=[study.pk, round_.pk, caption.pk, item_1.pk])
    ).content.decode()
    assert (
        '<tr data-coder="alice@example.org"><th scope="row">alice@example.org</th>'
        '<td class="value">A dog runs.</td></tr>'
    ) in view
    assert (
        '<tr data-coder="bob@example.org"><th scope="row">bob@example.org</th>'
        '<td class="value">A dog runs.</td></tr>'
    ) in view
    assert (
        '<tr data-coder="carol@example.org"><th scope="row">carol@example.org</th>'
        '<td class="value">A dog <del>runs.</del><ins>is running.</ins></td></tr>'
    ) in view
    assert (
        "Each text is compared word by word with alice@example.org's: <del>struck out</del>" in view
    )

    relation = Question.objects.get(study=study, key="rel")
    document = client.get(
        reverse("pages:structured-item", args=[study.pk, round_.pk, relation.pk, item_1.pk])
    ).content.decode()
    arcs = document[document.index('<svg id="relation-arcs"') : document.index("</svg>") + 6]
    assert arcs.count('<path class="arc"') == 5
    assert "<title>carol@example.org: 0–5 → 10–13 works_for</title>" in arcs
    assert (
        '<tr data-coder="carol@example.org"><th scope="row">carol@example.org</th>'
        '<td class="unit">0–5 <q>Alice</q></td><td class="label">works_for</td>'
        '<td class="unit">10–13 <q>Bob</q></td></tr>'
    ) in document
    item_3 = Item.objects.get(study=study, external_id="3")
    nothing = client.get(
        reverse("pages:structured-item", args=[study.pk, round_.pk, relation.pk, item_3.pk])
    ).content.decode()
    for coder in CODERS:
        assert (
            f'<tr data-coder="{coder}"><th scope="row">{coder}</th>'
            '<td colspan="3">annotated, no relation</td></tr>'
        ) in nothing


def _eager(on_commit: Any) -> Compute:
    def compute(client: APIClient, study: Study, question: str) -> dict[str, Any]:
        with on_commit(execute=True):  # the eager worker runs when the request commits
            response = _post_computation(client, study, question)
        result = dict(client.get(response["Location"]).json())
        assert result["status"] == "done", result.get("error")
        return result

    return compute


@pytest.mark.django_db
def test_a_label_studio_export_imports_computes_and_shows_every_structured_kind(
    django_capture_on_commit_callbacks: Any,
) -> None:
    study, user, client = _study()
    _check_import_and_compute(client, study, _eager(django_capture_on_commit_callbacks))
    _check_pages(client, user, study)


@pytest.mark.services
def test_the_same_export_computes_on_a_worker_process(
    celery_worker_process: WorkerProcess,
) -> None:
    def compute(client: APIClient, study: Study, question: str) -> dict[str, Any]:
        response = _post_computation(client, study, question)
        polled: dict[str, Any] = {}
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            polled = client.get(response["Location"]).json()
            if polled["status"] in ("done", "failed"):
                break
            time.sleep(0.2)
        assert polled["status"] == "done", (polled.get("error"), celery_worker_process.log())
        return polled

    study, user, client = _study()
    _check_import_and_compute(client, study, compute)
    _check_pages(client, user, study)


def test_the_sample_holds_the_four_controls_and_the_relations_units() -> None:
    tasks = json.loads(sample(SAMPLE))
    types = {r["type"] for t in tasks for a in t["annotations"] for r in a["result"]}
    assert types == {"ranker", "pairwise", "textarea", "labels", "relation"}
    assert {a["completed_by"]["email"] for t in tasks for a in t["annotations"]} == set(CODERS)
