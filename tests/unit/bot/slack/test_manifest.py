"""manifest.yml is a valid Slack app manifest."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import jsonschema
import pytest
import yaml
from slack_bolt.request.async_request import AsyncBoltRequest

from bot.settings import load_settings
from bot.slack.ids import CallbackId, Command, EventType
from bot.wiring.slack_app import build_app, build_slack_client
from bot.worker.worker import Arrivals
from tests.fakes.slack.payloads import SlackRequest
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import eventually
from tests.paths import REPO_ROOT, SLACK_SAMPLES

ROOT = REPO_ROOT
SCHEMA = SLACK_SAMPLES / "manifest.schema.1.0.0.json"
SECRET = "8f742231b10e8888abcd99yyyzzz85a5"


def _manifest() -> dict:
    return yaml.safe_load((ROOT / "manifest.yml").read_text())


def test_manifest_matches_slacks_schema():
    jsonschema.validate(_manifest(), json.loads(SCHEMA.read_text()))


def test_manifest_declares_the_fm_command_and_the_three_shortcuts():
    features = _manifest()["features"]
    assert [c["command"] for c in features["slash_commands"]] == ["/fm"]
    names = {s["name"] for s in features["shortcuts"]}
    assert names == {"Investigate", "Score investigation", "Case status"}
    assert all(s["type"] == "message" for s in features["shortcuts"])


def test_manifest_subscribes_to_the_events_of_the_design():
    events = set(_manifest()["settings"]["event_subscriptions"]["bot_events"])
    assert events == {"message.channels", "message.groups", "app_home_opened"}


# ---------------------------------------------------------------- the manifest and the app agree

MANIFEST_EVENTS_OF = {
    EventType.MESSAGE: {"message.channels", "message.groups"},
    EventType.APP_HOME_OPENED: {"app_home_opened"},
}
MANIFEST_SHORTCUTS = {
    CallbackId.INVESTIGATE,
    CallbackId.SCORE_INVESTIGATION,
    CallbackId.THREAD_STATUS,
}
# Web API methods the bot calls → the scope each needs (None: no scope needed; a tuple: one per
# kind of channel, all of them since the channel may be of either kind).
METHOD_SCOPES: dict[str, str | tuple[str, ...] | None] = {
    "chat_postMessage": "chat:write",
    "chat_update": "chat:write",
    "chat_postEphemeral": "chat:write",
    "assistant_threads_setStatus": "chat:write",
    "reactions_add": "reactions:write",
    "reactions_remove": "reactions:write",
    "chat_getPermalink": None,
    "views_publish": None,
    "views_open": None,
    "files_upload_v2": "files:write",
    # The rest of a file a Slack Connect event only names.
    "files_info": "files:read",
    # Used when FM_CONFIRMERS_USERGROUP names the group whose members answer confirmations.
    "usergroups_users_list": "usergroups:read",
    # Who may decide in an alert's case without FM_ALERT_RESPONDERS: the alert channel's members.
    "conversations_members": ("channels:read", "groups:read"),
    # The workspace an alert belongs to (alerts arrive from outside Slack).
    "auth_test": None,
}
EVENT_SCOPES = {"message.channels": "channels:history", "message.groups": "groups:history"}
CALL = re.compile(r"(?<![\w.])(?:self\._)?client\.(\w+)\(")


def test_the_manifest_declares_the_ids_the_app_uses() -> None:
    features = _manifest()["features"]
    events = set(_manifest()["settings"]["event_subscriptions"]["bot_events"])

    assert {c["command"] for c in features["slash_commands"]} == {c.value for c in Command}
    assert {s["callback_id"] for s in features["shortcuts"]} == MANIFEST_SHORTCUTS
    assert events == set().union(*MANIFEST_EVENTS_OF.values())


def test_every_scope_is_used_and_every_call_has_its_scope() -> None:
    source = "\n".join(p.read_text() for p in (ROOT / "bot").rglob("*.py"))
    called = set(CALL.findall(source)) - {"send"}
    unknown = called - set(METHOD_SCOPES)
    needed: set[str] = set()
    for scopes in (METHOD_SCOPES[m] for m in called & set(METHOD_SCOPES)):
        needed |= {scopes} if isinstance(scopes, str) else set(scopes or ())
    events = _manifest()["settings"]["event_subscriptions"]["bot_events"]
    needed |= {EVENT_SCOPES[e] for e in events if e in EVENT_SCOPES}
    if _manifest()["features"]["slash_commands"] or _manifest()["features"]["shortcuts"]:
        needed.add("commands")
    if "Authorization" in (ROOT / "bot" / "slack" / "surface.py").read_text():
        needed.add("files:read")  # downloads of shared files with the bot token

    assert unknown == set(), "map every Web API method the bot calls to its scope"
    assert set(_manifest()["oauth_config"]["scopes"]["bot"]) == needed


@pytest.fixture
async def dispatched(
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[tuple[Any, list[str], FakeSlack]]:
    """The real Bolt app with every listener registered, its services replaced by a recorder."""
    for name in ("SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET"):
        monkeypatch.delenv(name, raising=False)  # they would switch Bolt into OAuth mode
    calls: list[str] = []

    async def recorded(name: str) -> bool:
        calls.append(name)
        return True

    intake = SimpleNamespace(
        **{
            name: (lambda n: lambda *a, **k: recorded(n))(name)
            for name in (
                "message",
                "home",
                "command",
                "open_case",
                "click",
                "kb_add",
                "score_request",
            )
        }
    )
    async with FakeSlack(bot_token="xoxb-test") as slack:
        settings = load_settings(
            {
                "SLACK_BOT_TOKEN": "xoxb-test",
                "SLACK_SIGNING_SECRET": SECRET,
                "FM_SLACK_API_URL": slack.api_url,
            },
            env_file=None,
        )
        services = SimpleNamespace(intake=intake)
        app = build_app(settings, build_slack_client(settings), services, Arrivals())
        yield app, calls, slack


async def _dispatch(app: Any, request: SlackRequest) -> int:
    bolt_request = AsyncBoltRequest(body=request.body.decode(), headers=request.headers(SECRET))
    return int((await app.async_dispatch(bolt_request)).status)


async def test_every_command_shortcut_and_event_of_the_manifest_reaches_a_listener(
    dispatched: tuple[Any, list[str], FakeSlack],
) -> None:
    app, calls, slack = dispatched
    payloads = slack.payloads
    manifest = _manifest()
    requests = [
        payloads.slash_command("cases", command=c["command"])
        for c in manifest["features"]["slash_commands"]
    ]
    requests += [
        payloads.message_shortcut(s["callback_id"]) for s in manifest["features"]["shortcuts"]
    ]
    requests += [
        payloads.message("<@U0FMBOT> hi", channel="C1"),
        payloads.message("<@U0FMBOT> hi", channel="G1", channel_type="group"),
        payloads.event("reaction_added", type="app_home_opened", user="W1", tab="home"),
    ]

    statuses = [await _dispatch(app, request) for request in requests]
    await eventually(lambda: len(calls) == 7)

    assert statuses == [200] * len(requests)
    assert sorted(calls) == [
        "command",
        "command",
        "home",
        "message",
        "message",
        "open_case",
        "score_request",
    ]
    assert await _dispatch(app, payloads.slash_command("x", command="/not-ours")) == 404
