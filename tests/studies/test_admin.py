"""The Django admin, driven as a superuser through the test client."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client, RequestFactory
from django.urls import reverse

from studies.api.authentication import ApiTokenAuthentication
from studies.models import (
    AnnotationChange,
    ApiToken,
    Category,
    Coder,
    CoderKind,
    LabelKind,
    ModelCoderRound,
    Role,
    Round,
    RoundStatus,
    Study,
)
from tests.factories import (
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

pytestmark = pytest.mark.django_db

CHANGELISTS = [
    "study",
    "question",
    "category",
    "coder",
    "item",
    "round",
    "annotation",
    "annotationchange",
    "membership",
    "apitoken",
]


@pytest.fixture
def admin_client(db: None) -> Client:
    user = UserFactory(username="root", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def populated(db: None) -> dict[str, Any]:
    """A study with a nominal, a set-valued and a hierarchy question, and a few labels."""
    study = StudyFactory(name="Admin study")
    MembershipFactory(study=study, role=Role.MANAGER)
    nominal = QuestionFactory(study=study, key="sentiment", kind=LabelKind.NOMINAL)
    pos = CategoryFactory(question=nominal, code="pos")
    tags = QuestionFactory(study=study, key="topics", kind=LabelKind.SET)
    a = CategoryFactory(question=tags, code="politics")
    b = CategoryFactory(question=tags, code="sport")
    tree = QuestionFactory(study=study, key="taxonomy", kind=LabelKind.HIERARCHY)
    animal = CategoryFactory(question=tree, code="animal")
    mammal = CategoryFactory(question=tree, code="mammal", parent=animal)
    CategoryFactory(question=tree, code="cat", parent=mammal)
    coder = CoderFactory(study=study, key="ann")
    item = ItemFactory(study=study, external_id="doc-42", metadata={"source": "forum"})
    round_ = RoundFactory(study=study, name="R1", position=1)
    AnnotationFactory(round=round_, question=nominal, item=item, coder=coder, category=pos)
    AnnotationFactory(
        round=round_,
        question=tags,
        item=item,
        coder=coder,
        category=None,
        category_set=sorted([a.pk, b.pk]),
    )
    ApiTokenFactory(study=study, user=None, role=Role.ANNOTATOR, name="tool")
    AnnotationChange.objects.create(
        study=study,
        round=round_,
        question=nominal,
        item=item,
        coder=coder,
        action=AnnotationChange.Action.CREATED,
        new_value="pos",
    )
    return {"study": study, "tree": tree, "item": item, "round": round_, "coder": coder}


def messages_of(response: Any) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


@pytest.mark.parametrize("model", CHANGELISTS)
def test_every_changelist_renders_for_a_superuser(
    admin_client: Client, populated: dict[str, Any], model: str
) -> None:
    response = admin_client.get(reverse(f"admin:studies_{model}_changelist"))
    assert response.status_code == 200


@pytest.mark.parametrize(
    "model", ["study", "question", "category", "coder", "item", "round", "membership", "apitoken"]
)
def test_every_writable_model_has_an_add_form(admin_client: Client, model: str) -> None:
    response = admin_client.get(reverse(f"admin:studies_{model}_add"))
    assert response.status_code == 200


@pytest.mark.parametrize("model", ["annotation", "annotationchange"])
def test_annotations_and_their_log_cannot_be_added_in_admin(
    admin_client: Client, model: str
) -> None:
    response = admin_client.get(reverse(f"admin:studies_{model}_add"))
    assert response.status_code == 403


def test_annotation_list_shows_values_as_codes(
    admin_client: Client, populated: dict[str, Any]
) -> None:
    round_ = populated["round"]
    url = reverse("admin:studies_annotation_changelist")
    response = admin_client.get(url, {"round__id__exact": round_.pk})
    content = response.content.decode()
    assert "politics|sport" in content
    assert ">pos<" in content


def test_annotation_change_page_is_read_only(
    admin_client: Client, populated: dict[str, Any]
) -> None:
    annotation = populated["round"].annotations.first()
    url = reverse("admin:studies_annotation_change", args=[annotation.pk])
    response = admin_client.get(url)
    assert response.status_code == 200
    post = admin_client.post(url, {"number": "3"})
    assert post.status_code == 403


def test_study_page_shows_its_questions_and_members_inline(
    admin_client: Client, populated: dict[str, Any]
) -> None:
    study = populated["study"]
    response = admin_client.get(reverse("admin:studies_study_change", args=[study.pk]))
    content = response.content.decode()
    assert response.status_code == 200
    assert "sentiment" in content
    assert "memberships-TOTAL_FORMS" in content


def test_question_page_shows_the_category_tree_with_parents_and_paths(
    admin_client: Client, populated: dict[str, Any]
) -> None:
    tree = populated["tree"]
    response = admin_client.get(reverse("admin:studies_question_change", args=[tree.pk]))
    content = response.content.decode()
    assert "animal/mammal/cat" in content
    assert "animal/mammal" in content


def test_category_list_shows_each_categorys_path(
    admin_client: Client, populated: dict[str, Any]
) -> None:
    response = admin_client.get(reverse("admin:studies_category_changelist"), {"q": "cat"})
    assert "animal/mammal/cat" in response.content.decode()


def test_a_category_tree_is_built_in_the_question_inline(admin_client: Client) -> None:
    study = StudyFactory()
    question = QuestionFactory(study=study, key="tax", kind=LabelKind.HIERARCHY)
    root = CategoryFactory(question=question, code="root", position=0)
    url = reverse("admin:studies_question_change", args=[question.pk])
    data = {
        "study": study.pk,
        "key": "tax",
        "text": "",
        "kind": LabelKind.HIERARCHY,
        "position": 0,
        "categories-TOTAL_FORMS": 2,
        "categories-INITIAL_FORMS": 1,
        "categories-MIN_NUM_FORMS": 0,
        "categories-MAX_NUM_FORMS": 1000,
        "categories-0-id": root.pk,
        "categories-0-question": question.pk,
        "categories-0-code": "root",
        "categories-0-label": "Root",
        "categories-0-position": 0,
        "categories-1-question": question.pk,
        "categories-1-code": "leaf",
        "categories-1-label": "Leaf",
        "categories-1-position": 1,
        "categories-1-parent": root.pk,
    }
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    leaf = Category.objects.get(question=question, code="leaf")
    assert leaf.parent == root


def test_a_category_parent_from_another_question_is_refused(admin_client: Client) -> None:
    study = StudyFactory()
    question = QuestionFactory(study=study, key="tax", kind=LabelKind.HIERARCHY)
    stranger = CategoryFactory(question=QuestionFactory(study=study, kind=LabelKind.HIERARCHY))
    url = reverse("admin:studies_question_change", args=[question.pk])
    data = {
        "study": study.pk,
        "key": "tax",
        "text": "",
        "kind": LabelKind.HIERARCHY,
        "position": 0,
        "categories-TOTAL_FORMS": 1,
        "categories-INITIAL_FORMS": 0,
        "categories-MIN_NUM_FORMS": 0,
        "categories-MAX_NUM_FORMS": 1000,
        "categories-0-question": question.pk,
        "categories-0-code": "leaf",
        "categories-0-position": 0,
        "categories-0-parent": stranger.pk,
    }
    response = admin_client.post(url, data)
    assert response.status_code == 200
    assert not Category.objects.filter(question=question).exists()


def test_items_are_found_by_external_id_and_by_metadata(
    admin_client: Client, populated: dict[str, Any]
) -> None:
    ItemFactory(study=populated["study"], external_id="doc-7", metadata={"source": "news"})
    url = reverse("admin:studies_item_changelist")
    by_id = admin_client.get(url, {"q": "doc-42"}).content.decode()
    assert "doc-42" in by_id
    assert "doc-7<" not in by_id
    by_metadata = admin_client.get(url, {"q": "source=news"}).content.decode()
    assert "doc-7" in by_metadata
    assert "doc-42" not in by_metadata


def test_coders_are_deactivated_and_activated_in_bulk(
    admin_client: Client, populated: dict[str, Any]
) -> None:
    study = populated["study"]
    other = CoderFactory(study=study, key="second")
    pks = [populated["coder"].pk, other.pk]
    url = reverse("admin:studies_coder_changelist")
    admin_client.post(url, {"action": "deactivate", "_selected_action": pks})
    assert list(Coder.objects.filter(pk__in=pks).values_list("is_active", flat=True)) == [
        False,
        False,
    ]
    response = admin_client.post(url, {"action": "activate", "_selected_action": pks})
    assert Coder.objects.filter(pk__in=pks, is_active=True).count() == 2
    assert "2 coder(s) activated." in messages_of(response)


def test_rounds_are_closed_and_reopened_by_actions(
    admin_client: Client, populated: dict[str, Any]
) -> None:
    round_ = populated["round"]
    url = reverse("admin:studies_round_changelist")
    admin_client.post(url, {"action": "close", "_selected_action": [round_.pk]})
    round_.refresh_from_db()
    assert round_.status == RoundStatus.CLOSED
    assert round_.closed_at is not None
    admin_client.post(url, {"action": "reopen", "_selected_action": [round_.pk]})
    round_.refresh_from_db()
    assert round_.status == RoundStatus.OPEN
    assert round_.closed_at is None


def test_closing_an_already_closed_round_changes_nothing(admin_client: Client) -> None:
    round_ = RoundFactory(closed=True)
    closed_at = round_.closed_at
    url = reverse("admin:studies_round_changelist")
    admin_client.post(url, {"action": "close", "_selected_action": [round_.pk]})
    round_.refresh_from_db()
    assert round_.closed_at == closed_at
    assert Round.objects.get(pk=round_.pk).status == RoundStatus.CLOSED


def test_a_study_token_created_in_admin_shows_its_secret_once_and_stores_only_its_hash(
    admin_client: Client,
) -> None:
    study = StudyFactory()
    response = admin_client.post(
        reverse("admin:studies_apitoken_add"),
        {"name": "labeling tool", "study": study.pk, "role": Role.ANNOTATOR},
        follow=True,
    )
    assert response.status_code == 200
    token = ApiToken.objects.get(name="labeling tool")
    shown = [m for m in messages_of(response) if "shown only this once" in m]
    assert len(shown) == 1
    secret = re.search(r"<code>([^<]+)</code>", shown[0]).group(1)  # type: ignore[union-attr]
    assert token.key_hash == ApiToken.hash_secret(secret)
    assert secret not in token.key_hash
    assert token.prefix == secret[: ApiToken.PREFIX_LENGTH]
    assert token.study == study
    assert token.created_by is not None
    change_page = admin_client.get(reverse("admin:studies_apitoken_change", args=[token.pk]))
    assert secret not in change_page.content.decode()
    assert token.key_hash not in change_page.content.decode()


def test_the_new_token_authenticates_against_the_api(admin_client: Client) -> None:
    owner = UserFactory(username="owner")
    response = admin_client.post(
        reverse("admin:studies_apitoken_add"),
        {"name": "mine", "user": owner.pk, "role": Role.MANAGER},
        follow=True,
    )
    message = next(m for m in messages_of(response) if "shown only this once" in m)
    secret = re.search(r"<code>([^<]+)</code>", message).group(1)  # type: ignore[union-attr]
    request = RequestFactory().get("/api/v1/studies/", HTTP_AUTHORIZATION=f"Token {secret}")
    user, token = ApiTokenAuthentication().authenticate(request)  # type: ignore[arg-type, misc]
    assert user == owner
    assert token.name == "mine"


def test_a_token_needs_exactly_one_of_user_and_study(admin_client: Client) -> None:
    response = admin_client.post(
        reverse("admin:studies_apitoken_add"), {"name": "orphan", "role": Role.VIEWER}
    )
    assert response.status_code == 200
    assert "Choose either a user" in response.content.decode()
    assert not ApiToken.objects.filter(name="orphan").exists()


def test_tokens_are_revoked_by_an_action(admin_client: Client) -> None:
    token = ApiTokenFactory()
    url = reverse("admin:studies_apitoken_changelist")
    response = admin_client.post(
        url, {"action": "revoke", "_selected_action": [token.pk]}, follow=True
    )
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert "1 token(s) revoked." in messages_of(response)


def test_agreement_is_requested_for_the_selected_rounds(
    admin_client: Client, populated: dict[str, Any]
) -> None:
    from computations.models import Computation

    round_ = populated["round"]
    response = admin_client.post(
        reverse("admin:studies_round_changelist"),
        {"action": "compute_agreement_for_rounds", "_selected_action": [round_.pk]},
        follow=True,
    )
    assert response.status_code == 200
    assert Computation.objects.filter(study=populated["study"]).exists()
    assert admin_client.get(reverse("admin:computations_computation_changelist")).status_code == 200


def test_the_annotation_list_does_not_query_once_per_row(
    admin_client: Client, populated: dict[str, Any], django_assert_max_num_queries: Any
) -> None:
    study = populated["study"]
    tags = study.questions.get(key="topics")
    ids = list(tags.categories.values_list("pk", flat=True))
    round_ = populated["round"]
    for _ in range(30):
        AnnotationFactory(
            round=round_,
            question=tags,
            item=ItemFactory(study=study),
            coder=populated["coder"],
            category=None,
            category_set=ids,
        )
    admin_client.get(reverse("admin:studies_annotation_changelist"))  # warm the session
    with django_assert_max_num_queries(15):
        response = admin_client.get(reverse("admin:studies_annotation_changelist"))
    assert response.content.decode().count("politics|sport") >= 30
    for model in ("annotationchange", "question", "category", "coder", "round"):
        with django_assert_max_num_queries(15):
            assert admin_client.get(reverse(f"admin:studies_{model}_changelist")).status_code == 200


def test_a_study_with_labels_and_a_category_tree_is_deleted_from_admin(
    admin_client: Client, populated: dict[str, Any]
) -> None:
    study = populated["study"]
    url = reverse("admin:studies_study_delete", args=[study.pk])
    confirm = admin_client.get(url)
    assert "Are you sure" in confirm.content.decode()
    response = admin_client.post(url, {"post": "yes"})
    assert response.status_code == 302
    assert not Study.objects.filter(pk=study.pk).exists()
    assert not Category.objects.filter(question__study_id=study.pk).exists()


def test_studies_are_deleted_in_bulk_from_the_list(
    admin_client: Client, populated: dict[str, Any]
) -> None:
    other = StudyFactory()
    admin_client.post(
        reverse("admin:studies_study_changelist"),
        {"action": "delete_selected", "_selected_action": [populated["study"].pk, other.pk],
         "post": "yes"},
    )  # fmt: skip
    assert not Study.objects.exists()


def test_a_model_coder_is_edited_with_its_versions_per_round(admin_client: Client) -> None:
    study = StudyFactory()
    round_ = RoundFactory(study=study, name="R1", position=1)
    coder = CoderFactory(study=study, key="llm", kind=CoderKind.MODEL, model_name="gpt")
    ModelCoderRound.objects.create(coder=coder, round=round_, prompt_version="v1")
    url = reverse("admin:studies_coder_change", args=[coder.pk])
    page = admin_client.get(url)
    assert page.status_code == 200
    assert b"Model coder" in page.content
    data = {
        "study": study.pk,
        "key": "llm",
        "name": "",
        "is_active": "on",
        "kind": CoderKind.MODEL,
        "model_name": "",
        "model_version": "",
        "prompt_version": "v2",
        "round_versions-TOTAL_FORMS": 0,
        "round_versions-INITIAL_FORMS": 0,
        "round_versions-MIN_NUM_FORMS": 0,
        "round_versions-MAX_NUM_FORMS": 1000,
    }
    refused = admin_client.post(url, data)
    assert refused.status_code == 200
    assert b"A model coder needs the model&#x27;s name (model_name)." in refused.content
    saved = admin_client.post(url, {**data, "model_name": "gpt-4o"})
    assert saved.status_code == 302
    coder.refresh_from_db()
    assert (coder.model_name, coder.prompt_version) == ("gpt-4o", "v2")
    assert ModelCoderRound.objects.get(coder=coder).prompt_version == "v1"
