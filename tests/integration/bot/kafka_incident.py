"""A second incident of our own, end to end: a Kafka consumer kicked out of its group in a loop.

fulfillment-worker's consumer properties changed at 10:01 (`max.poll.records` 500 → 5000); each
batch now takes longer than `max.poll.interval.ms`, so the consumer is dropped from its group,
its commits fail and orders are redelivered. The on-call engineer mentions the bot, confirms the
problem, shares the pod's log with a caption that says nothing, reads the root cause, reverts the
setting and says so (recorded, not asked again), resolves the case with one click (the report and
runbook are written) and asks `/fm score` for a grade.

    async with FakeSlack(...) as slack, CitingModelServer() as llm:
        async with incident_bot(slack, llm, tmp_path) as bot:
            thread_ts = await run_kafka_incident(bot)
"""

from __future__ import annotations

from typing import Any

from domain.engine.second_look import SecondLookReply
from domain.investigation.evidence_requests import OPEN_STATUSES
from tests.fakes.models.llm_server import Scripted, reply
from tests.integration.bot.harness import CHANNEL, OPENER, BotHarness
from tests.integration.bot.incident import Engineer, OnStep
from tests.integration.bot.incident_story import Step, StoryClock
from tests.integration.bot.scoring.scoring_steps import judge
from tests.integration.engine.thread import json_reply
from tests.paths import INCIDENTS

DAY = "2026-11-24"
"""The day the log was written on."""
LOG_NAME = "fulfillment-worker.log"
LOG_PATH = INCIDENTS / "kafka-consumer-rebalance" / LOG_NAME
OPENING = "orders stopped shipping ~10:06, fulfillment-worker consumer lag on orders keeps climbing"
UPLOAD_TEXT = "here"
"""The caption people write at 3 a.m.: the log has to speak for itself."""
REVERTED = (
    "Reverted max.poll.records to 500 at 10:31. The consumer rejoined, no commit failures since "
    "and the lag is draining."
)
MITIGATION = "Put max.poll.records back to 500"

STEPS = (
    Step("mention", "10:19:08", "mentions the bot"),
    Step("confirm_problem", "10:19:40", "clicks Yes on the problem statement"),
    Step("upload_log", "10:23:12", f"shares {LOG_NAME}, captioned “{UPLOAD_TEXT}”"),
    Step("reverted", "10:33:30", "says the setting is reverted and the lag drains"),
    Step("resolve", "10:34:02", "clicks Resolve and write the report"),
    Step("score", "10:41:15", "asks /fm score"),
)


def step_named(name: str) -> Step:
    """The Kafka story's step called ``name``."""
    return next(s for s in STEPS if s.name == name)


def log_on(day: str) -> bytes:
    """The pod's log, dated ``day``."""
    return LOG_PATH.read_text(encoding="utf-8").replace(DAY, day).encode()


def story_clock() -> StoryClock:
    """A clock that lives this story's times (tomorrow, from its first step)."""
    return StoryClock(first=STEPS[0])


# ---------------------------------------------------------------- the model's side

STATEMENT = (
    "fulfillment-worker's Kafka consumer has stopped committing on orders since about 10:06 UTC: "
    "lag climbs and orders are not shipped"
)


def statement_reply() -> Scripted:
    """Consulting: the problem statement to confirm."""
    return json_reply(
        "Orders not shipping is customer-facing, so I'm treating this as high severity.",
        problem_confirmation={
            "problem_type": "performance",
            "severity_guess": "HIGH",
            "affected_components": ["fulfillment-worker", "orders topic"],
            "impact": "orders are not shipped while the consumer lags",
            "investigation_approach": "read the consumer's log around 10:06 for what changed",
        },
        proposed_problem_statement=STATEMENT,
    )


LOGS_REQUEST: dict[str, Any] = {
    "label": "fulfillment-worker's log since 09:55",
    "description": "What the consumer says when it falls behind, and the settings it started with.",
    "category": "symptoms",
    "guidance": {
        "commands": [
            "kubectl logs -n fulfillment deploy/fulfillment-worker --since=30m --prefix",
            "kafka-consumer-groups.sh --bootstrap-server kafka:9092 --describe "
            "--group fulfillment-worker",
        ],
        "alternatives": ['Loki: {namespace="fulfillment", app="fulfillment-worker"}'],
        "expected_output": "commit or rebalance errors, and the ConsumerConfig values dump",
    },
}


