"""The demo study: its shape, its partial agreement, and loading it twice."""

from __future__ import annotations

from collections import Counter
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.db import transaction
from django.test import Client
from django.urls import reverse

from computations.comparison import COMPARISON_KEY
from computations.models import Computation, ComputationStatus
from demo.loader import DEMO_STUDY_NAME, N_ITEMS, demo_study_create, demo_study_ensure
from demo.models import MODEL_KEY, MODEL_ONLY_ITEMS
from metrics.models import alt_test
from studies.models import (
    Annotation,
    AnnotationChange,
    Category,
    CoderKind,
    LabelKind,
    Role,
    RoundStatus,
    SpanUnit,
    Study,
)
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def fingerprint(study: Study) -> list[tuple[str, str, str, str, str]]:
    """Every label by names and codes (ids differ between builds on PostgreSQL)."""
    codes = dict(Category.objects.filter(question__study=study).values_list("pk", "code"))
    rows = Annotation.objects.filter(round__study=study).select_related(
        "round", "question", "item", "coder"
    )

    def value(a: Annotation) -> str:
        if a.category_id:
            return codes[a.category_id]
        if a.units is not None:
            return "; ".join(f"{b}-{e} {codes[pk]}" for b, e, pk in a.units)
        return "|".join(codes[pk] for pk in a.category_set or [])

    return sorted(
        (a.round.name, a.question.key, a.item.external_id, a.coder.key, value(a)) for a in rows
    )


def test_demo_study_has_two_rounds_three_coders_and_forty_items() -> None:
    study = demo_study_create()
    assert [r.status for r in study.rounds.order_by("position")] == [
        RoundStatus.CLOSED,
        RoundStatus.OPEN,
    ]
    assert study.coders.filter(kind=CoderKind.PERSON).count() == 3
    assert list(study.coders.filter(kind=CoderKind.MODEL).values_list("key", flat=True)) == [
        "llm-judge"
    ]
    assert N_ITEMS == 40
    # forty posts, six news texts and the sixty posts only the model labels
    assert study.items.count() == 46 + MODEL_ONLY_ITEMS
    kinds = dict(study.questions.values_list("key", "kind"))
    assert kinds == {
        "sentiment": LabelKind.NOMINAL,
        "topics": LabelKind.SET,
        "genre": LabelKind.HIERARCHY,
        "entities": LabelKind.SPAN,
    }


def test_demo_genre_question_is_a_category_tree() -> None:
    study = demo_study_create()
    genre = study.questions.get(key="genre")
    parents = {c.code: c.parent.code if c.parent else None for c in genre.categories.all()}
    assert parents["editorial"] == "opinion"
    assert parents["report"] == "news"
    assert parents["news"] is None


def test_demo_labels_agree_partially_and_a_few_are_missing() -> None:
    study = demo_study_create()
    sentiment = study.questions.get(key="sentiment")
    unanimous_per_round = []
    for round_ in study.rounds.order_by("position"):
        rows = Annotation.objects.filter(
            round=round_, question=sentiment, coder__kind=CoderKind.PERSON
        )
        assert 0 < N_ITEMS * 3 - rows.count() < N_ITEMS * 3 * 0.15
        per_item: dict[int, set[int | None]] = {}
        for item_id, category_id in rows.values_list("item_id", "category_id"):
            per_item.setdefault(item_id, set()).add(category_id)
        unanimous = sum(len(values) == 1 for values in per_item.values())
        assert 0.2 * N_ITEMS < unanimous < N_ITEMS
        unanimous_per_round.append(unanimous)
    assert unanimous_per_round[0] < unanimous_per_round[1]
    topic_sets = Annotation.objects.filter(question__key="topics", round__study=study)
    assert all(value for value in topic_sets.values_list("category_set", flat=True))
    assert Counter(len(s) for s in topic_sets.values_list("category_set", flat=True))[2] > 0


def test_demo_records_each_label_in_the_change_log() -> None:
    study = demo_study_create()
    assert (
        AnnotationChange.objects.filter(study=study).count()
        == Annotation.objects.filter(round__study=study).count()
    )


