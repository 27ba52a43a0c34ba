"""A real Alertmanager sends to the bot: a case per group, flaps close themselves, storms wait.

Alertmanager groups by alert name and notifies a second after an alert arrives and every second
after that; the bot waits `DEBOUNCE_S` before an analysis and runs two at a time. The fake model
takes half a second per analysis, so a storm's analyses overlap and have to wait their turn.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from domain.lifecycle.status import CaseStatus
from domain.workflows.flapping import SELF_RESOLVED
from tests.fakes.models.llm_server import FakeLLMServer, reply
from tests.fakes.slack.server import FakeSlack
from tests.fakes.slack.state import TEAM_ID
from tests.integration.bot.alerts.alert_harness import (
    ALERT_TOKEN,
    alert_bot,
    alert_messages,
    thread_text,
)
from tests.integration.bot.alerts.alertmanager import Alertmanager, alertmanager
from tests.integration.bot.harness import CHANNEL, BotHarness, eventually, text_of
from tests.unit.domain.workflows.catalog_data import findings

DEBOUNCE_S = 6
STORM_NAMES = ("DiskFilling", "NodeNotReady", "PodCrashLooping", "TargetDown")
ANALYSIS_S = 0.5


def alert(name: str, instance: str = "node-1") -> dict[str, Any]:
    return {
        "labels": {"alertname": name, "severity": "critical", "instance": instance},
        "annotations": {"summary": f"{name} on {instance}"},
    }


@pytest.fixture
async def bot(slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path) -> AsyncIterator[BotHarness]:
    env = {"FM_ALERT_DEBOUNCE_S": str(DEBOUNCE_S), "FM_MAX_ALERT_INVESTIGATIONS": "2"}
    harness = await alert_bot(slack, llm, tmp_path, catalog=False, env=env)
    try:
        yield harness
    finally:
        await harness.stop()


@pytest.fixture
async def manager(bot: BotHarness, tmp_path: Path) -> AsyncIterator[Alertmanager]:
    receiver = f"{bot.url}/alerts/alertmanager"
    async with alertmanager(tmp_path / "am", receiver=receiver, token=ALERT_TOKEN) as running:
        yield running


def alert_ts(bot: BotHarness, name: str) -> str | None:
    """The ts of the alert message of group ``name``, once posted."""
    found = [m["ts"] for m in alert_messages(bot) if f"{name}:" in m.get("text", "")]
    assert len(found) <= 1, f"{name} opened more than one case"
    return found[0] if found else None


async def posted(bot: BotHarness, name: str, seconds: float = 15) -> str:
    """The ts of the alert's message once its case is open too (the case follows the message)."""
    await eventually(lambda: alert_ts(bot, name) is not None, seconds)
    ts = alert_ts(bot, name)
    assert ts is not None
    cases = bot.runtime.repositories.cases
    deadline = asyncio.get_running_loop().time() + seconds
    while await cases.get_by_thread(TEAM_ID, CHANNEL, ts) is None:
        assert asyncio.get_running_loop().time() < deadline, f"no case on {name}'s message"
        await asyncio.sleep(0.05)
    return ts


def analyses_of(bot: BotHarness) -> Counter[str]:
    """How many model requests each alert group caused."""
    counts: Counter[str] = Counter()
    for request in bot.llm.requests:
        sent = json.dumps(request["messages"])
        named = [name for name in (*STORM_NAMES, "HighErrorRate", "Flapping") if name in sent]
        counts.update(named)
    return counts


async def test_alertmanager_opens_a_case_flaps_close_themselves_and_a_storm_analyses_once_a_group(
    bot: BotHarness, manager: Alertmanager
) -> None:
    bot.llm.script(*(reply(findings(), delay_s=ANALYSIS_S) for _ in range(12)))

    # An alert fires: a case opens in the alert channel.
    await manager.fire(alert("HighErrorRate"))
    first_ts = await posted(bot, "HighErrorRate")
    assert (await bot.case(first_ts)).opened_by_alert

    # A flap: fired, then resolved within the debounce: closed as self-resolved, never analysed.
    await manager.fire(alert("Flapping"))
    flap_ts = await posted(bot, "Flapping")
    await manager.resolve(alert("Flapping"))
    await eventually(lambda: "Resolved by itself" in thread_text(bot, flap_ts), DEBOUNCE_S)
    flap = await bot.case(flap_ts)
    assert (flap.status, flap.closure_reason) == (CaseStatus.CLOSED, SELF_RESOLVED)

    # A storm of 40 alerts in four groups, arriving in two waves (Alertmanager notifies again).
    storm = [alert(name, f"node-{i}") for name in STORM_NAMES for i in range(10)]
    await manager.fire(*storm[::2])
    await asyncio.sleep(1.5)
    await manager.fire(*storm[1::2])
    storm_ts = [await posted(bot, name) for name in STORM_NAMES]

    # Every group but the flap is analysed once, however often Alertmanager notified.
    expected = {"HighErrorRate": 1, **dict.fromkeys(STORM_NAMES, 1)}
    await eventually(lambda: analyses_of(bot) == expected, DEBOUNCE_S + 20)
    await asyncio.sleep(3)  # more notifications come; no further analysis follows
    assert analyses_of(bot) == expected
    assert len(bot.llm.requests) == len(expected)
    assert len(alert_messages(bot)) == 2 + len(STORM_NAMES)
    waiting = [ts for ts in storm_ts if "waits its turn" in thread_text(bot, ts)]
    assert waiting, "with two analyses at a time, some of the storm's waited and said so"
    assert all(thread_text(bot, ts).count("waits its turn") <= 2 for ts in storm_ts)
    joined = [text_of(m) for ts in storm_ts for m in bot.thread(ts)]
    assert any("node-" in text for text in joined)
