"""Executors of approved workflows: a person (the default) or an automation endpoint (webhook).

Neither raises: what happened is reported in an ExecutionResult, which the thread shows and the
audit log keeps. The webhook gets an ``Idempotency-Key`` (the strategy id), so an endpoint can tell
a repeated delivery after a restart from a second approval.
"""

from __future__ import annotations

import logging

import aiohttp

from bot.settings import Settings
from domain.ports import Clock
from domain.workflows.ports import WorkflowExecutor
from domain.workflows.remediation import ExecutionRequest, ExecutionResult, ExecutionStatus

logger = logging.getLogger(__name__)

WEBHOOK_TIMEOUT_S = 30.0
MAX_RESPONSE_BYTES = 4096
USER_AGENT = "FaultMaven-Slack (workflow executor)"


class HumanExecutor:
    """``none``: nothing runs by itself; the exact steps are handed to the people."""

    name = "none"

    def __init__(self, *, clock: Clock) -> None:
        self._clock = clock

    async def execute(self, request: ExecutionRequest) -> ExecutionResult:
        """The steps with the approved values, for a person to run."""
        return ExecutionResult(
            executor=self.name,
            status=ExecutionStatus.HANDED_OVER,
            summary="the steps were handed to the people working on the case",
            steps=request.steps,
            at=self._clock.now(),
        )


class WebhookExecutor:
    """``webhook``: POST the approved workflow and its parameters to an automation endpoint."""

    name = "webhook"

    def __init__(
        self,
        *,
        url: str,
        clock: Clock,
        token: str | None = None,
        timeout_s: float = WEBHOOK_TIMEOUT_S,
    ) -> None:
        self._url = url
        self._clock = clock
        self._token = token
        self._timeout = aiohttp.ClientTimeout(total=timeout_s)

    async def execute(self, request: ExecutionRequest) -> ExecutionResult:
        """POST the request as JSON; a 2xx answer means the endpoint accepted it."""
        headers = {"Idempotency-Key": request.strategy_id, "User-Agent": USER_AGENT}
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        try:
            async with (
                aiohttp.ClientSession(timeout=self._timeout) as session,
                session.post(self._url, json=request.payload(), headers=headers) as response,
            ):
                status = response.status
                body = await response.content.read(MAX_RESPONSE_BYTES)
        except (aiohttp.ClientError, TimeoutError) as error:
            logger.warning(
                "workflow webhook unreachable",
                extra={"strategy_id": request.strategy_id, "error": type(error).__name__},
            )
            return self._result(request, ExecutionStatus.FAILED, _unreachable(error))
        excerpt = body.decode("utf-8", errors="replace").strip() or None
        if 200 <= status < 300:
            summary = f"it answered HTTP {status}"
            return self._result(request, ExecutionStatus.ACCEPTED, summary, status, excerpt)
        summary = f"the automation endpoint answered HTTP {status}"
        return self._result(request, ExecutionStatus.FAILED, summary, status, excerpt)

    def _result(
        self,
        request: ExecutionRequest,
        status: ExecutionStatus,
        summary: str,
        http_status: int | None = None,
        excerpt: str | None = None,
    ) -> ExecutionResult:
        return ExecutionResult(
            executor=self.name,
            status=status,
            summary=summary,
            steps=request.steps,
            http_status=http_status,
            response_excerpt=excerpt,
            at=self._clock.now(),
        )


def _unreachable(error: BaseException) -> str:
    if isinstance(error, TimeoutError):
        return "the automation endpoint did not answer in time"
    return f"the automation endpoint could not be reached ({type(error).__name__})"


def build_executor(settings: Settings, clock: Clock) -> WorkflowExecutor:
    """The executor FM_WORKFLOW_EXECUTOR names."""
    if settings.workflow_executor == "webhook":
        assert settings.workflow_webhook_url is not None  # load_settings insists on it
        token = settings.workflow_webhook_token
        return WebhookExecutor(
            url=settings.workflow_webhook_url,
            clock=clock,
            token=token.get_secret_value() if token else None,
        )
    return HumanExecutor(clock=clock)