def logs_request_reply() -> Scripted:
    """Investigating: the consumer's log first."""
    return json_reply(
        "A lag that climbs from one moment usually means the consumer stopped committing. Its "
        "log says why, and its start-up dump which settings it runs with.",
        evidence_requests=[LOGS_REQUEST],
        outcome="data_requested",
    )


CITED = ("max.poll.records = 5000", "CommitFailedException", "poll timeout has expired")
ROOT_CAUSE = {
    "root_cause": (
        "The 10:01 change of consumer.properties raised max.poll.records from 500 to 5000, so a "
        "batch takes longer than max.poll.interval.ms (300 s)"
    ),
    "confidence_score": 0.85,
    "mechanism": (
        "The consumer misses its poll deadline, is dropped from the group, its commit fails and "
        "the batch is redelivered: it loops and never catches up"
    ),
    "evidence_basis": ["E1", "E2"],
    "missing_evidence": ["the group's state from kafka-consumer-groups, to confirm the churn"],
    "contributing_factors": ["the config watcher applies properties without a review"],
}
REVERT = {
    "solution_type": "config_change",
    "title": MITIGATION,
    "is_mitigation": True,
    "immediate_action": "Restore max.poll.records = 500 in the consumer's properties",
    "implementation_steps": [
        "set max.poll.records back to 500 in the fulfillment-consumer ConfigMap",
        "watch the group's lag fall with kafka-consumer-groups --describe",
    ],
    "commands": [
        "kubectl -n fulfillment edit configmap fulfillment-consumer",
        "kafka-consumer-groups.sh --bootstrap-server kafka:9092 --describe "
        "--group fulfillment-worker",
    ],
    "risks": ["batches go back to their old throughput"],
}
FIX = {
    "solution_type": "config_change",
    "title": "Size batches to the poll interval",
    "longterm_fix": (
        "Keep max.poll.records × the time per record under max.poll.interval.ms (or raise the "
        "interval with it), review consumer.properties changes, and alert on repeated rebalances"
    ),
    "implementation_steps": [
        "add a check of max.poll.records against max.poll.interval.ms to the config review",
        "alert when the group rebalances more than twice in 15 minutes",
    ],
}
EVIDENCE = [
    {
        "ref": "E1",
        "summary": "max.poll.records went from 500 to 5000 when the consumer restarted at 10:01",
        "analysis": "batches ten times larger",
    },
    {
        "ref": "E2",
        "summary": "From 10:06, poll timeouts, CommitFailedException and redelivered batches",
        "analysis": "each batch overruns the 300 s poll interval and is lost",
    },
]


def root_cause_reply(day: str, *, answers: list[str]) -> Scripted:
    """The log read: the changed setting and the failed commits, cited; mitigation and fix."""
    changed, failed, expired = (f"{{{{cite:{needle}}}}}" for needle in CITED)
    classification = {
        "matched_request_ids": answers,
        "completeness": "complete",
        "completeness_score": 0.9,
        "form": "document",
        "evidence_type": "supportive",
        "user_intent": "providing_evidence",
        "rationale": "the consumer's log with both start-up dumps",
    }
    return json_reply(
        "The 10:01 properties change made each batch ten times larger, and the consumer now "
        f"overruns its poll deadline: `max.poll.records = 5000`{changed}, then `poll timeout "
        f"has expired`{expired} and `CommitFailedException`{failed}. Put it back to 500.",
        milestones={
            "symptom_verified": True,
            "timeline_established": True,
            "changes_identified": True,
            "root_cause_identified": True,
        },
        verification_updates={
            "symptom_indicators": ["CommitFailedException and poll timeouts from 10:06"],
            "affected_services": ["fulfillment-worker"],
            "affected_users": "orders awaiting shipment",
            "severity": "HIGH",
            "started_at": f"{day}T10:06:10Z",
            "temporal_state": "ongoing",
            "recent_changes": [
                {
                    "description": "consumer.properties: max.poll.records 500 → 5000",
                    "occurred_at": f"{day}T10:01:06Z",
                    "change_type": "config",
                }
            ],
        },
        evidence_to_add=EVIDENCE,
        root_cause_conclusion=ROOT_CAUSE,
        solutions_to_add=[REVERT, FIX],
        classification=classification if answers else None,
        outcome="milestone_completed",
        citations=[changed, expired, failed],
    )


