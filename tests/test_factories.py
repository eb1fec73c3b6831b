import pytest

from studies.models import ApiToken
from tests.factories import (
    AnnotationChangeFactory,
    AnnotationFactory,
    ApiTokenFactory,
    MembershipFactory,
    RoundFactory,
    StudyFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def test_factories_build_consistent_objects_for_every_model() -> None:
    a = AnnotationFactory()
    assert a.round.study_id == a.question.study_id == a.item.study_id == a.coder.study_id
    assert a.category.question_id == a.question_id
    AnnotationChangeFactory()
    t, s = ApiTokenFactory.create_with_secret(study=StudyFactory(), user=None)
    assert t.user is None
    assert t.key_hash == ApiToken.hash_secret(s)
    t2 = ApiTokenFactory()
    assert t2.user is not None
    assert t2.study is None
    t3 = ApiTokenFactory(study=StudyFactory())
    assert t3.user is None
    RoundFactory(closed=True)
    MembershipFactory()
    u = UserFactory()
    assert u.check_password("password")