def test_demo_is_the_same_on_every_build() -> None:
    with transaction.atomic():
        first = fingerprint(demo_study_create())
        transaction.set_rollback(True)
    second = fingerprint(demo_study_create())
    assert first == second


def test_demo_is_loaded_once_and_the_manager_is_added() -> None:
    user = UserFactory(username="admin")
    first = demo_study_ensure(manager=user)
    second = demo_study_ensure(manager=user)
    assert first.created is True
    assert second.created is False
    assert Study.objects.filter(name=DEMO_STUDY_NAME).count() == 1
    assert first.study.memberships.get(user=user).role == Role.MANAGER


def test_demo_load_command_reports_whether_it_loaded() -> None:
    out = StringIO()
    call_command("demo_load", stdout=out)
    call_command("demo_load", stdout=out)
    assert "loaded." in out.getvalue()
    assert "already present." in out.getvalue()


# -- the span question ------------------------------------------------------------------------

#: Span F1 of the demo's entities by hand (docs/references.md#span-polish-demo): pairs of
#: coders pooled, F1 = 2 TP / (2 TP + unmatched units).
PILOT_F1 = 22 / 35  # exact: TP 22, unmatched 26
PILOT_F1_OVERLAP = 24 / 35  # "Dr. Amina Diallo" ~ "Amina Diallo" (IoU 0.75): TP 24, unmatched 22
MAIN_F1 = 39 / 44  # exact: TP 39, unmatched 10
MAIN_F1_OVERLAP = 41 / 44  # TP 41, unmatched 6


def test_demo_has_a_span_question_over_six_news_texts() -> None:
    study = demo_study_create()
    question = study.questions.get(key="entities")
    assert question.span_unit == SpanUnit.CHARACTER
    assert list(question.categories.order_by("position").values_list("code", flat=True)) == [
        "PER", "ORG", "LOC",
    ]  # fmt: skip
    codes = dict(question.categories.values_list("pk", "code"))
    rows = Annotation.objects.filter(question=question)
    assert sorted(set(rows.values_list("item__external_id", flat=True))) == [
        f"news-{n}" for n in range(1, 7)
    ]
    counts = dict(Counter(rows.values_list("round__name", flat=True)))
    assert counts == {"Pilot": 17, "Main": 18}  # chen did not annotate news-6 in the pilot

    def units(round_: str, item: str, coder: str) -> list[list[Any]] | None:
        found = rows.filter(round__name=round_, item__external_id=item, coder__key=coder).first()
        return None if found is None else [[b, e, codes[pk]] for b, e, pk in found.units]

    assert units("Main", "news-1", "alice") == [[0, 11, "PER"], [26, 30, "LOC"], [62, 68, "ORG"]]
    assert units("Pilot", "news-4", "alice") == [[0, 16, "PER"], [24, 44, "ORG"]]
    assert units("Main", "news-4", "alice") == [[4, 16, "PER"], [24, 44, "ORG"]]
    assert units("Pilot", "news-5", "chen") == []  # annotated, found nothing
    assert units("Pilot", "news-6", "chen") is None  # not annotated
    change = AnnotationChange.objects.get(
        question=question, round__name="Main", item__external_id="news-1", coder__key="alice"
    )
    assert change.new_value == "0-11 PER; 26-30 LOC; 62-68 ORG"


