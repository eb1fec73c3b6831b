"""The demo study's gold and adjudication: a gold coder in the main round, and a few items
of both rounds adjudicated, so that "against the reference" has something to show.

In the main round Chen, the lead annotator, is the gold coder: Alice and Bob are measured
against Chen's labels. Where the coders of a round disagree on a post's sentiment, the first
few such posts are adjudicated: the majority's label taken from a coder who gave it, or (for
the last one) a label entered with a note. The results against the reference are computed
by a worker once the demo is committed.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from adjudication.services import adjudicate, gold_coder_set
from studies.models import Annotation, Coder, Item, Question, Round, Study

GOLD_ROUND = "Main"
GOLD_CODER = "chen"
ADJUDICATED_PER_ROUND = 4


def demo_gold_create(*, study: Study) -> None:
    """Set the main round's gold coder and adjudicate a few disputed sentiment items."""
    sentiment = Question.objects.get(study=study, key="sentiment")
    for round_ in Round.objects.filter(study=study).order_by("position"):
        if round_.name == GOLD_ROUND:
            gold_coder_set(round_=round_, coder=Coder.objects.get(study=study, key=GOLD_CODER))
        _adjudicate_disputed(round_, sentiment)


def _adjudicate_disputed(round_: Round, question: Question) -> None:
    labels: dict[int, dict[str, str]] = defaultdict(dict)
    for item_id, coder_key, code in (
        Annotation.objects.filter(round=round_, question=question)
        .order_by("item__external_id", "coder__key")
        .values_list("item_id", "coder__key", "category__code")
    ):
        labels[item_id][coder_key] = code
    disputed = [item for item, by_coder in labels.items() if len(set(by_coder.values())) > 1]
    chosen = disputed[:ADJUDICATED_PER_ROUND]
    for index, item_id in enumerate(chosen):
        by_coder = labels[item_id]
        item = Item.objects.get(pk=item_id)
        if index == len(chosen) - 1:
            adjudicate(
                round_=round_,
                question=question,
                item=item,
                label="neutral",
                note="Reads as a plain report: neutral, whatever the coders said.",
            )
            continue
        label, count = Counter(by_coder.values()).most_common(1)[0]
        coder_key = min(key for key, code in by_coder.items() if code == label)
        adjudicate(
            round_=round_,
            question=question,
            item=item,
            coder=Coder.objects.get(study=round_.study, key=coder_key),
            note=f"{count} of {len(by_coder)} coders; the guideline agrees.",
        )
