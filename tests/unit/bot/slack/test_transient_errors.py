"""Which failures are worth retrying later: Slack down or busy and network trouble, nothing else."""

from __future__ import annotations

import aiohttp
import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.slack_response import SlackResponse

from bot.slack.errors import is_transient


def slack_error(status: int, error: str) -> SlackApiError:
    response = SlackResponse(
        client=None,
        http_verb="POST",
        api_url="https://slack.com/api/chat.postMessage",
        req_args={},
        data={"ok": False, "error": error},
        headers={},
        status_code=status,
    )
    return SlackApiError("failed", response)


@pytest.mark.parametrize(
    ("error", "transient"),
    [
        (slack_error(503, "service_unavailable"), True),
        (slack_error(500, "internal_error"), True),
        (slack_error(429, "ratelimited"), True),
        (slack_error(200, "fatal_error"), True),
        (slack_error(200, "channel_not_found"), False),
        (slack_error(200, "not_in_channel"), False),
        (aiohttp.ClientConnectionError("refused"), True),
        (TimeoutError(), True),
        (ConnectionResetError(), True),
        (ValueError("a bug"), False),
    ],
)
def test_only_failures_that_can_pass_are_retried(error: BaseException, transient: bool) -> None:
    assert is_transient(error) is transient