def second_look_reply() -> Scripted:
    """The second look: both links shown by the case's evidence."""
    links = [
        {"claim": "max.poll.records went from 500 to 5000", "evidence": ["E1"], "shown": True},
        {"claim": "batches overrun the poll interval", "evidence": ["E2"], "shown": True},
    ]
    return reply(SecondLookReply.model_validate({"links": links, "supported_confidence": 0.85}))


def reverted_reply() -> Scripted:
    """The engineer reverted the setting and the lag drains: applied and shown to work."""
    return json_reply(
        "Commits succeeding and the lag draining fit the cause. The batch sizing still needs a "
        "guard before anyone raises it again.",
        evidence_to_add=[
            {
                "ref": "E3",
                "summary": "No commit failures after max.poll.records went back to 500 at 10:31",
                "analysis": "the revert stopped the loop",
            }
        ],
        milestones={"mitigation_applied": True, "solution_verified": True},
        verification_evidence_id="E3",
        outcome="milestone_completed",
        status_change_request={
            "to_status": "resolved",
            "reason": "commits succeed and the lag drains after the revert",
            "resolution_summary": "max.poll.records back to 500",
        },
    )


CASE_REPORT = """# fulfillment-worker stopped committing after max.poll.records went to 5000

## Summary
From 10:06 to 10:31 UTC fulfillment-worker's consumer was dropped from its group on every batch,
so orders were redelivered and not shipped.

## Root cause
consumer.properties changed at 10:01: max.poll.records 500 → 5000. A batch took over 300 s,
longer than max.poll.interval.ms.

## Fix
max.poll.records back to 500; batches sized to the poll interval in the config review.
"""
RUNBOOK = """# Runbook: a Kafka consumer dropped from its group on every batch

## Symptoms
- `consumer poll timeout has expired`, then `CommitFailedException`, then a rejoin, in a loop
- the group's lag climbs while the consumer looks busy

## Diagnosis
1. `kubectl logs --prefix` of the consumer: compare the two `ConsumerConfig values:` dumps.
2. `kafka-consumer-groups.sh --describe --group $GROUP`: members churning, lag climbing.

## Mitigation
Put max.poll.records (or the batch's work) back under max.poll.interval.ms.
"""


def documents_replies() -> tuple[Scripted, Scripted]:
    """The case report, then the runbook."""
    return reply(CASE_REPORT), reply(RUNBOOK)


EVALUATION = """The investigation went from the symptom to the changed setting by the log's lines
and confirmed the mitigation with the engineer's data. It never asked for the group's state.

Logical Flow: 22/25
Consistency: 23/25
Tool Relevance: 18/25
Synthesis Quality: 22/25

85"""
MISSING = "1. **Consumer group state** (`kafka-consumer-groups --describe`): the churn itself."


# ---------------------------------------------------------------- the engineer's side


async def run_kafka_incident(
    bot: BotHarness, *, on_step: OnStep | None = None, clock: StoryClock | None = None
) -> str:
    """Drive the Kafka incident through ``bot``; return the thread ts."""
    day = clock.day if clock is not None else DAY
    act = Engineer(bot, on_step, clock, day, named=step_named)
    thread_ts = await act.step("mention", lambda: bot.mention(OPENING), statement_reply())
    await act.step("confirm_problem", lambda: act.click_yes(thread_ts), logs_request_reply())
    case = await bot.case(thread_ts)
    asked = [r.request_id for r in case.evidence_requests if r.status in OPEN_STATUSES]
    answered = root_cause_reply(day, answers=asked)
    await act.step(
        "upload_log", lambda: _upload(bot, thread_ts, day), answered, second_look_reply()
    )
    await act.step("reverted", lambda: bot.reply(thread_ts, REVERTED), reverted_reply())
    await act.step("resolve", lambda: act.click_yes(thread_ts), *documents_replies())
    short_id = (await bot.case(thread_ts)).short_id
    await act.step("score", lambda: _score(bot, short_id), *judge(EVALUATION, MISSING))
    act.check_all_used("the end")
    return thread_ts


async def _upload(bot: BotHarness, thread_ts: str, day: str) -> str:
    shared = bot.slack.add_file(LOG_NAME, log_on(day), user=OPENER)
    return await bot.reply(thread_ts, UPLOAD_TEXT, files=[shared])


async def _score(bot: BotHarness, short_id: str) -> None:
    """`/fm score <case>`: the judge grades the finished case in its thread."""
    status, body = await bot.send(
        bot.slack.payloads.slash_command(f"score {short_id}", user_id=OPENER, channel_id=CHANNEL)
    )
    assert status == 200, body
    await bot.settle(expect=2)
