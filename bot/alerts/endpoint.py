"""`POST /alerts/alertmanager`: authenticate, parse, record in the durable inbox, answer at once.

Nothing here talks to Slack: a notification is accepted as soon as it is recorded, so alerts are
not lost while Slack is unavailable (the worker posts them when it can). Answers: 200 accepted,
400 with the reason for a malformed payload, 401 for a missing or wrong bearer token, 413 for an
oversized body, 503 while alert intake is not configured.
"""

from __future__ import annotations

import hmac
import logging
import uuid

from aiohttp import web

from bot.alerts.payload import PayloadError, parse_alertmanager
from bot.inbox.work import AlertWork
from bot.observability.metrics import observe_alert
from bot.services.intake import Intake
from domain.ports import Clock

logger = logging.getLogger(__name__)

ALERTS_PATH = "/alerts/alertmanager"
MAX_BODY_BYTES = 1024 * 1024
CHUNK_BYTES = 64 * 1024
NOT_CONFIGURED = "alert intake is off: set FM_ALERT_TOKEN and FM_ALERT_CHANNEL"


class AlertEndpoint:
    """The aiohttp handler for Alertmanager's webhook receiver."""

    def __init__(self, *, token: str | None, intake: Intake, clock: Clock) -> None:
        self._token = token.encode() if token else None
        self._intake = intake
        self._clock = clock

    async def handle(self, request: web.Request) -> web.Response:
        """Handle one notification."""
        if self._token is None:
            return _error(503, NOT_CONFIGURED, outcome="disabled")
        if not self._authorized(request.headers.get("Authorization", "")):
            observe_alert("unauthorized")
            logger.warning("alert refused: bad bearer token", extra={"peer": request.remote})
            return _error(401, "missing or wrong bearer token", {"WWW-Authenticate": "Bearer"})
        body = await _read_capped(request)
        if body is None:
            return _error(
                413, f"the body is larger than {MAX_BODY_BYTES // 1024} KB", outcome="too_large"
            )
        try:
            group = parse_alertmanager(body)
        except PayloadError as error:
            logger.info("alert refused: malformed payload", extra={"reason": str(error)})
            return _error(400, str(error), outcome="malformed")
        work = AlertWork(group=group, received_at=self._clock.now())
        await self._intake.alert(work, dedup_key=f"alert:{uuid.uuid4().hex}")
        observe_alert(f"accepted_{group.status.value}")
        logger.info(
            "alert notification recorded",
            extra={"status": group.status.value, "alerts": len(group.alerts)},
        )
        return web.json_response(
            {"status": "accepted", "group": group.identity[:16], "alerts": len(group.alerts)}
        )

    def _authorized(self, header: str) -> bool:
        scheme, _, credentials = header.partition(" ")
        if scheme.lower() != "bearer" or self._token is None:
            return False
        return hmac.compare_digest(credentials.strip().encode(), self._token)


async def _read_capped(request: web.Request) -> bytes | None:
    """The body, or None as soon as it is longer than allowed."""
    if (request.content_length or 0) > MAX_BODY_BYTES:
        return None
    data = bytearray()
    async for chunk in request.content.iter_chunked(CHUNK_BYTES):
        data.extend(chunk)
        if len(data) > MAX_BODY_BYTES:
            return None
    return bytes(data)


def _error(
    status: int, reason: str, headers: dict[str, str] | None = None, *, outcome: str | None = None
) -> web.Response:
    if outcome is not None:
        observe_alert(outcome)
    return web.json_response({"error": reason}, status=status, headers=headers)
