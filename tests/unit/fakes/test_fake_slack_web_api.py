"""The fake Web API keeps message state, records calls and answers with Slack's error names."""

from __future__ import annotations

import asyncio
import json
import time

import aiohttp
import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from tests.fakes.slack.samples import TRIGGER_TTL_S, new_trigger_id
from tests.fakes.slack.server import FakeSlack
from tests.unit.fakes.conftest import APP_TOKEN, BOT_TOKEN


async def _raw_post(url: str, **kwargs: object) -> dict[str, object]:
    async with aiohttp.ClientSession() as session, session.post(url, **kwargs) as response:  # type: ignore[arg-type]
        body: dict[str, object] = await response.json()
        return body


async def test_auth_test_names_the_bot(slack: FakeSlack, client: AsyncWebClient) -> None:
    identity = await client.auth_test()

    assert identity["user_id"] == slack.workspace.bot_user_id
    assert identity["bot_id"] == slack.workspace.bot_id
    assert identity["team_id"] == "T111"


async def test_posted_messages_thread_and_updates_replace_them(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    root = slack.add_message("C1", "<@U0FMBOT> checkout is down", user="W7")
    header = await client.chat_postMessage(channel="C1", thread_ts=root["ts"], text="Case opened")
    await client.chat_postMessage(channel="C1", thread_ts=root["ts"], text="Looking at this…")

    await client.chat_update(
        channel="C1", ts=header["ts"], text="Case 1 · investigating", blocks=[]
    )

    thread = slack.messages("C1", thread_ts=root["ts"])
    assert [m["text"] for m in thread] == [
        "<@U0FMBOT> checkout is down",
        "Case 1 · investigating",
        "Looking at this…",
    ]
    assert thread[0]["reply_count"] == 2
    assert thread[1]["edited"]["user"] == "U0FMBOT"
    assert "blocks" in thread[1]
    assert thread[1]["blocks"] == []
    assert [m["ts"] for m in slack.messages("C1")] == [root["ts"]]
    assert [p["text"] for p in slack.calls_to("chat.postMessage")] == [
        "Case opened",
        "Looking at this…",
    ]


async def test_updating_an_unknown_message_is_message_not_found(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    with pytest.raises(SlackApiError) as refused:
        await client.chat_update(channel="C1", ts="1700000000.000001", text="x")

    assert refused.value.response["error"] == "message_not_found"
    assert slack.calls_to("chat.update", ok=False) == [
        {"channel": "C1", "ts": "1700000000.000001", "text": "x"}
    ]


async def test_the_bot_cannot_update_or_delete_a_persons_message(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    theirs = slack.add_message("C1", "mine", user="W7")

    for call, error in (
        (client.chat_update, "cant_update_message"),
        (client.chat_delete, "cant_delete_message"),
    ):
        with pytest.raises(SlackApiError) as refused:
            await call(channel="C1", ts=theirs["ts"], text="x")
        assert refused.value.response["error"] == error


async def test_replies_permalinks_reactions_and_deletes(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    root = await client.chat_postMessage(channel="C1", text="root")
    reply = await client.chat_postMessage(channel="C1", text="reply", thread_ts=root["ts"])

    replies = await client.conversations_replies(channel="C1", ts=root["ts"])
    link = await client.chat_getPermalink(channel="C1", message_ts=reply["ts"])
    await client.reactions_add(channel="C1", timestamp=root["ts"], name="eyes")
    with pytest.raises(SlackApiError) as again:
        await client.reactions_add(channel="C1", timestamp=root["ts"], name="eyes")
    await client.chat_delete(channel="C1", ts=reply["ts"])

    assert [m["text"] for m in replies["messages"]] == ["root", "reply"]
    assert link["permalink"].endswith(f"?thread_ts={root['ts']}&cid=C1")
    assert again.value.response["error"] == "already_reacted"
    reacted = slack.message("C1", root["ts"])
    assert reacted is not None
    assert reacted["reactions"] == [{"name": "eyes", "users": ["U0FMBOT"], "count": 1}]
    assert slack.message("C1", reply["ts"]) is None


async def test_replies_of_an_unknown_thread_is_thread_not_found(client: AsyncWebClient) -> None:
    with pytest.raises(SlackApiError) as refused:
        await client.conversations_replies(channel="C1", ts="1.000001")

    assert refused.value.response["error"] == "thread_not_found"


async def test_ephemerals_are_kept_per_user(slack: FakeSlack, client: AsyncWebClient) -> None:
    answer = await client.chat_postEphemeral(channel="C1", user="W7", text="Only you can see this")

    assert answer["message_ts"]
    assert slack.ephemerals(user="W7")[0]["text"] == "Only you can see this"
    assert slack.ephemerals(user="W8") == []
    assert slack.messages("C1") == []


async def test_a_trigger_id_opens_one_view_and_only_while_it_is_fresh(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    modal = {
        "type": "modal",
        "title": {"type": "plain_text", "text": "Correct"},
        "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "Hi"}}],
    }
    fresh = new_trigger_id()
    stale = f"{int((time.time() - TRIGGER_TTL_S - 1) * 1000)}.1.abc"

    await client.views_open(trigger_id=fresh, view=modal)
    with pytest.raises(SlackApiError) as again:
        await client.views_open(trigger_id=fresh, view=modal)
    with pytest.raises(SlackApiError) as expired:
        await client.views_open(trigger_id=stale, view=modal)

    assert again.value.response["error"] == "exchanged_trigger_id"
    assert expired.value.response["error"] == "expired_trigger_id"
    assert len(slack.workspace.views) == 1


async def test_modals_open_update_and_app_home_publishes_per_user(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    modal = {
        "type": "modal",
        "callback_id": "kb_add",
        "title": {"type": "plain_text", "text": "Add runbook"},
        "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "Hi"}}],
    }
    opened = await client.views_open(trigger_id="1.2.abc", view=modal)
    stale_hash = "0.stale"
    modal["blocks"][0]["text"]["text"] = "Updated"  # type: ignore[index]
    updated = await client.views_update(
        view_id=opened["view"]["id"], view=modal, hash=opened["view"]["hash"]
    )
    with pytest.raises(SlackApiError) as conflict:
        await client.views_update(view_id=opened["view"]["id"], view=modal, hash=stale_hash)
    home = {
        "type": "home",
        "blocks": [{"type": "header", "text": {"type": "plain_text", "text": "Cases"}}],
    }
    await client.views_publish(user_id="W7", view=home)

    assert updated["view"]["id"] == opened["view"]["id"]
    assert slack.view(opened["view"]["id"])["blocks"][0]["text"]["text"] == "Updated"  # type: ignore[index]
    assert conflict.value.response["error"] == "hash_conflict"
    assert slack.home("W7")["blocks"][0]["text"]["text"] == "Cases"  # type: ignore[index]
    assert slack.home("W8") is None


async def test_users_and_usergroups_are_configurable() -> None:
    async with FakeSlack(
        bot_token=BOT_TOKEN, users={"W7": {"real_name": "Ada"}}, usergroups={"S1": ["W7", "W8"]}
    ) as slack:
        client = AsyncWebClient(base_url=slack.api_url, token=BOT_TOKEN)

        ada = await client.users_info(user="W7")
        anyone = await client.users_info(user="U42")
        members = await client.usergroups_users_list(usergroup="S1")
        with pytest.raises(SlackApiError) as no_group:
            await client.usergroups_users_list(usergroup="S404")
        with pytest.raises(SlackApiError) as no_user:
            await client.users_info(user="nobody")

    assert ada["user"]["real_name"] == "Ada"
    assert anyone["user"]["id"] == "U42"
    assert anyone["user"]["team_id"] == "T111"
    assert members["users"] == ["W7", "W8"]
    assert no_group.value.response["error"] == "no_such_subteam"
    assert no_user.value.response["error"] == "user_not_found"


@pytest.mark.parametrize(
    ("headers", "form", "error"),
    [
        ({}, {}, "not_authed"),
        ({"Authorization": "Bearer xoxb-wrong"}, {}, "invalid_auth"),
        ({}, {"token": "xoxb-wrong"}, "invalid_auth"),
        ({"Authorization": f"Bearer {APP_TOKEN}"}, {}, "not_allowed_token_type"),
    ],
)
async def test_every_call_must_carry_the_bot_token(
    slack: FakeSlack, headers: dict[str, str], form: dict[str, str], error: str
) -> None:
    body = await _raw_post(
        f"{slack.api_url}chat.postMessage",
        headers=headers,
        data={"channel": "C1", "text": "x", **form},
    )

    assert body == {"ok": False, "error": error}
    assert slack.messages("C1") == []


async def test_form_encoded_calls_with_a_token_field_and_json_blocks_work(slack: FakeSlack) -> None:
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": "*hi*"}}]
    form = {"token": BOT_TOKEN, "channel": "C1", "text": "hi", "blocks": json.dumps(blocks)}

    body = await _raw_post(f"{slack.api_url}chat.postMessage", data=form)

    assert body["ok"] is True
    assert slack.messages("C1")[0]["blocks"] == blocks
    assert slack.calls_to("chat.postMessage") == [{"channel": "C1", "text": "hi", "blocks": blocks}]


async def test_malformed_blocks_json_is_invalid_blocks_format(slack: FakeSlack) -> None:
    form = {"token": BOT_TOKEN, "channel": "C1", "text": "hi", "blocks": "[{"}

    body = await _raw_post(f"{slack.api_url}chat.postMessage", data=form)

    assert body == {"ok": False, "error": "invalid_blocks_format"}


async def test_a_message_needs_text_or_blocks(client: AsyncWebClient) -> None:
    with pytest.raises(SlackApiError) as refused:
        await client.api_call("chat.postMessage", json={"channel": "C1"})

    assert refused.value.response["error"] == "no_text"


async def test_unknown_methods_are_unknown_method(client: AsyncWebClient) -> None:
    with pytest.raises(SlackApiError) as refused:
        await client.api_call("chat.teleport")

    assert refused.value.response["error"] == "unknown_method"


async def test_wait_for_wakes_when_the_call_is_answered(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    async def post_later() -> None:
        await asyncio.sleep(0.05)
        await client.chat_postMessage(channel="C1", text="late")

    task = asyncio.create_task(post_later())
    calls = await slack.wait_for("chat.postMessage", timeout=2)
    await task

    assert calls == [{"channel": "C1", "text": "late"}]
    assert slack.messages("C1")[0]["text"] == "late"


async def test_wait_for_fails_clearly_when_nothing_comes(slack: FakeSlack) -> None:
    with pytest.raises(AssertionError, match=r"expected 1 x chat.postMessage within 0.05s"):
        await slack.wait_for("chat.postMessage", timeout=0.05)
