"""Payload builders keep the real samples' shape, and a real Bolt app accepts them signed."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, parse_qsl

import pytest
from slack_bolt.app.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_bolt.context.say.async_say import AsyncSay
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.web.async_client import AsyncWebClient

from tests.fakes.slack.payloads import SlackPayloads
from tests.fakes.slack.samples import load_sample, load_text_sample
from tests.fakes.slack.server import FakeSlack
from tests.unit.fakes.conftest import BOT_TOKEN, SIGNING_SECRET

payloads = SlackPayloads()


@pytest.mark.parametrize(
    ("sample", "request_"),
    [
        ("events/app_mention.json", payloads.app_mention()),
        ("events/message_channel_plain.json", payloads.message("hi")),
        ("events/message_in_thread_channel.json", payloads.message("hi", thread_ts="1.000001")),
        ("events/message_file_share.json", payloads.file_share([])),
        ("events/message_from_bot_user.json", payloads.bot_message()),
    ],
)
def test_events_keep_the_samples_shape(sample: str, request_: Any) -> None:
    original = load_sample(sample)
    built = json.loads(request_.body)

    assert set(original) <= set(built)
    assert set(original["event"]) <= set(built["event"])
    assert request_.content_type == "application/json"
    assert request_.envelope_type == "events_api"


def test_event_overrides_reach_the_event_and_its_envelope() -> None:
    built = payloads.app_mention(
        "<@U0FMBOT> help",
        channel="C9",
        user="W5",
        ts="1700000000.000100",
        thread_ts="1700000000.000001",
    ).payload

    event = built["event"]
    assert (event["text"], event["channel"], event["user"]) == ("<@U0FMBOT> help", "C9", "W5")
    assert (event["ts"], event["event_ts"], event["thread_ts"]) == (
        "1700000000.000100",
        "1700000000.000100",
        "1700000000.000001",
    )
    assert built["event_time"] == 1700000000
    assert built["authed_users"] == ["U0FMBOT"]


def test_each_event_gets_its_own_event_id_and_ts_unless_given() -> None:
    first, second = payloads.message("a").payload, payloads.message("a").payload
    pinned = payloads.message("a", event_id="EvFIXED").payload

    assert first["event_id"] != second["event_id"]
    assert first["event"]["ts"] < second["event"]["ts"]
    assert pinned["event_id"] == "EvFIXED"


def test_message_text_overrides_rewrite_the_rich_text_blocks() -> None:
    event = payloads.message("disk full").payload["event"]

    assert event["blocks"][0]["elements"][0]["elements"] == [{"type": "text", "text": "disk full"}]


async def test_file_share_embeds_files_hosted_by_the_fake(slack: FakeSlack) -> None:
    file = slack.add_file("app.log", "ERROR x")

    event = slack.payloads.file_share([file], "here", thread_ts="1.000001").payload["event"]

    assert event["subtype"] == "file_share"
    assert event["files"] == [file]
    assert event["thread_ts"] == "1.000001"


def test_bot_messages_carry_a_bot_id() -> None:
    event = payloads.bot_message("beep", bot_id="B0FMBOT", user="U0FMBOT").payload["event"]

    assert (event["bot_id"], event["user"]) == ("B0FMBOT", "U0FMBOT")


def test_interactivity_is_a_form_with_a_json_payload() -> None:
    request = payloads.block_action(
        "case_close", "7f3a", message={"ts": "1.000002", "thread_ts": "1.000001"}
    )

    form = parse_qs(request.body.decode())
    payload = json.loads(form["payload"][0])
    assert payload == request.payload
    assert set(load_sample("interactivity/block_actions_button.json")) <= set(payload)
    assert payload["actions"][0]["action_id"] == "case_close"
    assert payload["actions"][0]["value"] == "7f3a"
    assert payload["container"] == {
        "type": "message",
        "message_ts": "1.000002",
        "channel_id": "C111",
        "is_ephemeral": False,
        "thread_ts": "1.000001",
    }
    assert request.content_type == "application/x-www-form-urlencoded"


def test_shortcuts_and_submissions_keep_the_samples_shape() -> None:
    shortcut = payloads.message_shortcut("investigate", text="ALERT: p99 > 2s").payload
    submission = payloads.view_submission(
        "kb_add", {"b": {"body": {"type": "plain_text_input", "value": "x"}}}
    )

    assert set(load_sample("interactivity/message_action_shortcut.json")) <= set(shortcut)
    assert shortcut["message"]["text"] == "ALERT: p99 > 2s"
    assert shortcut["message_ts"] == shortcut["message"]["ts"]
    assert set(load_sample("interactivity/view_submission.json")["view"]) <= set(
        submission.payload["view"]
    )
    assert submission.payload["view"]["state"]["values"]["b"]["body"]["value"] == "x"


def test_slash_commands_are_the_samples_form_with_overrides() -> None:
    request = payloads.slash_command("status 7f3a", user_id="W5")

    fields = dict(parse_qsl(request.body.decode()))
    sample_keys = [k for k, _ in parse_qsl(load_text_sample("commands/slash_command.form.txt"))]
    assert list(fields)[: len(sample_keys)] == sample_keys
    assert (fields["command"], fields["text"], fields["user_id"]) == ("/fm", "status 7f3a", "W5")
    assert request.payload == fields
    assert request.envelope_type == "slash_commands"


def test_unbound_response_urls_never_leave_the_machine() -> None:
    assert payloads.slash_command().payload["response_url"].startswith("http://127.0.0.1:9/")


# ------------------------------------------------------------------ through a real Bolt app
def _bolt(slack: FakeSlack) -> AsyncApp:
    return AsyncApp(
        signing_secret=SIGNING_SECRET,
        client=AsyncWebClient(base_url=slack.api_url, token=BOT_TOKEN),
    )


async def _dispatch(app: AsyncApp, request: Any, secret: str = SIGNING_SECRET) -> Any:
    return await app.async_dispatch(
        AsyncBoltRequest(body=request.body.decode(), headers=request.headers(secret))
    )


async def test_a_signed_mention_reaches_bolt_and_the_reply_reaches_the_fake(
    slack: FakeSlack,
) -> None:
    app = _bolt(slack)

    @app.event("app_mention")
    async def answer(event: dict[str, Any], say: AsyncSay) -> None:
        await say(text="On it", thread_ts=event["ts"])

    mention = slack.payloads.app_mention("<@U0FMBOT> db-1 down")
    response = await _dispatch(app, mention)
    posts = await slack.wait_for("chat.postMessage")

    assert response.status == 200
    assert posts[0]["text"] == "On it"
    assert (posts[0]["channel"], posts[0]["thread_ts"]) == ("C111", mention.payload["event"]["ts"])


async def test_a_badly_signed_request_is_refused_by_bolt(slack: FakeSlack) -> None:
    app = _bolt(slack)

    response = await _dispatch(app, slack.payloads.app_mention(), secret="not-the-secret")

    assert response.status == 401
    assert slack.calls == []


async def test_a_click_answered_through_response_url_rewrites_the_message(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    app = _bolt(slack)

    @app.action("case_close")
    async def close(ack: AsyncAck, respond: AsyncRespond, body: dict[str, Any]) -> None:
        await ack()
        await respond(text=f"Closed by <@{body['user']['id']}>", replace_original=True)

    prompt = await client.chat_postMessage(channel="C1", text="Close this case?")
    click = slack.payloads.block_action(
        "case_close", "7f3a", channel="C1", message=prompt["message"]
    )
    response = await _dispatch(app, click)
    await slack.wait_for("response_url")

    assert response.status == 200
    assert slack.message("C1", prompt["ts"])["text"] == "Closed by <@W111>"  # type: ignore[index]


async def test_a_slash_command_and_a_shortcut_opening_a_modal(slack: FakeSlack) -> None:
    app = _bolt(slack)

    @app.command("/fm")
    async def fm(ack: AsyncAck, command: dict[str, Any]) -> None:
        await ack(text=f"You asked: {command['text']}")

    @app.shortcut("investigate")
    async def investigate(ack: AsyncAck, shortcut: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        title = {"type": "plain_text", "text": "Investigate"}
        await client.views_open(
            trigger_id=shortcut["trigger_id"], view={"type": "modal", "title": title, "blocks": []}
        )

    answered = await _dispatch(app, slack.payloads.slash_command("help"))
    await _dispatch(app, slack.payloads.message_shortcut("investigate"))
    opened = await slack.wait_for("views.open")

    assert (answered.status, answered.body) == (200, "You asked: help")
    assert opened[0]["view"]["title"]["text"] == "Investigate"
    assert slack.invalid_payloads == []


def test_an_event_can_come_from_a_user_of_another_workspace() -> None:
    event = payloads.app_mention("<@U0FMBOT> hi", team="T999").payload["event"]

    assert event["team"] == "T999"
    assert SlackPayloads(team_id="T2").message("x").payload["team_id"] == "T2"
