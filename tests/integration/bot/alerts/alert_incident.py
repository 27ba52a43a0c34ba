"""The alert story for `make demo`: payments-api crash-looping after losing its database,
approved by the paged on-call.

Alertmanager posts KubePodCrashLooping into the alert channel; the bot analyses it and offers two
workflows under its analysis; the on-call, a member of the channel, approves the restart without
writing first; they reply with the numbers the "did it work?" card asks for, say it is stable, and
resolve the case with one click. The alert's arrival is Alertmanager's action, not a person's.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from tests.alerts import crash_looping
from tests.fakes.models.llm_server import Scripted, ScriptedModelServer, reply
from tests.fakes.slack.server import FakeSlack
from tests.fakes.slack.state import BOT_USER_ID
from tests.integration.bot.alerts.alert_harness import (
    alert_bot,
    alert_messages,
    analysis,
    post_alert,
    with_strategy_buttons,
)
from tests.integration.bot.alerts.remediation_harness import decide
from tests.integration.bot.alerts.test_alert_case_reads import worked_reply
from tests.integration.bot.harness import CHANNEL, SRE, BotHarness, with_buttons
from tests.integration.bot.incident import PEOPLE, Engineer, OnStep
from tests.integration.bot.incident_story import Step, StoryClock
from tests.integration.bot.replies import chat_reply
from tests.unit.domain.workflows.catalog_data import RESTART, ROLLBACK, strategy

STEPS = (
    Step("alert_fires", "14:07:40", "Alertmanager sends KubePodCrashLooping"),
    Step("approve", "14:10:05", "the paged on-call approves the restart"),
    Step("numbers", "14:15:30", "replies with the rollout's numbers"),
    Step("stable", "14:30:10", "says it has been stable for 15 minutes"),
    Step("resolve", "14:30:40", "clicks Resolve and write the report"),
)
"""Alertmanager's action, then the on-call's, in order."""
ON_CALL = {SRE: "Sam Okafor"}
"""The paged on-call, who reads the thread."""
FIRING_SINCE = "14:05:00"
NUMBERS = "rollout status: successfully rolled out, 3/3 available, 0 restarts in the last 10 min"
STABLE = "Stable 15 min, no restarts. Resolve it."
CASE_REPORT = """# payments-api crash loop after a database failover

## Summary
From 14:05 UTC the payments-api pods crash-looped: they exit when the database connection breaks
during a failover and do not retry on start. Restarting the deployment at 14:10 ended it; all 3
replicas have been available with no restarts since.

## Follow-up
Why the pods exit instead of retrying is open: the crash logs (`kubectl logs --previous`).
"""
RUNBOOK = """# Runbook: a deployment crash-looping after a dependency blip

## Symptoms
- KubePodCrashLooping for the deployment's pods; CrashLoopBackOff in `kubectl get pods`.

## Diagnosis
1. `kubectl logs deploy/$SERVICE -n $NAMESPACE --previous`: why the last container exited.

## Mitigation
Approve the `restart-crashlooping-deployment` workflow, then watch
`kubectl rollout status deploy/$SERVICE -n $NAMESPACE`.
"""


def step_named(name: str) -> Step:
    """The alert story's step called ``name``."""
    return next(s for s in STEPS if s.name == name)


def story_clock() -> StoryClock:
    """A clock that lives this story's times (tomorrow, from the alert)."""
    return StoryClock(first=STEPS[0])


@contextlib.asynccontextmanager
async def story_bot(
    slack: FakeSlack, llm: ScriptedModelServer, data_dir: Path, *, clock: StoryClock
) -> AsyncIterator[BotHarness]:
    """The bot taking alerts into the channel whose members (the on-call) are paged."""
    for user, name in {**PEOPLE, **ON_CALL}.items():
        slack.workspace.users[user] = {"real_name": name, "name": name.lower().replace(" ", ".")}
    slack.workspace.members[CHANNEL] = [BOT_USER_ID, SRE]
    harness = await alert_bot(slack, llm, data_dir, clock=clock)
    try:
        yield harness
    finally:
        await harness.stop()


def resolve_reply() -> Scripted:
    """The on-call says it is fine now: the model proposes resolving."""
    return chat_reply(
        "Stable for 15 minutes after the restart: resolving. Why the pods crashed stays open as "
        "a follow-up.",
        status_change_request={
            "to_status": "resolved",
            "reason": "the restart ended the crash loop",
            "resolution_summary": "payments-api restarted; stable since",
        },
    )


async def run_alert_incident(
    bot: BotHarness, *, on_step: OnStep | None = None, clock: StoryClock | None = None
) -> str:
    """Drive the alert story through ``bot``; return the thread ts (the alert's message)."""
    day = clock.day if clock is not None else "2026-11-21"
    act = Engineer(bot, on_step, clock, day, named=step_named)
    chosen = (strategy(RESTART), strategy(ROLLBACK, confidence=0.5))
    await act.step("alert_fires", lambda: _fire(bot, day), *analysis(*chosen))
    thread_ts = str(alert_messages(bot)[0]["ts"])
    first, _ = with_strategy_buttons(bot, thread_ts)
    await act.step("approve", lambda: decide(bot, first, "approve"))
    [request] = (await bot.case(thread_ts)).evidence_requests
    numbers = worked_reply(request.request_id)
    await act.step("numbers", lambda: bot.reply(thread_ts, NUMBERS, user=SRE), numbers)
    await act.step("stable", lambda: bot.reply(thread_ts, STABLE, user=SRE), resolve_reply())
    question = with_buttons(bot.bot_messages(thread_ts), "fm_answer")[-1]
    resolve = bot.click(question, decision="yes", user=SRE)
    await act.step("resolve", lambda: resolve, reply(CASE_REPORT), reply(RUNBOOK))
    act.check_all_used("the end")
    return thread_ts


async def _fire(bot: BotHarness, day: str) -> None:
    payload = crash_looping()
    for alert in payload["alerts"]:
        alert["startsAt"] = f"{day}T{FIRING_SINCE}Z"
    status, body = await post_alert(bot, payload)
    assert status == 200, body
    await bot.settle(expect=2)
