"""A populated study A, shared by the permission walk and the schemathesis run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from studies.models import LabelKind, Role, Study
from studies.services.tokens import personal_token_create
from tests.factories import (
    AnnotationChangeFactory,
    AnnotationFactory,
    ApiTokenFactory,
    CategoryFactory,
    CoderFactory,
    ItemFactory,
    MembershipFactory,
    QuestionFactory,
    RoundFactory,
    StudyFactory,
    UserFactory,
)

MARK = "zzsecretmarkA"  # in A's names: a non-member's answer must never contain it


@dataclass
class World:
    study: Study
    users: dict[str, Any]
    token_secrets: dict[str, str]
    object_ids: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


def build_world() -> World:
    """Study A with one object of each kind (used by annotations, and unused ones to
    change or delete), a member of each role, a study token per role, a manager of B."""
    study = StudyFactory(name=f"Study {MARK}", description=MARK)
    users = {}
    for role in Role:
        user = UserFactory(username=f"{role.value}_of_a")
        MembershipFactory(study=study, user=user, role=role)
        users[role.value] = user
    other = UserFactory(username="manager_of_b")
    MembershipFactory(study=StudyFactory(name="Study B"), user=other, role=Role.MANAGER)
    users["outsider"] = other
    member = UserFactory(username="member_x")
    MembershipFactory(study=study, user=member, role=Role.VIEWER)
    UserFactory(username="newcomer")

    # Objects that annotations use (reads) and unused ones (the targets of writes).
    used_question = QuestionFactory(study=study, key=f"q-{MARK}", kind=LabelKind.NOMINAL)
    used_category = CategoryFactory(question=used_question, code=f"c-{MARK}")
    used_round = RoundFactory(study=study, name=f"r-{MARK}", position=1)
    used_item = ItemFactory(study=study, external_id=f"i-{MARK}", text=MARK)
    used_coder = CoderFactory(study=study, key=f"k-{MARK}")
    annotation = AnnotationFactory(
        question=used_question,
        round=used_round,
        item=used_item,
        coder=used_coder,
        category=used_category,
    )
    change = AnnotationChangeFactory(
        study=study,
        round=used_round,
        question=used_question,
        item=used_item,
        coder=used_coder,
        new_value=used_category.code,
    )
    question = QuestionFactory(study=study, key="free-question", kind=LabelKind.HIERARCHY)
    root = CategoryFactory(question=question, code="root")
    leaf = CategoryFactory(question=question, code="leaf", parent=root)
    closed_round = RoundFactory(study=study, name="closed", position=3, closed=True)
    open_round = RoundFactory(study=study, name="open", position=2)
    coder = CoderFactory(study=study, key="free-coder")
    item = ItemFactory(study=study, external_id="free-item")
    study_token = ApiTokenFactory(study=study, user=None, role=Role.ANNOTATOR, name=MARK)

    secrets = {}
    for role in Role:
        _, secret = ApiTokenFactory.create_with_secret(study=study, user=None, role=role)
        secrets[role.value] = secret
    personal, personal_secret = personal_token_create(
        user=users["manager"], name=f"personal {MARK}"
    )

    world = World(study=study, users=users, token_secrets=secrets)
    world.object_ids = {
        "studies": study.pk,
        "members": member.username,
        "tokens": study_token.pk,
        "personal-tokens": personal.pk,
        "questions": question.pk,
        "categories": leaf.pk,
        "rounds": open_round.pk,
        "coders": coder.pk,
        "items": item.pk,
        "annotations": annotation.pk,
        "annotation-changes": change.pk,
    }
    world.extra = {
        "question": question,
        "closed_round": closed_round,
        "manager_token_secret": personal_secret,
        "used": (used_question, used_round, used_item, used_coder, used_category),
    }
    return world
