"""Alertmanager webhook notifications (format version 4) parsed into signal groups, or refused.

Only what identifies and describes the alerts is required (a status and at least one alert with
labels); everything Alertmanager marks optional or added later may be missing: fingerprints are then
computed from the labels, an alert's status defaults to the group's, the zero time
(``0001-01-01T00:00:00Z``, "not ended yet") means no end. Label and annotation values are redacted
(a probe's URL with a password in it, a token in a description) before anything keeps them.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError, field_validator

from domain.redaction import redact_text
from domain.workflows.signals import Signal, SignalGroup, SignalStatus, label_fingerprint

MAX_REASONS = 3


class PayloadError(ValueError):
    """A payload the endpoint refuses; the message says why, for the sender's logs."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True, frozen=True)


class _Alert(_Model):
    status: Literal["firing", "resolved"] | None = None
    labels: dict[str, str]
    annotations: dict[str, str] = Field(default_factory=dict)
    starts_at: AwareDatetime | None = Field(default=None, alias="startsAt")
    ends_at: AwareDatetime | None = Field(default=None, alias="endsAt")
    generator_url: str | None = Field(default=None, alias="generatorURL")
    fingerprint: str | None = Field(default=None, max_length=128)

    @field_validator("starts_at", "ends_at")
    @classmethod
    def _zero_is_unset(cls, value: datetime | None) -> datetime | None:
        # Go's zero time: Alertmanager sends it for alerts that have not ended.
        return None if value is not None and value.year <= 1 else value


class _Notification(_Model):
    version: Literal["4"] | None = None
    group_key: str | None = Field(default=None, alias="groupKey", max_length=10_000)
    truncated_alerts: int = Field(default=0, ge=0, alias="truncatedAlerts")
    status: Literal["firing", "resolved"]
    receiver: str | None = Field(default=None, max_length=255)
    group_labels: dict[str, str] = Field(default_factory=dict, alias="groupLabels")
    common_labels: dict[str, str] = Field(default_factory=dict, alias="commonLabels")
    common_annotations: dict[str, str] = Field(default_factory=dict, alias="commonAnnotations")
    external_url: str | None = Field(default=None, alias="externalURL")
    alerts: list[_Alert] = Field(min_length=1, max_length=1000)


def parse_alertmanager(body: bytes) -> SignalGroup:
    """The notification in ``body``, or PayloadError saying what is wrong with it."""
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, ValueError) as error:
        raise PayloadError(f"the body is not JSON ({error})") from None
    if not isinstance(data, dict):
        raise PayloadError("expected a JSON object: an Alertmanager webhook notification")
    try:
        notification = _Notification.model_validate(data)
    except ValidationError as error:
        raise PayloadError(describe(error)) from None
    return _group(notification)


def describe(error: ValidationError) -> str:
    """``alerts.0.labels: Input should be a valid dictionary`` (the first few problems)."""
    problems = [
        f"{'.'.join(str(part) for part in item['loc']) or 'body'}: {item['msg']}"
        for item in error.errors()[:MAX_REASONS]
    ]
    more = error.error_count() - len(problems)
    return "; ".join(problems) + (f" (and {more} more)" if more > 0 else "")


def _group(notification: _Notification) -> SignalGroup:
    status = SignalStatus(notification.status)
    return SignalGroup(
        receiver=notification.receiver,
        group_key=notification.group_key and redact_text(notification.group_key),
        status=status,
        group_labels=_cleaned(notification.group_labels),
        common_labels=_cleaned(notification.common_labels),
        common_annotations=_cleaned(notification.common_annotations),
        external_url=notification.external_url,
        truncated_alerts=notification.truncated_alerts,
        alerts=[_signal(alert, status) for alert in notification.alerts],
    )


def _signal(alert: _Alert, group_status: SignalStatus) -> Signal:
    return Signal(
        status=SignalStatus(alert.status) if alert.status else group_status,
        labels=_cleaned(alert.labels),
        annotations=_cleaned(alert.annotations),
        starts_at=alert.starts_at,
        ends_at=alert.ends_at,
        generator_url=alert.generator_url,
        fingerprint=alert.fingerprint or label_fingerprint(alert.labels),
    )


def _cleaned(values: dict[str, str]) -> dict[str, str]:
    return {name: redact_text(value) for name, value in values.items()}
