"""A small client of the agreement server's REST API (``/api/v1/``), standard library only.

    from agreement_client import AgreementClient

    client = AgreementClient("http://127.0.0.1:8000", token="…")
    client.upload_annotations(study_id, round="Round 2", question="sentiment",
                              rows=[{"item": "post-1", "coder": "alice", "label": "positive"}])
    computation = client.request_computation(study_id, question="sentiment", round="Round 2")
    done = client.wait_for_computation(computation)
    print(done["results"]["coefficients"]["alpha"]["value"])

Every error the server answers becomes an ``AgreementError`` subclass carrying the HTTP
status, the error ``type`` and the list of ``errors`` (``code``, ``detail``, ``attr``) of
the server's one error format; ``error.codes`` lists the codes.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, BinaryIO, TextIO

__all__ = [
    "AgreementClient",
    "AgreementError",
    "AuthenticationError",
    "ComputationFailedError",
    "ConflictError",
    "ConnectionFailedError",
    "ErrorDetail",
    "InvalidRequestError",
    "NotFoundError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "ServerError",
    "WaitTimeoutError",
    "verify_webhook_signature",
]

API_PREFIX = "/api/v1"
USER_AGENT = "agreement-client/1"


# -- errors ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ErrorDetail:
    """One entry of the server's ``errors`` list: ``attr`` is the field (``None``: the whole
    request), e.g. ``annotations.12.label`` for the label of the 13th uploaded row."""

    code: str
    detail: str
    attr: str | None = None


class AgreementError(Exception):
    """An error answered by the server (or met on the way to it)."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        type: str | None = None,  # the server's name for it
        errors: Iterable[ErrorDetail] = (),
        body: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.type = type
        self.errors = list(errors)
        self.body = body

    @property
    def codes(self) -> list[str]:
        """The machine-readable codes of every error, in order."""
        return [error.code for error in self.errors]

    def __str__(self) -> str:
        if not self.errors:
            return self.message
        shown = "; ".join(
            f"{e.attr + ': ' if e.attr else ''}{e.detail} [{e.code}]" for e in self.errors[:5]
        )
        more = f" (and {len(self.errors) - 5} more)" if len(self.errors) > 5 else ""
        return f"{self.message}: {shown}{more}"


class InvalidRequestError(AgreementError):
    """400: the request was refused; ``errors`` name every bad field or row."""


class AuthenticationError(AgreementError):
    """401: no token, or a wrong or revoked one."""


class PermissionDeniedError(AgreementError):
    """403: the token's role in the study cannot do this."""


class NotFoundError(AgreementError):
    """404: no such object, or a study the token is not a member of."""


class ConflictError(AgreementError):
    """409: e.g. uploading into a closed round (``round_closed``)."""


class PayloadTooLargeError(AgreementError):
    """413: e.g. more rows than one upload accepts (``too_many_rows``)."""


class ServerError(AgreementError):
    """5xx: the server failed; retrying later may work."""


class ConnectionFailedError(AgreementError):
    """The server could not be reached (refused, DNS, timeout)."""


class ComputationFailedError(AgreementError):
    """The computation finished with status ``failed``; ``computation`` holds its body."""

    def __init__(self, message: str, *, computation: dict[str, Any]) -> None:
        super().__init__(message, type="computation_failed", body=computation)
        self.computation = computation


class WaitTimeoutError(AgreementError):
    """The computation did not finish in time; ``computation`` holds its last state."""

    def __init__(self, message: str, *, computation: dict[str, Any]) -> None:
        super().__init__(message, type="timeout", body=computation)
        self.computation = computation


