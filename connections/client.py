"""Label Studio's API, called through the webhooks' guarded transport.

Every request goes to the address that was checked (``webhooks.transport``: one DNS lookup,
private and loopback addresses refused unless ``AGREEMENT_LABEL_STUDIO_ALLOW_PRIVATE``),
without proxies or redirects, with ``AGREEMENT_LABEL_STUDIO_TIMEOUT_SECONDS`` in all. The
token goes in ``Authorization`` only: a legacy token as ``Token <key>``, a personal access
token (a JWT refresh token) exchanged at ``/api/token/refresh`` for an access token sent as
``Bearer``. Errors are ``LabelStudioError`` with a sentence saying what to do; none of them
holds the token.
"""

from __future__ import annotations

import http.client
import json
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.conf import settings

from webhooks.targets import InvalidWebhookUrlError, Target, webhook_target
from webhooks.transport import (
    CheckedHTTPConnection,
    CheckedHTTPSConnection,
    ForbiddenAddressError,
    default_tls_context,
)

logger = logging.getLogger(__name__)

MAX_ANSWER_BYTES = 64 * 1024 * 1024
USER_AGENT = "agreement-server-label-studio/1"


class LabelStudioError(Exception):
    """A call to Label Studio failed; ``message`` says what happened and what to do."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any


def _is_jwt(token: str) -> bool:
    return token.count(".") == 2 and token.startswith("eyJ")


class LabelStudioClient:
    """One Label Studio server, as one user (the token's)."""

    def __init__(self, url: str, token: str) -> None:
        try:
            self.base = webhook_target(url.rstrip("/") + "/")
        except InvalidWebhookUrlError as error:
            raise LabelStudioError(f"The Label Studio URL is invalid: {error}") from None
        self.url = url.rstrip("/")
        self._token = token
        self._authorization: str | None = None

    # -- the one request ----------------------------------------------------------------------

    def _target(self, path: str, query: dict[str, Any] | None) -> Target:
        prefix = self.base.path.rstrip("/")
        full = prefix + path + (f"?{urlencode(query)}" if query else "")
        return Target(self.base.scheme, self.base.host, self.base.port, full)

    def _send(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        query: dict[str, Any] | None = None,
        authorization: str | None,
    ) -> Answer:
        target = self._target(path, query)
        timeout = float(settings.AGREEMENT_LABEL_STUDIO_TIMEOUT_SECONDS)
        deadline = time.monotonic() + timeout
        allow_private = bool(settings.AGREEMENT_LABEL_STUDIO_ALLOW_PRIVATE)
        connection: http.client.HTTPConnection
        if target.is_https:
            connection = CheckedHTTPSConnection(
                target.host,
                target.port,
                deadline=deadline,
                allow_private=allow_private,
                context=default_tls_context(),
            )
        else:
            connection = CheckedHTTPConnection(
                target.host, target.port, deadline=deadline, allow_private=allow_private
            )
        connection.timeout = timeout
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        if authorization:
            headers["Authorization"] = authorization
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            connection.request(method, target.path, body=data, headers=headers)
            response = connection.getresponse()
            raw = response.read(MAX_ANSWER_BYTES + 1)
            status = response.status
        except ForbiddenAddressError as error:
            raise LabelStudioError(
                f"{error}: the server does not call private addresses. If Label Studio runs "
                "on your own network, set AGREEMENT_LABEL_STUDIO_ALLOW_PRIVATE=1."
            ) from None
        except (OSError, http.client.HTTPException) as error:
            raise LabelStudioError(
                f"Label Studio did not answer at {self.url} ({type(error).__name__}: {error}): "
                "check the URL and that the agreement server can reach it."
            ) from None
        finally:
            connection.close()
        if len(raw) > MAX_ANSWER_BYTES:
            raise LabelStudioError(
                "Label Studio's answer is larger than 64 MB; lower the page size."
            )
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw[:500].decode("utf-8", "replace")
        return Answer(status, parsed)

    def _auth(self) -> str:
        if self._authorization is None:
            if _is_jwt(self._token):
                answer = self._send(
                    "POST", "/api/token/refresh", body={"refresh": self._token}, authorization=None
                )
                access = answer.body.get("access") if isinstance(answer.body, dict) else None
                if answer.status != 200 or not isinstance(access, str):
                    raise LabelStudioError(
                        "Label Studio refused the personal access token (expired or revoked): "
                        "create a new one in Label Studio (Account & Settings) and save it on "
                        "the connection.",
                        status=answer.status,
                    )
                self._authorization = f"Bearer {access}"
            else:
                self._authorization = f"Token {self._token}"
        return self._authorization

    def call(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        query: dict[str, Any] | None = None,
        ok: tuple[int, ...] = (200, 201, 204),
    ) -> Answer:
        answer = self._send(method, path, body=body, query=query, authorization=self._auth())
        if answer.status in ok:
            return answer
        if answer.status == 401:
            raise LabelStudioError(
                "Label Studio refused the API token (401): copy the token again from Label "
                "Studio (Account & Settings → Access Token; with legacy tokens disabled, a "
                "personal access token) and save it on the connection.",
                status=401,
            )
        if answer.status == 403:
            raise LabelStudioError(
                f"The token's user may not do this in Label Studio ({method} {path}: 403): use "
                "the token of a member of the project's organization with the right to manage "
                "the project.",
                status=403,
            )
        detail = answer.body if isinstance(answer.body, str) else json.dumps(answer.body)[:300]
        raise LabelStudioError(
            f"Label Studio answered {answer.status} to {method} {path}: {detail}",
            status=answer.status,
        )

    # -- what the connection uses -----------------------------------------------------------------

    def project(self, project_id: int) -> dict[str, Any]:
        answer = self.call("GET", f"/api/projects/{project_id}/", ok=(200, 404))
        if answer.status == 404:
            raise LabelStudioError(
                f"Label Studio has no project {project_id} that this token's user can see: check "
                "the project id (the number in the project's address) and the user's membership.",
                status=404,
            )
        return dict(answer.body)

    def users(self) -> list[dict[str, Any]]:
        body = self.call("GET", "/api/users/").body
        return list(body if isinstance(body, list) else body.get("results", []))

    def task(self, task_id: int) -> dict[str, Any] | None:
        """A task with its annotations and predictions; None when it was deleted."""
        answer = self.call("GET", f"/api/tasks/{task_id}/", ok=(200, 404))
        return dict(answer.body) if answer.status == 200 else None

    def task_pages(self, project_id: int, *, page_size: int) -> Iterator[list[dict[str, Any]]]:
        """The project's tasks (annotations and predictions included), page by page."""
        page, seen = 1, 0
        while True:
            answer = self.call(
                "GET",
                "/api/tasks/",
                query={
                    "project": project_id,
                    "page": page,
                    "page_size": page_size,
                    "fields": "all",
                },
                ok=(200, 404),
            )
            if answer.status == 404:  # "Invalid page": past the last one
                return
            body = answer.body
            tasks = body.get("tasks", []) if isinstance(body, dict) else body
            if not tasks:
                return
            yield list(tasks)
            seen += len(tasks)
            total = body.get("total") if isinstance(body, dict) else None
            if isinstance(total, int) and seen >= total:
                return
            page += 1

    def export(self, project_id: int) -> list[dict[str, Any]]:
        return list(
            self.call(
                "GET", f"/api/projects/{project_id}/export", query={"exportType": "JSON"}
            ).body
        )

    def webhook_create(
        self, *, project_id: int, url: str, headers: dict[str, str], actions: list[str]
    ) -> int:
        body = self.call(
            "POST",
            "/api/webhooks/",
            body={
                "project": project_id,
                "url": url,
                "send_payload": True,
                "send_for_all_actions": False,
                "is_active": True,
                "headers": headers,
                "actions": actions,
            },
        ).body
        return int(body["id"])

    def webhook_delete(self, webhook_id: int) -> None:
        self.call("DELETE", f"/api/webhooks/{webhook_id}/", ok=(200, 204, 404))

    def task_create(self, *, project_id: int, data: dict[str, Any]) -> int:
        body = self.call("POST", "/api/tasks/", body={"project": project_id, "data": data}).body
        return int(body["id"])

    def prediction_create(
        self, *, task_id: int, model_version: str, result: list[dict[str, Any]]
    ) -> None:
        self.call(
            "POST",
            "/api/predictions/",
            body={"task": task_id, "model_version": model_version, "result": result},
        )
