"""The demo's model coder: a language model that labels the posts' sentiment beside the people.

``llm-judge`` (gpt-4o-mini) labels every post the people labelled, in both rounds, and sixty
more posts nobody else labelled (``extra-001`` to ``extra-060``), so that the round report
shows the agreement among the people and between them and the model, the model page its
alternative annotator test against the three coders, and the prediction-powered prevalences
(the people's posts correct the model's hundred). Its labels are generated from the demo's
people with a seed: on a post the people labelled, the people's majority label with
probability ``MODEL_ACCURACY`` of the round (else another sentiment), and on the model's own
posts the post's tone likewise. The prompt changes between the rounds (v1 in the pilot, v2
in the main round), so the history shows each prompt version's test.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from datetime import timedelta

from studies.models import (
    Annotation,
    AnnotationChange,
    Category,
    Coder,
    CoderKind,
    Item,
    ModelCoderRound,
    Question,
    Round,
    Study,
)

MODEL_KEY = "llm-judge"
MODEL_NAME = "gpt-4o-mini"
MODEL_VERSION = "2024-07-18"
#: The prompt version of each round; the coder's current one is the last.
PROMPTS = {"Pilot": "v1", "Main": "v2"}
#: Per round, the probability that the model gives the people's majority label (the tone on
#: its own posts).
MODEL_ACCURACY = {"Pilot": 0.72, "Main": 0.9}
#: Posts only the model labels: the unlabelled set of the prediction-powered estimates.
MODEL_ONLY_ITEMS = 60
MODEL_SEED_OFFSET = 22


def demo_model_coder_create(
    *,
    study: Study,
    question: Question,
    rounds: list[Round],
    tones: list[str],
    seed: int,
    sentiments: tuple[str, ...],
    texts: list[str],
) -> Coder:
    """Create the model coder, its posts and its sentiment labels in every round.

    ``tones`` and ``texts`` are the tones and texts to give the model's own posts (one per
    post, drawn by the caller)."""
    rng = random.Random(seed + MODEL_SEED_OFFSET)
    model = Coder.objects.create(
        study=study,
        key=MODEL_KEY,
        name="LLM judge",
        kind=CoderKind.MODEL,
        model_name=MODEL_NAME,
        model_version=MODEL_VERSION,
        prompt_version=PROMPTS[rounds[-1].name],
    )
    own = Item.objects.bulk_create(
        Item(
            study=study,
            external_id=f"extra-{n:03d}",
            text=texts[n - 1],
            metadata={"source": "model-only"},
        )
        for n in range(1, MODEL_ONLY_ITEMS + 1)
    )
    category = {
        code: pk
        for code, pk in Category.objects.filter(question=question).values_list("code", "id")
    }
    annotations: list[Annotation] = []
    changes: list[AnnotationChange] = []
    for round_ in rounds:
        ModelCoderRound.objects.create(
            coder=model,
            round=round_,
            model_version=MODEL_VERSION,
            prompt_version=PROMPTS[round_.name],
        )
        accuracy = MODEL_ACCURACY[round_.name]
        people: dict[int, list[str]] = defaultdict(list)
        for item_id, code in (
            Annotation.objects.filter(round=round_, question=question)
            .order_by("item_id", "coder__key")
            .values_list("item_id", "category__code")
        ):
            people[item_id].append(code)
        targets = [(item_id, _majority(rng, codes)) for item_id, codes in sorted(people.items())]
        targets += [(item.pk, tone) for item, tone in zip(own, tones, strict=True)]
        when = round_.opened_at + timedelta(hours=1)
        for item_id, target in targets:
            code = (
                target
                if rng.random() < accuracy
                else rng.choice([s for s in sentiments if s != target])
            )
            key = {"round": round_, "question": question, "item_id": item_id, "coder": model}
            annotations.append(Annotation(**key, category_id=category[code], updated_at=when))
            changes.append(
                AnnotationChange(
                    study=study,
                    **key,
                    action=AnnotationChange.Action.CREATED,
                    new_value=code,
                    changed_at=when,
                )
            )
    Annotation.objects.bulk_create(annotations, batch_size=1000)
    AnnotationChange.objects.bulk_create(changes, batch_size=1000)
    return model


def _majority(rng: random.Random, codes: list[str]) -> str:
    """The most frequent label; a tie is broken at random (seeded)."""
    counts = Counter(codes)
    top = max(counts.values())
    return rng.choice(sorted(code for code, count in counts.items() if count == top))
