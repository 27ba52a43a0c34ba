"""The fake's conversations.members: Slack's shape, cursor pages, scopes and channel errors."""

from __future__ import annotations

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from tests.fakes.slack.server import FakeSlack
from tests.fakes.slack.state import BOT_USER_ID

PEOPLE = [BOT_USER_ID, *(f"W{n:03d}" for n in range(1, 8))]


async def _error(call: object) -> dict[str, object]:
    with pytest.raises(SlackApiError) as raised:
        await call  # type: ignore[misc]
    return dict(raised.value.response.data)  # type: ignore[arg-type]


async def test_members_come_in_pages_linked_by_cursors(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    slack.workspace.members["C1"] = PEOPLE

    first = await client.conversations_members(channel="C1", limit=3)
    second = await client.conversations_members(
        channel="C1", limit=3, cursor=first["response_metadata"]["next_cursor"]
    )
    last = await client.conversations_members(
        channel="C1", limit=3, cursor=second["response_metadata"]["next_cursor"]
    )

    assert first["members"] + second["members"] + last["members"] == PEOPLE
    assert first["response_metadata"]["next_cursor"] != ""
    assert last["response_metadata"] == {"next_cursor": ""}
    everyone = await client.conversations_members(channel="C1")
    assert everyone["members"] == PEOPLE, "the default page (100) holds them all"


async def test_a_channel_nobody_listed_holds_the_bot_and_whoever_wrote_there(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    slack.add_message("C2", "paging the on-call", user="W7")
    slack.add_message("C2", "here", user="W8")

    found = await client.conversations_members(channel="C2")

    assert found["members"] == [BOT_USER_ID, "W7", "W8"]


async def test_unknown_hidden_and_unjoined_channels_are_refused(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    slack.workspace.members["C3"] = ["W7"]
    slack.workspace.members["G1"] = ["W7"]
    slack.workspace.private_channels.add("G1")

    unknown = await _error(client.conversations_members(channel="C404"))
    hidden = await _error(client.conversations_members(channel="G1"))
    unjoined = await _error(client.conversations_members(channel="C3"))

    assert unknown == {"ok": False, "error": "channel_not_found"}
    assert hidden == {"ok": False, "error": "channel_not_found"}
    assert unjoined == {"ok": False, "error": "not_in_channel"}


async def test_the_scope_follows_the_kind_of_channel(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    slack.workspace.members["C1"] = [BOT_USER_ID]
    slack.workspace.members["G1"] = [BOT_USER_ID]
    slack.workspace.private_channels.add("G1")
    slack.workspace.scopes = {"chat:write", "groups:read"}

    public = await _error(client.conversations_members(channel="C1"))
    private = await client.conversations_members(channel="G1")

    assert public == {
        "ok": False,
        "error": "missing_scope",
        "needed": "channels:read",
        "provided": "chat:write,groups:read",
    }
    assert private["members"] == [BOT_USER_ID]


@pytest.mark.parametrize(
    ("arguments", "error"),
    [({"limit": 0}, "invalid_limit"), ({"cursor": "not-a-cursor"}, "invalid_cursor")],
)
async def test_bad_pages_are_refused(
    slack: FakeSlack, client: AsyncWebClient, arguments: dict[str, object], error: str
) -> None:
    slack.workspace.members["C1"] = PEOPLE

    refused = await _error(client.conversations_members(channel="C1", **arguments))

    assert refused["error"] == error