_BY_STATUS: dict[int, type[AgreementError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
}


def _error_from(status: int, raw: bytes, reason: str) -> AgreementError:
    try:
        body: Any = json.loads(raw.decode("utf-8")) if raw else None
    except (UnicodeDecodeError, ValueError):
        body = raw.decode("utf-8", "replace")[:2000]
    errors: list[ErrorDetail] = []
    kind = None
    if isinstance(body, dict):
        kind = body.get("type")
        for entry in body.get("errors") or []:
            if isinstance(entry, dict):
                errors.append(
                    ErrorDetail(
                        code=str(entry.get("code", "")),
                        detail=str(entry.get("detail", "")),
                        attr=entry.get("attr"),
                    )
                )
    cls = _BY_STATUS.get(status, ServerError if status >= 500 else AgreementError)
    return cls(
        f"HTTP {status} {reason}".strip(), status=status, type=kind, errors=errors, body=body
    )


# -- webhooks ----------------------------------------------------------------------------------


def verify_webhook_signature(
    *,
    secret: str,
    body: bytes,
    timestamp: str,
    signature: str,
    tolerance: float | None = 300,
    now: float | None = None,
) -> bool:
    """True when ``signature`` (the ``X-Agreement-Signature`` header) signs ``body`` with
    ``timestamp`` (``X-Agreement-Timestamp``) and the endpoint's secret, and the timestamp
    is within ``tolerance`` seconds of now (``None``: any age). ``body`` is the raw request
    body, before any JSON parsing."""
    try:
        sent = int(timestamp)
    except (TypeError, ValueError):
        return False
    if tolerance is not None and abs((time.time() if now is None else now) - sent) > tolerance:
        return False
    expected = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return hmac.compare_digest(f"sha256={expected.hexdigest()}", signature or "")


# -- the client -------------------------------------------------------------------------------


class AgreementClient:
    """The API of one server, as one token.

    ``base_url`` is the server's root (``http://127.0.0.1:8000``) or its API root
    (``…/api/v1``). ``token`` is a personal or study token's secret (sent as
    ``Authorization: Token <secret>``). Studies are given by id; rounds by id or name and
    questions by id or key (the server reads digits as an id first, then as a name / key).
    """

    def __init__(self, base_url: str, token: str, *, timeout: float = 60.0) -> None:
        root = base_url.rstrip("/")
        if root.endswith(API_PREFIX):
            root = root[: -len(API_PREFIX)]
        self.root = root
        self.api = root + API_PREFIX
        self.token = token
        self.timeout = timeout

    def __repr__(self) -> str:
        return f"AgreementClient({self.root!r})"

    # -- plumbing ------------------------------------------------------------------------------

    def url(self, path: str, params: Mapping[str, Any] | None = None) -> str:
        """An absolute URL: ``path`` is relative to ``/api/v1`` unless it is already absolute."""
        if path.startswith(("http://", "https://")):
            url = path
        elif path.startswith(API_PREFIX + "/"):
            url = self.root + path
        else:
            url = f"{self.api}/{path.lstrip('/')}"
        query = {k: v for k, v in (params or {}).items() if v is not None}
        if query:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(query, doseq=True)
        return url

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json_body: Any = None,
        data: bytes | None = None,
        content_type: str | None = None,
    ) -> Any:
        """Send one request; the parsed JSON answer (``None`` for 204), or an error raised."""
        headers = {
            "Authorization": f"Token {self.token}",
            "Accept": "application/json",
            "User-Agent": USER_AGENT,
        }
        if json_body is not None:
            data = json.dumps(json_body).encode("utf-8")
            content_type = "application/json"
        if content_type:
            headers["Content-Type"] = content_type
        request = urllib.request.Request(
            self.url(path, params), data=data, method=method.upper(), headers=headers
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                raw = answer.read()
        except urllib.error.HTTPError as error:
            raise _error_from(error.code, error.read() if error.fp else b"", error.reason) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
            reason = getattr(error, "reason", error)
            raise ConnectionFailedError(f"Cannot reach {self.root}: {reason}") from error
        if not raw:
            return None
        return json.loads(raw.decode("utf-8"))

    def get(self, path: str, **params: Any) -> Any:
        return self.request("GET", path, params=params)

    def post(self, path: str, body: Any = None, **params: Any) -> Any:
        return self.request("POST", path, params=params, json_body=body if body else {})

    def iterate(self, path: str, *, page_size: int = 500, **params: Any) -> Iterator[dict]:
        """Every row of a paginated list, page after page (following ``next``)."""
        url: str | None = self.url(path, {**params, "page_size": page_size})
        while url is not None:
            page = self.request("GET", url)
            if isinstance(page, list):  # an unpaginated list
                yield from page
                return
            yield from page.get("results", [])
            url = page.get("next")

    # -- studies and their objects ---------------------------------------------------------------

    def list_studies(self, **filters: Any) -> Iterator[dict]:
        return self.iterate("studies/", **filters)

    def study(self, study_id: int) -> dict:
        return self.get(f"studies/{int(study_id)}/")

    def list_questions(self, study_id: int, **filters: Any) -> Iterator[dict]:
        return self.iterate(f"studies/{int(study_id)}/questions/", **filters)

    def list_rounds(self, study_id: int, **filters: Any) -> Iterator[dict]:
        return self.iterate(f"studies/{int(study_id)}/rounds/", **filters)

    def list_coders(self, study_id: int, **filters: Any) -> Iterator[dict]:
        return self.iterate(f"studies/{int(study_id)}/coders/", **filters)

    def list_items(self, study_id: int, **filters: Any) -> Iterator[dict]:
        return self.iterate(f"studies/{int(study_id)}/items/", **filters)

    def list_annotations(self, study_id: int, **filters: Any) -> Iterator[dict]:
        """Filters: ``round`` (id or name), ``question`` (id or key), ``item``, ``coder``,
        ``updated_since``. A round or question not in the study raises ``InvalidRequestError``."""
        return self.iterate(f"studies/{int(study_id)}/annotations/", **filters)

    def list_annotation_changes(self, study_id: int, **filters: Any) -> Iterator[dict]:
        """Filters: ``round`` (id or name), ``question`` (id or key), ``item``, ``coder``,
        ``action``, ``since``."""
        return self.iterate(f"studies/{int(study_id)}/annotation-changes/", **filters)

    def list_computations(self, study_id: int, **filters: Any) -> Iterator[dict]:
        """Filters: ``question`` (id or key), ``round`` (id or name), ``status``."""
        return self.iterate(f"studies/{int(study_id)}/computations/", **filters)

    def list_webhooks(self, study_id: int) -> Iterator[dict]:
        return self.iterate(f"studies/{int(study_id)}/webhooks/")

    def register_webhook(
        self,
        study_id: int,
        url: str,
        events: Iterable[str] = ("computation.finished",),
        **fields: Any,
    ) -> dict:
        """Register a webhook endpoint (managers). The answer's ``secret`` signs every
        request and is shown this once; ``fields``: ``threshold``, ``coefficient``,
        ``description``, ``is_active``."""
        body = {"url": url, "events": list(events), **fields}
        return self.request("POST", f"studies/{int(study_id)}/webhooks/", json_body=body)

    def ping_webhook(self, study_id: int, webhook_id: int) -> dict:
        """Send a ``ping`` to the endpoint now; returns the queued delivery."""
        return self.post(f"studies/{int(study_id)}/webhooks/{int(webhook_id)}/ping/")

    def list_webhook_deliveries(self, study_id: int, webhook_id: int) -> Iterator[dict]:
        """The endpoint's delivery log, newest first, each with its ``attempt_log``."""
        return self.iterate(f"studies/{int(study_id)}/webhooks/{int(webhook_id)}/deliveries/")

    def question_id(self, study_id: int, question: int | str) -> int:
        """A question's id from its id or its key."""
        if isinstance(question, int):
            return question
        for row in self.list_questions(study_id):
            if row.get("key") == question:
                return int(row["id"])
        raise NotFoundError(f"No question with key {question!r} in study {study_id}.", status=404)

    def round_id(self, study_id: int, round: int | str) -> int:
        """A round's id from its id or its name."""
        if isinstance(round, int):
            return round
        for row in self.list_rounds(study_id):
            if row.get("name") == round:
                return int(row["id"])
        raise NotFoundError(f"No round named {round!r} in study {study_id}.", status=404)

    # -- annotations ----------------------------------------------------------------------------

    def upload_annotations(
        self,
        study_id: int,
        round: int | str,  # the API's name for it
        question: int | str,
        rows: Iterable[Mapping[str, Any] | tuple[Any, Any, Any]],
        create_missing: bool = False,
    ) -> dict:
        """Create or update the annotations of one round (id or name) and question (id or key),
        all or none. ``rows`` are ``{"item", "coder", "label"}`` mappings or
        ``(item, coder, label)`` tuples; a label is a code, a number, a list of codes (set)
        or a node path ``root/child``. Returns ``created``, ``updated``, ``unchanged``,
        ``items_created``, ``coders_created``; a refusal raises ``InvalidRequestError`` whose
        ``errors`` name every bad row (``attr`` = ``annotations.<row>.<field>``)."""
        annotations = [
            dict(row)
            if isinstance(row, Mapping)
            else {"item": row[0], "coder": row[1], "label": row[2]}
            for row in rows
        ]
        body = {
            "round": str(round),
            "question": str(question),
            "create_missing": bool(create_missing),
            "annotations": annotations,
        }
        return self.request("POST", f"studies/{int(study_id)}/annotations/bulk/", json_body=body)

    def upload_csv(
        self,
        study_id: int,
        source: str | bytes | os.PathLike[str] | BinaryIO | TextIO,
        *,
        round: int | str,
        question: int | str,
        create_missing: bool = False,
    ) -> dict:
        """Upload a CSV with the header ``item,coder,label`` (sets as ``a|b``) into one round
        (id or name) and question (id or key). ``source`` is the CSV text or bytes, a path,
        or an open file."""
        if isinstance(source, os.PathLike) or (
            isinstance(source, str) and "\n" not in source and os.path.exists(source)
        ):
            with open(source, "rb") as handle:
                data = handle.read()
        elif isinstance(source, str):
            data = source.encode("utf-8")
        elif isinstance(source, bytes):
            data = source
        else:
            content = source.read()
            data = content.encode("utf-8") if isinstance(content, str) else content
        return self.request(
            "POST",
            f"studies/{int(study_id)}/annotations/bulk/",
            params={
                "round": str(round),
                "question": str(question),
                "create_missing": "true" if create_missing else "false",
            },
            data=data,
            content_type="text/csv",
        )

    @staticmethod
    def rows_to_csv(rows: Iterable[tuple[Any, Any, Any]]) -> str:
        """``(item, coder, label)`` rows as the CSV ``upload_csv`` takes (lists become ``a|b``)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["item", "coder", "label"])
        for item, coder, label in rows:
            if isinstance(label, list | tuple | set | frozenset):
                label = "|".join(str(code) for code in label)
            writer.writerow([item, coder, label])
        return out.getvalue()

    # -- computations and history ---------------------------------------------------------------

    def request_computation(
        self,
        study_id: int,
        *,
        question: int | str,
        round: int | str | None = None,
        rounds: Iterable[int | str] | None = None,
        **params: Any,
    ) -> dict:
        """Queue a computation of one question (id or key) over one round, several rounds
        pooled, or (neither) the whole study; ``params`` are ``coefficients``, ``level``,
        ``distance``, ``bootstrap``, ``seed``, ``confidence``, ``scope``, ``chunk_size``
        and the kind's own (``min_overlap``, ``alpha_match``, ``iou_threshold``, ...; the
        server refuses one the question's kind does not take, or a misspelt one, naming it).
        Returns the computation (``status`` queued, or the identical live one, maybe done)."""
        body: dict[str, Any] = {"question": self.question_id(study_id, question), **params}
        if round is not None:
            body["round"] = self.round_id(study_id, round)
        if rounds is not None:
            body["rounds"] = [self.round_id(study_id, r) for r in rounds]
        return self.request("POST", f"studies/{int(study_id)}/computations/", json_body=body)

    def computation(
        self, url_or_id: str | int | Mapping[str, Any], study_id: int | None = None
    ) -> dict:
        """A computation by its URL, its body (``{"url": …}``), or its id with ``study_id``."""
        return self.get(self._computation_url(url_or_id, study_id))

    def _computation_url(
        self, url_or_id: str | int | Mapping[str, Any], study_id: int | None
    ) -> str:
        if isinstance(url_or_id, Mapping):
            if url_or_id.get("url"):
                return str(url_or_id["url"])
            study_id = study_id if study_id is not None else url_or_id.get("study")
            url_or_id = int(url_or_id["id"])
        if isinstance(url_or_id, int) or (isinstance(url_or_id, str) and url_or_id.isdigit()):
            if study_id is None:
                raise ValueError("A computation id needs its study_id (or pass its URL).")
            return f"studies/{int(study_id)}/computations/{int(url_or_id)}/"
        return str(url_or_id)

    def wait_for_computation(
        self,
        url_or_id: str | int | Mapping[str, Any],
        timeout: float = 300.0,
        poll: float = 1.0,
        *,
        study_id: int | None = None,
    ) -> dict:
        """Poll until the computation is done and return it (with its ``results``).

        Raises ``ComputationFailedError`` (with the server's ``error``) when it failed and
        ``WaitTimeoutError`` after ``timeout`` seconds. Polling slows down gently (×1.5, at most
        10 s between polls) so a long bootstrap does not cost many requests."""
        url = self._computation_url(url_or_id, study_id)
        deadline = time.monotonic() + timeout
        delay = max(poll, 0.01)
        while True:
            computation = self.get(url)
            status = computation.get("status")
            if status == "done":
                return computation
            if status == "failed":
                raise ComputationFailedError(
                    f"Computation {computation.get('id')} failed: {computation.get('error')}",
                    computation=computation,
                )
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WaitTimeoutError(
                    f"Computation {computation.get('id')} is still {status} after {timeout} s.",
                    computation=computation,
                )
            time.sleep(min(delay, remaining))
            delay = min(delay * 1.5, max(poll, 10.0))

    def history(self, study_id: int, question: int | str | None = None) -> dict:
        """Each question's (or one question's, by id or key) agreement round after round."""
        params = {}
        if question is not None:
            params["question"] = self.question_id(study_id, question)
        return self.get(f"studies/{int(study_id)}/history/", **params)
