"""Webhooks: manage a study's endpoints and fire events.

Each event makes one delivery per subscribed endpoint (unique per endpoint and event id,
so firing twice sends once), committed with the event and handed to the workers after the
transaction commits (``webhooks/dispatch.py``); ``webhooks/delivery.py`` sends it, signed,
with retries. An endpoint's URL must pass ``webhooks.targets.webhook_target`` (no user
name, no backslash, http or https only); whether its host may be private is decided when
connecting (``AGREEMENT_WEBHOOKS_ALLOW_PRIVATE``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from computations import engine
from computations.models import Computation, ComputationScope, ComputationStatus
from studies.models import Study
from webhooks import dispatch

# Signing lives in ``webhooks.delivery``; these names stay importable from here.
from webhooks.delivery import payload_body as payload_body
from webhooks.delivery import webhook_signature as webhook_signature
from webhooks.models import DeliveryStatus, WebhookDelivery, WebhookEndpoint, WebhookEvent
from webhooks.targets import webhook_url_problem

logger = logging.getLogger(__name__)

SUBSCRIBABLE_EVENTS = (
    WebhookEvent.COMPUTATION_FINISHED,
    WebhookEvent.AGREEMENT_BELOW_THRESHOLD,
    WebhookEvent.REVIEW_ITEMS_ADDED,
    WebhookEvent.MODEL_RESULT_STORED,
)
MAX_ENDPOINTS_PER_STUDY = 20


class WebhookErrorCode:
    NO_EVENTS = "no_events"
    UNKNOWN_EVENT = "unknown_event"
    THRESHOLD_REQUIRED = "threshold_required"
    UNKNOWN_COEFFICIENT = "unknown_coefficient"
    THRESHOLD_OUT_OF_RANGE = "threshold_out_of_range"
    INVALID_URL = "invalid_url"
    TOO_MANY_ENDPOINTS = "too_many_endpoints"


# -- endpoints -----------------------------------------------------------------------------------


def webhook_endpoint_validate(*, endpoint: WebhookEndpoint) -> None:
    """Raise ``ValidationError`` (with codes, per field) unless the endpoint is valid."""
    _clean_endpoint(endpoint)


def _clean_endpoint(endpoint: WebhookEndpoint) -> None:
    errors: dict[str, ValidationError] = {}
    events = endpoint.events
    if not isinstance(events, list) or not events:
        errors["events"] = ValidationError(
            "Subscribe to at least one event.", code=WebhookErrorCode.NO_EVENTS
        )
    else:
        unknown = [e for e in events if e not in SUBSCRIBABLE_EVENTS]
        if unknown:
            errors["events"] = ValidationError(
                f"Unknown events {', '.join(map(str, unknown))}; known: "
                f"{', '.join(SUBSCRIBABLE_EVENTS)}.",
                code=WebhookErrorCode.UNKNOWN_EVENT,
            )
        endpoint.events = list(dict.fromkeys(events))
    if (
        WebhookEvent.AGREEMENT_BELOW_THRESHOLD in (events or [])
        and endpoint.threshold is None
        and "events" not in errors
    ):
        errors["threshold"] = ValidationError(
            "agreement.below_threshold needs a threshold.",
            code=WebhookErrorCode.THRESHOLD_REQUIRED,
        )
    if endpoint.threshold is not None and not -1 <= endpoint.threshold <= 1:
        errors["threshold"] = ValidationError(
            "A threshold is a coefficient value, from -1 to 1.",
            code=WebhookErrorCode.THRESHOLD_OUT_OF_RANGE,
        )
    if endpoint.coefficient and endpoint.coefficient not in engine.ALL_COEFFICIENTS:
        errors["coefficient"] = ValidationError(
            f"Unknown coefficient; known: {', '.join(engine.ALL_COEFFICIENTS)}.",
            code=WebhookErrorCode.UNKNOWN_COEFFICIENT,
        )
    url_problem = webhook_url_problem(endpoint.url)
    if url_problem is not None:
        errors["url"] = ValidationError(url_problem, code=WebhookErrorCode.INVALID_URL)
    if errors:
        raise ValidationError(errors)
    endpoint.full_clean()


@transaction.atomic
def webhook_endpoint_create(
    *,
    study: Study,
    url: str,
    events: Sequence[str],
    description: str = "",
    threshold: float | None = None,
    coefficient: str = "",
    is_active: bool = True,
    created_by: Any | None = None,
) -> tuple[WebhookEndpoint, str]:
    """A new endpoint and its secret (returned here only; it signs every request)."""
    # Lock the study so two concurrent creates cannot both pass the limit.
    Study.objects.select_for_update().filter(pk=study.pk).exists()
    if WebhookEndpoint.objects.filter(study=study).count() >= MAX_ENDPOINTS_PER_STUDY:
        raise ValidationError(
            f"A study has at most {MAX_ENDPOINTS_PER_STUDY} webhook endpoints.",
            code=WebhookErrorCode.TOO_MANY_ENDPOINTS,
        )
    secret = WebhookEndpoint.generate_secret()
    endpoint = WebhookEndpoint(
        study=study,
        url=url,
        events=list(events),
        description=description,
        threshold=threshold,
        coefficient=coefficient,
        is_active=is_active,
        secret=secret,
        created_by=created_by if getattr(created_by, "pk", None) else None,
    )
    _clean_endpoint(endpoint)
    endpoint.save()
    logger.info("webhook endpoint created id=%s study=%s", endpoint.pk, study.pk)
    return endpoint, secret


_UPDATABLE = frozenset({"url", "events", "description", "threshold", "coefficient", "is_active"})


@transaction.atomic
def webhook_endpoint_update(*, endpoint: WebhookEndpoint, **fields: Any) -> WebhookEndpoint:
    """Change any of url, events, description, threshold, coefficient, is_active."""
    unexpected = set(fields) - _UPDATABLE
    if unexpected:
        raise TypeError(f"webhook_endpoint_update() got unexpected fields {sorted(unexpected)}")
    for name, value in fields.items():
        setattr(endpoint, name, list(value) if name == "events" else value)
    _clean_endpoint(endpoint)
    endpoint.save()
    return endpoint


@transaction.atomic
def webhook_endpoint_rotate_secret(*, endpoint: WebhookEndpoint) -> tuple[WebhookEndpoint, str]:
    """A new secret; requests are signed with it from now on (retries included)."""
    secret = WebhookEndpoint.generate_secret()
    endpoint.secret = secret
    endpoint.save(update_fields=["secret", "updated_at"])
    return endpoint, secret


@transaction.atomic
def webhook_endpoint_delete(*, endpoint: WebhookEndpoint) -> None:
    """Delete the endpoint and its delivery log; pending retries find nothing and stop."""
    endpoint.delete()


# -- events --------------------------------------------------------------------------------------


def _api_url(name: str, **kwargs: Any) -> str:
    path = reverse(name, kwargs={"version": "v1", **kwargs})
    base = settings.AGREEMENT_PUBLIC_URL.rstrip("/")
    return f"{base}{path}"


def _envelope(*, event: str, event_id: str, study: Study, data: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": event_id,
        "event": event,
        "created_at": timezone.now().isoformat(),
        "study": {"id": study.pk, "name": study.name},
        "data": data,
    }


def _coefficients(results: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    out = {}
    for name, entry in ((results or {}).get("coefficients") or {}).items():
        if isinstance(entry, dict):
            out[name] = {"value": entry.get("value"), "ci": entry.get("ci"), "se": entry.get("se")}
    return out


def _computation_data(computation: Computation, rounds: list[Any]) -> dict[str, Any]:
    results = computation.results or {}
    return {
        "computation": {
            "id": computation.pk,
            "url": _api_url("computation-detail", study_pk=computation.study_id, pk=computation.pk),
            "status": computation.status,
            "error": computation.error,
            "scope": computation.scope,
            "trigger": computation.trigger,
            "finished_at": computation.finished_at.isoformat() if computation.finished_at else None,
            "n_annotations": computation.n_annotations,
            "n_items": results.get("n_items"),
            "n_coders": results.get("n_coders"),
            "fingerprint": computation.fingerprint,
        },
        "question": {"id": computation.question_id, "key": computation.question.key},
        "rounds": [{"id": r.pk, "name": r.name, "position": r.position} for r in rounds],
        "coefficients": _coefficients(results),
    }


def _below_threshold(
    endpoint: WebhookEndpoint, coefficients: dict[str, dict[str, Any]]
) -> list[tuple[str, float]]:
    threshold = endpoint.threshold
    if threshold is None:
        return []
    found = []
    for name, entry in coefficients.items():
        if endpoint.coefficient and name != endpoint.coefficient:
            continue
        value = entry.get("value")
        if isinstance(value, int | float) and value < threshold:
            found.append((name, float(value)))
    return found


def _create_deliveries(
    specs: Iterable[tuple[WebhookEndpoint, str, str, dict[str, Any]]],
) -> list[int]:
    """Create each (endpoint, event, event id, payload) once; enqueue the new ones on commit."""
    created: list[int] = []
    with transaction.atomic():
        for endpoint, event, event_id, payload in specs:
            if WebhookDelivery.objects.filter(endpoint=endpoint, event_id=event_id).exists():
                continue
            now = timezone.now()
            delivery = WebhookDelivery(
                endpoint=endpoint,
                event=event,
                event_id=event_id,
                payload=payload,
                next_attempt_at=now,
                dispatched_at=now,  # handed over on commit; cleared if the broker refuses
            )
            delivery.full_clean(validate_constraints=False)
            try:
                with transaction.atomic():
                    delivery.save()
            except IntegrityError:  # fired concurrently: the other one sends it
                continue
            created.append(delivery.pk)
        if created:
            dispatch.deliveries_enqueue(created)
    return created


def webhooks_on_computation_finished(*, computation_id: int) -> list[int]:
    """Fire ``computation.finished`` (done or failed) and, for a one-round computation whose
    coefficients fall below an endpoint's threshold, ``agreement.below_threshold``.

    Call it after the computation is marked done or failed; calling it again sends nothing
    twice. Returns the ids of the deliveries created.
    """
    computation = (
        Computation.objects.select_related("study", "question").filter(pk=computation_id).first()
    )
    if computation is None or computation.status not in (
        ComputationStatus.DONE,
        ComputationStatus.FAILED,
    ):
        return []
    endpoints = list(WebhookEndpoint.objects.filter(study_id=computation.study_id, is_active=True))
    if not endpoints:
        return []
    rounds = list(computation.rounds.order_by("position"))
    data = _computation_data(computation, rounds)
    study = computation.study
    specs: list[tuple[WebhookEndpoint, str, str, dict[str, Any]]] = []
    for endpoint in endpoints:
        if WebhookEvent.COMPUTATION_FINISHED in endpoint.events:
            event_id = f"computation.finished:{computation.pk}:{computation.attempts}"
            specs.append(
                (
                    endpoint,
                    WebhookEvent.COMPUTATION_FINISHED,
                    event_id,
                    _envelope(
                        event=WebhookEvent.COMPUTATION_FINISHED,
                        event_id=event_id,
                        study=study,
                        data=data,
                    ),
                )
            )
        if (
            WebhookEvent.AGREEMENT_BELOW_THRESHOLD in endpoint.events
            and computation.status == ComputationStatus.DONE
            and computation.scope == ComputationScope.ROUND
            and rounds
        ):
            found = _below_threshold(endpoint, data["coefficients"])
            if found:
                # One event per computation and endpoint, listing every coefficient below.
                event_id = f"agreement.below_threshold:{computation.pk}"
                below = {
                    "round": data["rounds"][0],
                    "question": data["question"],
                    "threshold": endpoint.threshold,
                    "below": [
                        {
                            "coefficient": name,
                            "value": value,
                            "ci": data["coefficients"][name].get("ci"),
                        }
                        for name, value in sorted(found)
                    ],
                    "computation": {"id": computation.pk, "url": data["computation"]["url"]},
                }
                specs.append(
                    (
                        endpoint,
                        WebhookEvent.AGREEMENT_BELOW_THRESHOLD,
                        event_id,
                        _envelope(
                            event=WebhookEvent.AGREEMENT_BELOW_THRESHOLD,
                            event_id=event_id,
                            study=study,
                            data=below,
                        ),
                    )
                )
    subscribed = [e for e in endpoints if WebhookEvent.MODEL_RESULT_STORED in e.events]
    if subscribed and computation.status == ComputationStatus.DONE:
        for model_data in _model_results(computation, data):
            event_id = f"model.result_stored:{computation.pk}:{model_data['model']['coder']}"
            payload = _envelope(
                event=WebhookEvent.MODEL_RESULT_STORED,
                event_id=event_id,
                study=study,
                data=model_data,
            )
            specs.extend(
                (endpoint, WebhookEvent.MODEL_RESULT_STORED, event_id, payload)
                for endpoint in subscribed
            )
    created = _create_deliveries(specs)
    if created:
        logger.info("webhooks fired computation=%s deliveries=%s", computation.pk, len(created))
    return created


def _model_results(computation: Computation, data: dict[str, Any]) -> list[dict[str, Any]]:
    """One ``model.result_stored`` body per model coder of a done computation: the model and
    its versions, the alternative annotator test's verdict (or why it did not run), the
    prediction-powered estimates (or why not), the agreement between people and models and
    the judge diagnostics."""
    stored = (computation.results or {}).get("model_coders") or {}
    between = (stored.get("groups") or {}).get("between") or {}
    history = _api_url("history-models", study_pk=computation.study_id)
    out = []
    for entry in stored.get("per_model") or []:
        test = entry.get("alt_test") or {}
        ppi = entry.get("ppi") or {}
        verdict: dict[str, Any] = (
            {"refused": test["refused"]}
            if "refused" in test
            else {
                key: test.get(key)
                for key in (
                    "passed",
                    "winning_rate",
                    "advantage_probability",
                    "epsilon",
                    "alpha",
                    "n_humans",
                    "n_items",
                )
            }
        )
        estimates: dict[str, Any] = (
            {"refused": ppi["refused"]}
            if "refused" in ppi
            else {
                "what": ppi.get("what"),
                "n_labelled": ppi.get("n_labelled"),
                "n_unlabelled": ppi.get("n_unlabelled"),
                "estimates": [
                    {
                        key: row.get(key)
                        for key in ("label", "estimate", "ci", "classical_ci", "naive")
                    }
                    for row in ppi.get("estimates") or []
                ],
            }
        )
        out.append(
            {
                "model": {
                    key: entry.get(key)
                    for key in ("coder", "key", "model_name", "model_version", "prompt_version")
                },
                "question": data["question"],
                "rounds": data["rounds"],
                "alt_test": verdict,
                "ppi": estimates,
                "between": {"value": between.get("value"), "ci": between.get("ci")},
                "diagnostics": _judge_diagnostics(entry),
                "computation": {"id": computation.pk, "url": data["computation"]["url"]},
                "history_url": f"{history}?coder={entry.get('coder')}",
            }
        )
    return out


def _judge_diagnostics(entry: dict[str, Any]) -> dict[str, Any]:
    """The judge diagnostics the worker stored for one model (each only when computed):
    self-consistency (alpha and interval, or why not), calibration (ECE, or why not),
    position bias (share picking the option shown first, and p)."""
    fields = {
        "self_consistency": ("alpha", "ci", "n_items", "runs", "refused"),
        "calibration": ("ece", "n", "accuracy", "mean_confidence", "refused"),
        "position_bias": ("share_first", "n", "p"),
    }
    out: dict[str, Any] = {}
    for name, keys in fields.items():
        stored = entry.get(name)
        if isinstance(stored, dict):
            out[name] = {key: stored[key] for key in keys if key in stored}
    return out


def webhooks_on_review_items_added(
    *, study_id: int, event_id: str, data: dict[str, Any]
) -> list[int]:
    """Fire ``review.items_added`` (``data`` as the review app describes the entries) to the
    study's subscribed endpoints; firing the same ``event_id`` again sends nothing twice."""
    endpoints = [
        endpoint
        for endpoint in WebhookEndpoint.objects.filter(study_id=study_id, is_active=True)
        if WebhookEvent.REVIEW_ITEMS_ADDED in endpoint.events
    ]
    if not endpoints:
        return []
    study = endpoints[0].study
    payload = _envelope(
        event=WebhookEvent.REVIEW_ITEMS_ADDED, event_id=event_id, study=study, data=data
    )
    return _create_deliveries(
        (endpoint, WebhookEvent.REVIEW_ITEMS_ADDED, event_id, payload) for endpoint in endpoints
    )


def webhook_ping(*, endpoint: WebhookEndpoint) -> WebhookDelivery:
    """Send a ``ping`` event now (to test the endpoint), whatever it subscribes to."""
    event_id = f"ping:{endpoint.pk}:{time.time_ns()}"
    payload = _envelope(
        event=WebhookEvent.PING,
        event_id=event_id,
        study=endpoint.study,
        data={"endpoint": {"id": endpoint.pk, "url": endpoint.url}},
    )
    created = _create_deliveries([(endpoint, WebhookEvent.PING, event_id, payload)])
    return WebhookDelivery.objects.get(pk=created[0])


@transaction.atomic
def webhook_delivery_redeliver(*, delivery: WebhookDelivery) -> WebhookDelivery:
    """Send a finished (failed or succeeded) delivery again: one more attempt, logged like
    the others (retried only while under the attempt limit)."""
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status=DeliveryStatus.PENDING,
        next_attempt_at=timezone.now(),
        dispatched_at=timezone.now(),
        finished_at=None,
    )
    dispatch.deliveries_enqueue([delivery.pk])
    delivery.refresh_from_db()
    return delivery
