"""The demo study that ``./dev run`` loads: small, realistic, and the same on every machine.

Forty short posts, three coders, two rounds (the first closed, the second open), one
nominal question (sentiment), one set-valued question (topics) and a small category tree
(genre). Coders agree partially, better in the second round after a guideline update, and
a few labels are missing (simply absent, as in real studies). A span question (entities)
over six short news texts shows the span report and document view (see ``demo.spans``). A
model coder (``llm-judge``) labels the sentiment of those posts and sixty more, its labels
generated from the people's (see ``demo.models``): the round report, history and model page
show its alternative annotator test and prediction-powered estimates.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from computations.models import ComputationScope, ComputationTrigger
from computations.services import computation_request
from demo.gold import demo_gold_create
from demo.models import MODEL_ONLY_ITEMS, demo_model_coder_create
from demo.plan import demo_plan_create
from demo.spans import demo_span_question_create
from studies.models import (
    Annotation,
    AnnotationChange,
    Category,
    Coder,
    Item,
    LabelKind,
    Membership,
    Question,
    Role,
    Round,
    RoundStatus,
    Study,
)

DEMO_STUDY_NAME = "Demo: forum posts"
DEMO_SEED = 20240611
N_ITEMS = 40

SENTIMENTS = ("positive", "neutral", "negative")
TOPICS = ("politics", "economy", "sport", "culture", "science")
# The genre tree: parent code -> children codes (roots have parent None).
GENRES: dict[str, str | None] = {
    "news": None,
    "report": "news",
    "analysis": "news",
    "opinion": None,
    "editorial": "opinion",
    "letter": "opinion",
}
GENRE_LEAVES = ("report", "analysis", "editorial", "letter")
CODERS = (("alice", "Alice"), ("bob", "Bob"), ("chen", "Chen"))
# Per round: (probability a coder gives the "true" label, probability a label is missing).
ROUNDS = (("Pilot", 0.70, 0.06), ("Main", 0.86, 0.03))

_SUBJECTS = (
    "the new tram line",
    "the city budget",
    "last night's match",
    "the museum reopening",
    "a vaccine trial",
    "the election debate",
    "rising rents",
    "the marathon",
    "a jazz festival",
    "the climate report",
)
_TONES = {
    "positive": ("Great news about {s}!", "Really happy with {s}."),
    "neutral": ("An update on {s}.", "Some facts about {s}."),
    "negative": ("Disappointed by {s}.", "{s} is a mess, again."),
}


@dataclass(frozen=True)
class DemoResult:
    study: Study
    created: bool


def demo_study_get() -> Study | None:
    return Study.objects.filter(name=DEMO_STUDY_NAME).first()


def demo_study_ensure(*, manager: Any | None = None, seed: int = DEMO_SEED) -> DemoResult:
    """Load the demo study unless it is there; make ``manager`` (a user) its manager."""
    study = demo_study_get()
    created = study is None
    if study is None:
        study = demo_study_create(seed=seed)
        _demo_history_request(study)
    if manager is not None:
        Membership.objects.update_or_create(
            study=study, user=manager, defaults={"role": Role.MANAGER}
        )
    return DemoResult(study=study, created=created)


def _noisy(rng: random.Random, truth: str, options: tuple[str, ...], accuracy: float) -> str:
    if rng.random() < accuracy:
        return truth
    return rng.choice([option for option in options if option != truth])


def _noisy_set(rng: random.Random, truth: frozenset[str], accuracy: float) -> frozenset[str]:
    labels = set(truth)
    for topic in TOPICS:
        if rng.random() > accuracy:
            labels.symmetric_difference_update({topic})
    if not labels:  # A set label is never empty: the coder keeps one true topic.
        labels = {sorted(truth)[0]}
    return frozenset(labels)


def _demo_history_request(study: Study) -> None:
    """Queue every round's agreement, so the demo opens with a history to chart."""
    for round_ in study.rounds.all():
        for question in study.questions.all():
            computation_request(
                study=study,
                question=question,
                scope=ComputationScope.ROUND,
                rounds=[round_],
                trigger=ComputationTrigger.COMMAND,
            )