def test_demo_span_rounds_compute_alpha_u_and_agree_better_in_the_main_round(
    django_capture_on_commit_callbacks: Any,
) -> None:
    user = UserFactory(username="admin")
    with django_capture_on_commit_callbacks(execute=True):
        study = demo_study_ensure(manager=user).study
    computations = Computation.objects.filter(question__key="entities").order_by("pk")
    assert [c.status for c in computations] == [ComputationStatus.DONE] * 2
    pilot, main = (c.results for c in computations)
    assert (pilot["n_documents"], pilot["n_coders"], pilot["n_units"]) == (6, 3, 38)
    assert pilot["coefficients"]["span_f1"]["value"] == pytest.approx(PILOT_F1)
    assert pilot["coefficients"]["span_f1_overlap"]["value"] == pytest.approx(PILOT_F1_OVERLAP)
    assert main["coefficients"]["span_f1"]["value"] == pytest.approx(MAIN_F1)
    assert main["coefficients"]["span_f1_overlap"]["value"] == pytest.approx(MAIN_F1_OVERLAP)
    before, after = (r["coefficients"]["alpha_u"] for r in (pilot, main))
    assert before["value"] is not None
    assert before["ci"]["replicates"] == 1000
    assert before["value"] < after["value"] <= 1
    assert main["skipped"] == {}
    pairs = main["coefficients"]["pk"]["pairs"]
    assert [pair["coders"] for pair in pairs] == [
        ["alice", "bob"],
        ["alice", "chen"],
        ["bob", "chen"],
    ]
    comparison = main[COMPARISON_KEY]
    assert comparison["status"] == "done"
    assert comparison["coefficients"]["alpha_u"]["difference"]["estimate"] > 0

    client = Client()
    client.force_login(user)
    question = study.questions.get(key="entities")
    main_round = study.rounds.get(name="Main")
    report = client.get(
        reverse("pages:round-report", args=[study.pk, main_round.pk]), {"question": question.pk}
    )
    assert report.status_code == 200
    html = report.content.decode()
    assert 'data-coefficient="alpha_u"' in html
    assert 'data-item="news-4"' in html  # the most disputed document of the main round
    item = study.items.get(external_id="news-4")
    document = client.get(
        reverse("pages:span-document", args=[study.pk, main_round.pk, question.pk, item.pk])
    )
    assert document.status_code == 200
    assert "University of Geneva" in document.content.decode()


# -- the model coder --------------------------------------------------------------------------


def test_the_demo_model_fails_with_prompt_v1_and_passes_with_v2(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """The stored test of each round equals ``metrics.models.alt_test`` on the round's
    sentiment labels read here; the history and the model page show both prompt versions."""
    user = UserFactory(username="admin")
    with django_capture_on_commit_callbacks(execute=True):
        study = demo_study_ensure(manager=user).study
    model = study.coders.get(key=MODEL_KEY)
    assert (model.model_name, model.model_version, model.prompt_version) == (
        "gpt-4o-mini",
        "2024-07-18",
        "v2",
    )
    people = ["alice", "bob", "chen"]
    verdicts = {}
    for round_ in study.rounds.order_by("position"):
        rows = list(
            Annotation.objects.filter(round=round_, question__key="sentiment").values_list(
                "item__external_id", "coder__key", "category__code"
            )
        )
        expected = alt_test(*map(list, zip(*rows, strict=True)), model=MODEL_KEY, humans=people)
        computation = Computation.objects.get(
            rounds=round_, question__key="sentiment", status=ComputationStatus.DONE
        )
        (stored,) = computation.results["model_coders"]["per_model"]
        test = stored["alt_test"]
        assert test["winning_rate"] == expected.winning_rate
        assert test["advantage_probability"] == pytest.approx(expected.advantage_probability)
        assert test["passed"] is expected.passed
        ppi = stored["ppi"]
        assert ppi["n_unlabelled"] == MODEL_ONLY_ITEMS
        verdicts[round_.name] = (stored["prompt_version"], expected.passed)
    assert verdicts == {"Pilot": ("v1", False), "Main": ("v2", True)}

    client = Client()
    client.force_login(user)
    page = client.get(reverse("pages:model-detail", args=[study.pk, model.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert (
        "Model llm-judge (gpt-4o-mini, prompt v2) passes the alternative annotator test "
        "against your 3 coders (winning rate 1, ε = 0.2)." in html
    )
    assert '<tr data-round="Pilot"><th scope="row">Pilot</th><td class="prompt">v1</td>' in html
    assert '<tr data-round="Main"><th scope="row">Main</th><td class="prompt">v2</td>' in html
    main = study.rounds.get(name="Main")
    sentiment = study.questions.get(key="sentiment")
    report = client.get(
        reverse("pages:round-report", args=[study.pk, main.pk]), {"question": sentiment.pk}
    ).content.decode()
    assert '<tr data-group="between">' in report
