"""The Web API client, watched: a span per call, Slack's refusals and rate limits counted.

Every Web API call of the bot (the surface's, Bolt's and the responder lookups') goes through
`api_call`. Rate limits are counted as they arrive, including the ones slack_sdk then retries,
by a retry handler that never retries itself.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.web.async_slack_response import AsyncSlackResponse

from bot.observability.metrics import observe_slack_error
from bot.observability.tracing import span

RATE_LIMITED = 429


class RateLimitCounter(AsyncRetryHandler):
    """Counts each HTTP 429 Slack answers; leaves retrying to the handlers after it."""

    async def can_retry_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> bool:
        """Never retries; notes a rate limit."""
        if response is not None and response.status_code == RATE_LIMITED:
            method = urlsplit(request.url).path.rsplit("/", 1)[-1]
            observe_slack_error(method, "ratelimited", rate_limited=True)
        return False


class ObservedWebClient(AsyncWebClient):
    """slack_sdk's AsyncWebClient with a span per call and its errors counted by method."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.retry_handlers = [RateLimitCounter(), *self.retry_handlers]

    async def api_call(self, api_method: str, **kwargs: Any) -> AsyncSlackResponse:
        """One Web API call, in a span; a refusal is counted (rate limits were as they came)."""
        with span("slack.api", **{"fm.slack.method": api_method}):
            try:
                return await super().api_call(api_method, **kwargs)
            except SlackApiError as error:
                if error.response.status_code != RATE_LIMITED:
                    reason = str(error.response.get("error") or "unknown")
                    observe_slack_error(api_method, reason, rate_limited=False)
                raise