@transaction.atomic
def demo_study_create(*, seed: int = DEMO_SEED) -> Study:
    """Build the demo study from ``seed``; the same seed gives the same labels."""
    rng = random.Random(seed)
    start = timezone.now() - timedelta(days=30)
    study = Study.objects.create(
        name=DEMO_STUDY_NAME,
        description="Three coders label forty forum posts in two rounds, and mark the "
        "named entities of six news texts. Generated demo data.",
        # What the reliability report cannot infer (GRRAS); the background (item 5) and the
        # practical relevance (item 14) are left for the report to name as missing.
        subject_population="Forty posts of a public discussion forum and its comment "
        "sections, and six short news texts (generated for the demo).",
        rater_population="Three student assistants (alice, bob, chen), standing for the "
        "trained coders who will label the full corpus.",
        sample_size_rationale="Forty posts per round, the size of a first pilot; the next "
        "round's size comes from the server's sample-size plan.",
        sampling="The posts are a simple random sample of the forum's posts; every coder "
        "labels every post, with a few labels missing.",
        blinding="Each coder saw the post's text only, blind to the other coders' labels "
        "and to the post's source; the Main round followed a guideline update.",
        independence="The coders labelled independently, without discussing posts.",
        rater_training="One hour of training on the guideline before each round.",
    )
    sentiment = Question.objects.create(
        study=study,
        key="sentiment",
        text="What is the overall sentiment of the post?",
        kind=LabelKind.NOMINAL,
        position=0,
    )
    topics = Question.objects.create(
        study=study,
        key="topics",
        text="Which topics does the post discuss? (all that apply)",
        kind=LabelKind.SET,
        position=1,
    )
    genre = Question.objects.create(
        study=study,
        key="genre",
        text="Which kind of text is it?",
        kind=LabelKind.HIERARCHY,
        position=2,
    )
    sentiment_ids = {
        code: Category.objects.create(
            question=sentiment, code=code, label=code.title(), position=i
        ).pk
        for i, code in enumerate(SENTIMENTS)
    }
    topic_ids = {
        code: Category.objects.create(question=topics, code=code, label=code.title(), position=i).pk
        for i, code in enumerate(TOPICS)
    }
    genre_ids: dict[str, int] = {}
    for i, (code, parent) in enumerate(GENRES.items()):
        genre_ids[code] = Category.objects.create(
            question=genre,
            code=code,
            label=code.title(),
            position=i,
            parent_id=genre_ids[parent] if parent else None,
        ).pk
    coders = [Coder.objects.create(study=study, key=key, name=name) for key, name in CODERS]

    truths = []
    items = []
    for n in range(1, N_ITEMS + 1):
        tone = rng.choice(SENTIMENTS)
        subject = rng.choice(_SUBJECTS)
        topic_set = frozenset(rng.sample(TOPICS, k=rng.choice((1, 1, 2, 3))))
        truths.append((tone, topic_set, rng.choice(GENRE_LEAVES)))
        text = rng.choice(_TONES[tone]).format(s=subject)
        items.append(
            Item(
                study=study,
                external_id=f"post-{n:03d}",
                text=text[0].upper() + text[1:],
                metadata={"source": rng.choice(("forum", "comments")), "length": len(text)},
            )
        )
    items = Item.objects.bulk_create(items)

    annotations: list[Annotation] = []
    changes: list[AnnotationChange] = []
    rounds: list[Round] = []
    for position, (name, accuracy, missing) in enumerate(ROUNDS, start=1):
        opened = start + timedelta(days=14 * (position - 1))
        closed = position < len(ROUNDS)
        round_ = Round.objects.create(
            study=study,
            name=name,
            position=position,
            status=RoundStatus.CLOSED if closed else RoundStatus.OPEN,
            opened_at=opened,
            closed_at=opened + timedelta(days=10) if closed else None,
        )
        rounds.append(round_)
        for item, (tone, topic_set, leaf) in zip(items, truths, strict=True):
            for coder in coders:
                when = opened + timedelta(hours=rng.randint(1, 200))
                values: list[tuple[Question, dict[str, Any], str]] = []
                if rng.random() >= missing:
                    code = _noisy(rng, tone, SENTIMENTS, accuracy)
                    values.append((sentiment, {"category_id": sentiment_ids[code]}, code))
                if rng.random() >= missing:
                    chosen = sorted(_noisy_set(rng, topic_set, accuracy + 0.08))
                    ids = sorted(topic_ids[code] for code in chosen)
                    values.append((topics, {"category_set": ids}, "|".join(chosen)))
                if rng.random() >= missing:
                    code = _noisy(rng, leaf, GENRE_LEAVES, accuracy)
                    values.append((genre, {"category_id": genre_ids[code]}, code))
                for question, value, text in values:
                    key = {"round": round_, "question": question, "item": item, "coder": coder}
                    annotations.append(Annotation(**key, **value, updated_at=when))
                    changes.append(
                        AnnotationChange(
                            study=study,
                            **key,
                            action=AnnotationChange.Action.CREATED,
                            new_value=text,
                            changed_at=when,
                        )
                    )
    Annotation.objects.bulk_create(annotations, batch_size=1000)
    AnnotationChange.objects.bulk_create(changes, batch_size=1000)
    demo_span_question_create(study=study, rounds=rounds, coders=coders, position=3)
    demo_gold_create(study=study)
    # The model's own posts are drawn after everything else, so that the people's labels
    # stay those of the demo before it had a model.
    model_tones = [rng.choice(SENTIMENTS) for _ in range(MODEL_ONLY_ITEMS)]
    model_texts = [
        _post_text(rng.choice(_TONES[tone]).format(s=rng.choice(_SUBJECTS))) for tone in model_tones
    ]
    demo_model_coder_create(
        study=study,
        question=sentiment,
        rounds=rounds,
        tones=model_tones,
        texts=model_texts,
        seed=seed,
        sentiments=SENTIMENTS,
    )
    demo_plan_create(study=study)
    return study


def _post_text(text: str) -> str:
    return text[0].upper() + text[1:]
