"""Who may grant what, token expiry, and linking coders to accounts (issue 13, items 8-9).

Each test first reproduced a finding of the hardening probe: a manager study token minted
manager tokens and managers; tokens never expired; an annotator linking a coder to ``root``
got 201 and to an unknown name 400, so names could be enumerated.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework import exceptions
from rest_framework.test import APIClient

from studies.access import ensure_token_usable, grant_refusal
from studies.models import ApiToken, Coder, Membership, Role, Study
from tests.factories import ApiTokenFactory, CoderFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db

ClientFor = Callable[..., APIClient]


def url(study: Study, *parts: Any) -> str:
    return f"/api/v1/studies/{study.pk}/" + "".join(f"{part}/" for part in parts)


def errors(response: Any) -> list[tuple[str, str | None]]:
    return [(e["code"], e["attr"]) for e in response.json()["errors"]]


# --- Nobody grants a role above their own --------------------------------------------------


def test_grant_refusal_allows_equal_or_lower_roles_only() -> None:
    assert grant_refusal(Role.MANAGER, Role.MANAGER) is None
    assert grant_refusal(Role.MANAGER, Role.VIEWER) is None
    assert grant_refusal(Role.ANNOTATOR, Role.ANNOTATOR) is None
    assert grant_refusal(Role.ANNOTATOR, Role.MANAGER) == (
        "Your role (annotator) cannot grant the role manager: nobody grants a role above their own."
    )
    assert grant_refusal(Role.VIEWER, "annotator") == (
        "Your role (viewer) cannot grant the role annotator: nobody grants a role above their own."
    )
    assert grant_refusal(None, Role.VIEWER) == "Only members of the study can grant roles in it."


@pytest.mark.parametrize("role", ["viewer", "annotator", "manager"])
def test_a_manager_study_token_cannot_mint_tokens_of_any_role(
    study: Study, study_token: Any, client_for: ClientFor, role: str
) -> None:
    _, secret = study_token(Role.MANAGER)
    before = ApiToken.objects.count()
    response = client_for(token_secret=secret).post(
        url(study, "tokens"), {"name": "copy", "role": role}, format="json"
    )
    assert response.status_code == 403
    assert errors(response) == [("permission_denied", None)]
    assert response.json()["errors"][0]["detail"] == (
        "A study token cannot manage members or tokens, whatever its role; "
        "a manager signed in (or with a personal token) must do it."
    )
    assert ApiToken.objects.count() == before


def test_a_manager_study_token_cannot_revoke_tokens(
    study: Study, study_token: Any, client_for: ClientFor
) -> None:
    other, _ = study_token(Role.ANNOTATOR)
    _, secret = study_token(Role.MANAGER)
    response = client_for(token_secret=secret).post(url(study, "tokens", other.pk, "revoke"))
    assert response.status_code == 403
    other.refresh_from_db()
    assert other.revoked_at is None


def test_a_manager_study_token_cannot_add_change_or_remove_members(
    study: Study, study_token: Any, client_for: ClientFor, manager: Any, viewer: Any
) -> None:
    UserFactory(username="accomplice")
    _, secret = study_token(Role.MANAGER)
    tool = client_for(token_secret=secret)
    added = tool.post(
        url(study, "members"), {"username": "accomplice", "role": "manager"}, format="json"
    )
    promoted = tool.patch(
        url(study, "members", viewer.username), {"role": "manager"}, format="json"
    )
    removed = tool.delete(url(study, "members", manager.username))
    assert [added.status_code, promoted.status_code, removed.status_code] == [403, 403, 403]
    assert sorted(Membership.objects.filter(study=study).values_list("user__username", "role")) == [
        ("manager_a", "manager"),
        ("viewer_a", "viewer"),
    ]


def test_a_manager_study_token_still_reads_members_and_tokens(
    study: Study, study_token: Any, client_for: ClientFor, manager: Any
) -> None:
    _, secret = study_token(Role.MANAGER)
    tool = client_for(token_secret=secret)
    assert tool.get(url(study, "members")).status_code == 200
    assert tool.get(url(study, "tokens")).status_code == 200


def test_an_annotator_cannot_create_tokens_or_members(
    study: Study, annotator_client: APIClient
) -> None:
    UserFactory(username="friend")
    token = annotator_client.post(
        url(study, "tokens"), {"name": "t", "role": "annotator"}, format="json"
    )
    member = annotator_client.post(
        url(study, "members"), {"username": "friend", "role": "annotator"}, format="json"
    )
    assert (token.status_code, member.status_code) == (403, 403)
    assert not ApiToken.objects.exists()
    assert not Membership.objects.filter(user__username="friend").exists()


def test_a_manager_grants_up_to_manager_in_person_or_with_a_personal_token(
    study: Study, manager: Any, client_for: ClientFor
) -> None:
    UserFactory(username="deputy")
    _, personal = ApiTokenFactory.create_with_secret(user=manager)
    with_token = client_for(token_secret=personal)
    token = with_token.post(url(study, "tokens"), {"name": "t", "role": "manager"}, format="json")
    member = with_token.post(
        url(study, "members"), {"username": "deputy", "role": "manager"}, format="json"
    )
    assert (token.status_code, member.status_code) == (201, 201)
    assert token.json()["role"] == "manager"
    assert Membership.objects.get(study=study, user__username="deputy").role == Role.MANAGER


# --- A study keeps a manager --------------------------------------------------------------


def test_demoting_or_removing_the_last_manager_is_a_409_and_changes_nothing(
    study: Study, manager: Any, viewer: Any, manager_client: APIClient, client_for: ClientFor
) -> None:
    promoted = manager_client.patch(
        url(study, "members", viewer.username), {"role": "manager"}, format="json"
    )
    assert promoted.status_code == 200
    # Two managers: one may step down; then the other is the last.
    stepped_down = manager_client.patch(
        url(study, "members", manager.username), {"role": "viewer"}, format="json"
    )
    assert stepped_down.status_code == 200
    last = client_for(viewer)
    demoted = last.patch(
        url(study, "members", viewer.username), {"role": "annotator"}, format="json"
    )
    removed = last.delete(url(study, "members", viewer.username))
    for response in (demoted, removed):
        assert response.status_code == 409
        assert errors(response) == [("last_manager", None)]
    assert demoted.json()["errors"][0]["detail"] == (
        "The study's last manager cannot give up the role; make someone else manager first."
    )
    assert removed.json()["errors"][0]["detail"] == (
        "The study's last manager cannot be removed; make someone else manager first."
    )
    assert Membership.objects.get(study=study, user=viewer).role == Role.MANAGER


def test_the_admin_refuses_to_demote_or_delete_the_last_manager(
    admin_client: Client, study: Study, manager: Any, viewer: Any
) -> None:
    membership = Membership.objects.get(study=study, user=manager)
    change = admin_client.post(
        reverse("admin:studies_membership_change", args=[membership.pk]),
        {"study": study.pk, "user": manager.pk, "role": "viewer"},
    )
    assert change.status_code == 200  # the form again, with its error
    assert "last manager cannot be removed or demoted" in change.content.decode()
    delete = admin_client.post(
        reverse("admin:studies_membership_delete", args=[membership.pk]), {"post": "yes"}
    )
    assert "last manager cannot be removed or demoted" in delete.content.decode()
    membership.refresh_from_db()
    assert membership.role == Role.MANAGER


# --- Token expiry --------------------------------------------------------------------------


def test_a_study_token_is_created_with_an_expiry_and_shows_it(
    study: Study, manager_client: APIClient
) -> None:
    response = manager_client.post(
        url(study, "tokens"),
        {"name": "short", "role": "viewer", "expires_at": "2999-01-31T12:00:00Z"},
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert response.json()["expires_at"] == "2999-01-31T12:00:00Z"
    assert response.json()["last_used_at"] is None
    token = ApiToken.objects.get(pk=response.json()["id"])
    assert token.expires_at == datetime(2999, 1, 31, 12, tzinfo=UTC)


def test_an_expiry_in_the_past_is_a_400(study: Study, manager_client: APIClient) -> None:
    response = manager_client.post(
        url(study, "tokens"),
        {"name": "late", "role": "viewer", "expires_at": "2020-01-01T00:00:00Z"},
        format="json",
    )
    assert response.status_code == 400
    assert errors(response) == [("expiry_in_past", "expires_at")]
    assert not ApiToken.objects.exists()


def test_a_personal_token_is_created_with_an_expiry(client_for: ClientFor, manager: Any) -> None:
    response = client_for(manager).post(
        "/api/v1/tokens/", {"name": "laptop", "expires_at": "2999-06-01T00:00:00Z"}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["expires_at"] == "2999-06-01T00:00:00Z"


def test_ensure_token_usable_refuses_an_expired_token_with_its_date() -> None:
    token = ApiToken(expires_at=datetime(2020, 1, 1, tzinfo=UTC))
    with pytest.raises(exceptions.AuthenticationFailed) as caught:
        ensure_token_usable(token, now=datetime(2020, 1, 1, 0, 0, 1, tzinfo=UTC))
    assert caught.value.get_codes() == "token_expired"
    assert str(caught.value.detail) == (
        "This token expired at 2020-01-01T00:00:00+00:00; "
        "ask a manager of the study (or create yourself) a new one."
    )
    # Up to the instant before, and without an expiry, it is usable.
    ensure_token_usable(token, now=datetime(2019, 12, 31, 23, 59, 59, tzinfo=UTC))
    ensure_token_usable(ApiToken(expires_at=None))


def test_an_expired_token_is_listed_as_inactive(study: Study, manager_client: APIClient) -> None:
    ApiTokenFactory(study=study, user=None, expires_at=datetime(2020, 1, 1, tzinfo=UTC))
    listed = manager_client.get(url(study, "tokens")).json()["results"]
    assert [(t["expires_at"], t["is_active"]) for t in listed] == [("2020-01-01T00:00:00Z", False)]


def test_an_expired_token_is_refused_with_401_saying_so(
    study: Study, client_for: ClientFor
) -> None:
    _, secret = ApiTokenFactory.create_with_secret(
        study=study, user=None, expires_at=datetime(2020, 1, 1, tzinfo=UTC)
    )
    response = client_for(token_secret=secret).get(url(study, "items"))
    assert response.status_code == 401
    assert errors(response) == [("token_expired", None)]
    assert response.json()["errors"][0]["detail"] == (
        "This token expired at 2020-01-01T00:00:00+00:00; "
        "ask a manager of the study (or create yourself) a new one."
    )


def test_a_token_used_is_shown_with_its_last_use(
    study: Study, study_token: Any, client_for: ClientFor, manager_client: APIClient
) -> None:
    token, secret = study_token(Role.VIEWER)
    assert client_for(token_secret=secret).get(url(study, "items")).status_code == 200
    shown = manager_client.get(url(study, "tokens", token.pk)).json()
    assert shown["last_used_at"] is not None
    token.refresh_from_db()
    assert token.last_used_at is not None
    assert shown["last_used_at"] == token.last_used_at.isoformat().replace("+00:00", "Z")


def test_a_token_cannot_create_a_token_that_outlives_it(
    study: Study, manager: Any, client_for: ClientFor
) -> None:
    ends = (timezone.now() + timedelta(days=1)).replace(microsecond=0)
    _, secret = ApiTokenFactory.create_with_secret(user=manager, expires_at=ends)
    with_token = client_for(token_secret=secret)
    later = (ends + timedelta(days=1)).isoformat()
    refused = with_token.post(
        url(study, "tokens"), {"name": "t", "role": "viewer", "expires_at": later}, format="json"
    )
    assert refused.status_code == 400
    assert errors(refused) == [("expiry_beyond_own", "expires_at")]
    # Without an expiry, the new tokens (study and personal) end with the one that made them.
    study_one = with_token.post(
        url(study, "tokens"), {"name": "t", "role": "viewer"}, format="json"
    )
    personal = with_token.post("/api/v1/tokens/", {"name": "p"}, format="json")
    assert (study_one.status_code, personal.status_code) == (201, 201)
    for response in (study_one, personal):
        assert ApiToken.objects.get(pk=response.json()["id"]).expires_at == ends


def test_the_admin_creates_a_token_with_an_expiry(admin_client: Client, study: Study) -> None:
    response = admin_client.post(
        reverse("admin:studies_apitoken_add"),
        {
            "name": "tool",
            "study": study.pk,
            "role": "viewer",
            "expires_at_0": "2999-01-31",
            "expires_at_1": "12:00:00",
        },
    )
    assert response.status_code == 302
    assert ApiToken.objects.get(name="tool").expires_at == datetime(2999, 1, 31, 12, tzinfo=UTC)
    refused = admin_client.post(
        reverse("admin:studies_apitoken_add"),
        {
            "name": "old",
            "study": study.pk,
            "role": "viewer",
            "expires_at_0": "2020-01-01",
            "expires_at_1": "00:00:00",
        },
    )
    assert refused.status_code == 200
    assert "The expiry must be in the future." in refused.content.decode()
    assert not ApiToken.objects.filter(name="old").exists()


# --- Linking coders to accounts ------------------------------------------------------------

LINK_REFUSED = "Only the study's managers can link a coder to a user account."


@pytest.fixture
def names(study: Study) -> dict[str, str]:
    """A member's name, an existing non-member's name (``root``), and a name nobody has."""
    MembershipFactory(study=study, user=UserFactory(username="carol"), role=Role.VIEWER)
    UserFactory(username="root", is_superuser=True, is_staff=True)
    return {"member": "carol", "non_member": "root", "unknown": "ghost"}


@pytest.mark.parametrize("who", ["annotator", "annotator token"])
def test_an_annotator_linking_a_coder_gets_the_same_403_whatever_the_name(
    study: Study,
    names: dict[str, str],
    annotator_client: APIClient,
    study_token: Any,
    client_for: ClientFor,
    who: str,
) -> None:
    client = annotator_client if who == "annotator" else client_for(token_secret=study_token()[1])
    coder = CoderFactory(study=study, key="existing")
    answers = []
    for name in names.values():
        answers += [
            client.post(
                url(study, "coders"), {"key": f"c-{name}", "username": name}, format="json"
            ),
            client.post(
                url(study, "coders", "bulk"), [{"key": "b", "username": name}], format="json"
            ),
            client.patch(url(study, "coders", coder.pk), {"username": name}, format="json"),
        ]
    for response in answers:
        assert response.status_code == 403
        assert response.json() == {
            "type": "client_error",
            "errors": [{"code": "permission_denied", "detail": LINK_REFUSED, "attr": None}],
        }
    assert list(Coder.objects.filter(study=study).values_list("key", "user")) == [
        ("existing", None)
    ]


def test_an_annotator_may_not_unlink_either_but_registers_unlinked_coders(
    study: Study, names: dict[str, str], annotator_client: APIClient
) -> None:
    coder = CoderFactory(
        study=study,
        key="linked",
        user=Membership.objects.get(study=study, user__username="carol").user,
    )
    unlink = annotator_client.patch(
        url(study, "coders", coder.pk), {"username": None}, format="json"
    )
    assert unlink.status_code == 403
    plain = annotator_client.post(
        url(study, "coders"), {"key": "plain", "username": None}, format="json"
    )
    renamed = annotator_client.patch(url(study, "coders", coder.pk), {"name": "C"}, format="json")
    assert (plain.status_code, renamed.status_code) == (201, 200)
    coder.refresh_from_db()
    assert coder.user is not None
    assert coder.user.username == "carol"


def test_for_a_manager_an_unknown_name_and_a_non_member_get_the_same_400(
    study: Study, names: dict[str, str], manager_client: APIClient
) -> None:
    expected = {
        "type": "validation_error",
        "errors": [
            {
                "code": "not_a_member",
                "detail": "No member of this study has this username; "
                "a coder can be linked to members only.",
                "attr": "username",
            }
        ],
    }
    for name in (names["non_member"], names["unknown"]):
        response = manager_client.post(
            url(study, "coders"), {"key": "c", "username": name}, format="json"
        )
        assert response.status_code == 400
        assert response.json() == expected
    coder = CoderFactory(study=study, key="existing")
    for name in (names["non_member"], names["unknown"]):
        response = manager_client.patch(
            url(study, "coders", coder.pk), {"username": name}, format="json"
        )
        assert response.status_code == 400
        assert response.json() == expected
    bulk = [{"key": "x", "username": names["non_member"]}, {"key": "y", "username": "ghost"}]
    response = manager_client.post(url(study, "coders", "bulk"), bulk, format="json")
    assert response.status_code == 400
    assert errors(response) == [("not_a_member", "0.username"), ("not_a_member", "1.username")]
    assert list(Coder.objects.filter(study=study).values_list("key", flat=True)) == ["existing"]


def test_a_manager_links_and_unlinks_a_member(
    study: Study, names: dict[str, str], manager_client: APIClient
) -> None:
    created = manager_client.post(
        url(study, "coders"), {"key": "c", "username": "carol"}, format="json"
    )
    assert created.status_code == 201
    assert created.json()["username"] == "carol"
    coder_id = created.json()["id"]
    unlinked = manager_client.patch(
        url(study, "coders", coder_id), {"username": None}, format="json"
    )
    assert unlinked.status_code == 200
    assert unlinked.json()["username"] is None
    relinked = manager_client.patch(
        url(study, "coders", coder_id), {"username": "carol"}, format="json"
    )
    assert relinked.json()["username"] == "carol"


def test_the_study_page_of_the_admin_keeps_a_manager_among_its_members(
    rf: Any, admin_user: Any, study: Study, manager: Any, viewer: Any
) -> None:
    from django.contrib import admin

    from studies.admin import MembershipInline

    request = rf.post("/")
    request.user = admin_user
    formset_class = MembershipInline(Study, admin.site).get_formset(request, study)
    rows = list(Membership.objects.filter(study=study).order_by("pk"))
    assert [(m.user.username, m.role) for m in rows] == [
        ("manager_a", "manager"),
        ("viewer_a", "viewer"),
    ]

    def post(roles: list[str], deleted: frozenset[int] = frozenset()) -> Any:
        prefix = formset_class.get_default_prefix()
        data = {
            f"{prefix}-TOTAL_FORMS": "2",
            f"{prefix}-INITIAL_FORMS": "2",
            f"{prefix}-MIN_NUM_FORMS": "0",
            f"{prefix}-MAX_NUM_FORMS": "1000",
        }
        for index, (membership, role) in enumerate(zip(rows, roles, strict=True)):
            data[f"{prefix}-{index}-id"] = str(membership.pk)
            data[f"{prefix}-{index}-study"] = str(study.pk)
            data[f"{prefix}-{index}-user"] = str(membership.user_id)
            data[f"{prefix}-{index}-role"] = role
            if index in deleted:
                data[f"{prefix}-{index}-DELETE"] = "on"
        return formset_class(data, instance=study, prefix=prefix)

    demoted = post(["annotator", "viewer"])
    assert not demoted.is_valid()
    assert demoted.non_form_errors() == [
        "The study's last manager cannot be removed or demoted; make someone else manager first."
    ]
    assert not post(["manager", "viewer"], deleted=frozenset({0})).is_valid()
    assert post(["viewer", "manager"]).is_valid()  # the manager hands over
