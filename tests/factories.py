"""factory_boy factories for every model. Build objects in tests with these, never by hand.

Examples::

    study = StudyFactory()
    MembershipFactory(study=study, role=Role.MANAGER)
    question = QuestionFactory(study=study, kind=LabelKind.NOMINAL)
    CategoryFactory(question=question, code="pos")
    token, secret = ApiTokenFactory.create_with_secret(study=study, role=Role.ANNOTATOR)
"""

from __future__ import annotations

from typing import Any

import factory
from django.contrib.auth import get_user_model
from django.utils import timezone

from studies.models import (
    Annotation,
    AnnotationChange,
    ApiToken,
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


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda o: f"{o.username}@example.org")
    password = factory.django.Password("password")


class StudyFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Study

    name = factory.Sequence(lambda n: f"Study {n}")
    description = ""


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    study = factory.SubFactory(StudyFactory)
    user = factory.SubFactory(UserFactory)
    role = Role.VIEWER


class QuestionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Question

    study = factory.SubFactory(StudyFactory)
    key = factory.Sequence(lambda n: f"question-{n}")
    text = factory.LazyAttribute(lambda o: f"What about {o.key}?")
    kind = LabelKind.NOMINAL
    position = factory.Sequence(lambda n: n)


class CategoryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Category

    question = factory.SubFactory(QuestionFactory)
    code = factory.Sequence(lambda n: f"cat{n}")
    label = factory.LazyAttribute(lambda o: o.code.title())
    position = factory.Sequence(lambda n: n)
    parent = None


class CoderFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Coder

    study = factory.SubFactory(StudyFactory)
    key = factory.Sequence(lambda n: f"coder{n}")
    name = factory.LazyAttribute(lambda o: o.key.title())
    user = None
    is_active = True


class ItemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Item

    study = factory.SubFactory(StudyFactory)
    external_id = factory.Sequence(lambda n: f"item-{n}")
    text = factory.LazyAttribute(lambda o: f"Text of {o.external_id}")
    metadata = factory.LazyFunction(dict)


class RoundFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Round

    study = factory.SubFactory(StudyFactory)
    name = factory.Sequence(lambda n: f"Round {n}")
    position = factory.Sequence(lambda n: n + 1)
    status = RoundStatus.OPEN
    opened_at = factory.LazyFunction(timezone.now)
    closed_at = None

    class Params:
        closed = factory.Trait(
            status=RoundStatus.CLOSED, closed_at=factory.LazyFunction(timezone.now)
        )


class AnnotationFactory(factory.django.DjangoModelFactory):
    """A nominal annotation by default; pass ``number=`` or ``category_set=`` (with
    ``category=None``) for the other kinds. Round, item and coder share the question's study."""

    class Meta:
        model = Annotation

    question = factory.SubFactory(QuestionFactory)
    round = factory.SubFactory(RoundFactory, study=factory.SelfAttribute("..question.study"))
    item = factory.SubFactory(ItemFactory, study=factory.SelfAttribute("..question.study"))
    coder = factory.SubFactory(CoderFactory, study=factory.SelfAttribute("..question.study"))
    category = factory.SubFactory(CategoryFactory, question=factory.SelfAttribute("..question"))
    number = None
    category_set = None


class AnnotationChangeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = AnnotationChange

    study = factory.SubFactory(StudyFactory)
    round = factory.SubFactory(RoundFactory, study=factory.SelfAttribute("..study"))
    question = factory.SubFactory(QuestionFactory, study=factory.SelfAttribute("..study"))
    item = factory.SubFactory(ItemFactory, study=factory.SelfAttribute("..study"))
    coder = factory.SubFactory(CoderFactory, study=factory.SelfAttribute("..study"))
    action = AnnotationChange.Action.CREATED
    old_value = None
    new_value = "a"
    changed_by = None
    token = None


class ApiTokenFactory(factory.django.DjangoModelFactory):
    """A personal token by default (``user`` set); pass ``study=`` and ``user=None`` for a
    study token. ``create_with_secret`` also returns the plain secret."""

    class Meta:
        model = ApiToken
        exclude = ("secret",)

    name = factory.Sequence(lambda n: f"token {n}")
    secret = factory.LazyFunction(ApiToken.generate_secret)
    prefix = factory.LazyAttribute(lambda o: o.secret[: ApiToken.PREFIX_LENGTH])
    key_hash = factory.LazyAttribute(lambda o: ApiToken.hash_secret(o.secret))
    user = factory.Maybe(
        "study", yes_declaration=None, no_declaration=factory.SubFactory(UserFactory)
    )
    study = None
    role = Role.ANNOTATOR
    created_by = None

    @classmethod
    def create_with_secret(cls, **kwargs: Any) -> tuple[ApiToken, str]:
        secret = kwargs.pop("secret", None) or ApiToken.generate_secret()
        token = cls.create(
            secret=secret,
            prefix=secret[: ApiToken.PREFIX_LENGTH],
            key_hash=ApiToken.hash_secret(secret),
            **kwargs,
        )
        return token, secret
