"""Alert and remediation messages: snapshot-checked Block Kit, within Slack's limits."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from bot.alerts.payload import parse_alertmanager
from bot.slack.ids import ActionId, StrategyValue, load_value
from bot.slack.render.alerts import alert_message, alert_text, joined_note, resolved_note
from bot.slack.render.limits import problems
from bot.slack.render.message import SlackMessage
from bot.slack.render.remediation import (
    decided_strategy_message,
    execution_message,
    rca_message,
    strategy_message,
)
from domain.workflows.alert_groups import AlertGroupRecord
from domain.workflows.catalog import LabelFilters, RiskLevel
from domain.workflows.planner import OutcomeKind, RcaOutcome
from domain.workflows.rca import RcaFindings, RcaReply
from domain.workflows.remediation import (
    ExecutionResult,
    ExecutionStatus,
    RemediationStrategy,
    StrategyStatus,
)
from domain.workflows.signals import SignalGroup
from tests.alerts import TWELVE, crash_looping, sample
from tests.unit.bot.slack.render.snapshots import assert_snapshot
from tests.unit.domain.workflows.catalog_data import (
    PARAMETERS,
    RESTART,
    findings,
    reply,
    strategy,
    workflow,
)

NOW = datetime(2026, 11, 21, 14, 20, tzinfo=UTC)
FILTERS = LabelFilters(environment="production", priority="P1")


def snapshot(name: str, message: SlackMessage) -> None:
    assert problems(message) == []
    assert_snapshot(name, {"text": message.text, "blocks": message.block_dicts()})


def group(payload: dict[str, object]) -> SignalGroup:
    return parse_alertmanager(json.dumps(payload).encode())


def record(payload: dict[str, object], *, count: int = 1) -> AlertGroupRecord:
    latest = group(payload)
    return AlertGroupRecord(
        group_id="alg_000000000001",
        team_id="T1",
        group_hash=latest.identity,
        status=latest.status,
        channel_id="C9",
        latest=latest,
        occurrence_count=count,
        first_seen=datetime(2026, 11, 21, 14, 5, tzinfo=UTC),
        last_seen=NOW,
    )


def proposed(**changes: object) -> RemediationStrategy:
    data = {
        "strategy_id": "rem_000000000001",
        "case_id": "case_000000000001",
        "team_id": "T1",
        "batch_id": "rca_000000000001",
        "rank": 1,
        "workflow_id": RESTART,
        "version": "1.0.0",
        "title": workflow(RESTART).title,
        "confidence": 0.82,
        "estimated_risk": RiskLevel.LOW,
        "rationale": "Stale connections after the failover; a restart reconnects.",
        "parameters": PARAMETERS[RESTART],
        "proposed_at": NOW,
    }
    data.update(changes)
    return RemediationStrategy.model_validate(data)


def test_a_firing_alert_shows_severity_resource_and_how_often_it_was_notified() -> None:
    message = alert_message(record(crash_looping(), count=3))

    snapshot("alert_firing", message)
    text = json.dumps(message.block_dicts(), ensure_ascii=False)
    assert "payments/Pod/payments-api-7d9f8-x2k4q" in text
    assert "notified 3×" in text


def test_a_group_of_twelve_lists_ten_and_says_how_many_more() -> None:
    message = alert_message(record(sample(TWELVE)))

    assert problems(message) == []
    assert "…and 2 more" in json.dumps(message.block_dicts(), ensure_ascii=False)


def test_the_alert_in_words_lists_its_alerts() -> None:
    text = alert_text(group(sample(TWELVE)))

    assert text.startswith("Alert firing: high_memory_load: Server High Memory usage")
    assert text.count("\n- ") == 10


def test_thread_notes_for_resolved_and_joined_alerts() -> None:
    grouped = group(sample(TWELVE))

    assert "Alert resolved" in resolved_note(grouped, at=NOW).text
    joined = joined_note(grouped, grouped.fingerprints[:2])
    assert joined.text == "2 more alert(s) joined"


def outcome(kind: OutcomeKind, **changes: object) -> RcaOutcome:
    base: dict[str, object] = {
        "kind": kind,
        "query": "KubePodCrashLooping high",
        "filters": FILTERS,
        "offered": [workflow(RESTART)],
        "findings": RcaFindings.model_validate(findings()),
    }
    base.update(changes)
    return RcaOutcome(**base)  # type: ignore[arg-type]


def test_the_analysis_with_strategies_says_nothing_runs_without_approval() -> None:
    done = outcome(OutcomeKind.STRATEGIES, reply=RcaReply.model_validate(reply(strategy())))

    message = rca_message(done, signal_severity="medium", catalog=True)

    snapshot("rca_strategies", message)
    text = json.dumps(message.block_dicts(), ensure_ascii=False)
    assert "severity *HIGH* (the alert said medium)" in text
    assert "Nothing runs until someone working on this case approves a workflow." in text


def test_an_invalid_choice_shows_the_analysis_and_the_broken_rules() -> None:
    invalid = outcome(
        OutcomeKind.RCA_ONLY,
        reply=RcaReply.model_validate(reply(strategy(confidence=2.0))),
        problems=["strategy 1: confidence 2.0 is outside 0.0–1.0"],
    )

    message = rca_message(invalid, signal_severity="high", catalog=True)

    snapshot("rca_only", message)
    text = json.dumps(message.block_dicts(), ensure_ascii=False)
    assert "No workflow offered" in text
    assert "confidence 2.0 is outside" in text
    assert "the alert said" not in text


def test_without_a_catalog_or_a_model_the_message_says_so() -> None:
    no_catalog = outcome(OutcomeKind.NO_WORKFLOWS, offered=[])
    no_model = outcome(OutcomeKind.NO_LLM, findings=None)

    assert "FM_WORKFLOW_CATALOG_DIR" in json.dumps(
        rca_message(no_catalog, signal_severity="high", catalog=False).block_dicts()
    )
    listing = json.dumps(rca_message(no_model, signal_severity="high", catalog=True).block_dicts())
    assert "No language model is configured" in listing
    assert "restart-crashlooping-deployment@1.0.0" in listing


def test_a_failed_analysis_says_why_in_one_sentence() -> None:
    failed = outcome(OutcomeKind.FAILED, findings=None, offered=[], note="The model timed out.")

    message = rca_message(failed, signal_severity="high", catalog=True)

    assert message.text == "The model timed out."


def test_a_strategy_shows_what_it_runs_with_approve_and_reject() -> None:
    message = strategy_message(proposed(), workflow(RESTART), total=2)

    snapshot("strategy", message)
    actions = next(b for b in message.block_dicts() if b["type"] == "actions")["elements"]
    assert [a["action_id"] for a in actions] == [
        f"{ActionId.APPROVE}:rem_000000000001",
        f"{ActionId.REJECT}:rem_000000000001",
    ]
    assert "confirm" in actions[0], "approval asks 'are you sure?'"
    value = load_value(StrategyValue, actions[0]["value"])
    assert value == StrategyValue(case_id="case_000000000001", strategy_id="rem_000000000001")
    assert "kubectl rollout restart deployment/payments-api -n payments" in json.dumps(
        message.block_dicts()
    )


def test_a_decided_strategy_has_no_buttons_and_says_who_decided() -> None:
    approved = proposed(status=StrategyStatus.APPROVED, decided_by="W333", decided_at=NOW)
    superseded = proposed(status=StrategyStatus.SUPERSEDED, decided_at=NOW)

    message = decided_strategy_message(approved, workflow(RESTART))

    snapshot("strategy_approved", message)
    assert message.text == "✅ Approved by <@W333>."
    assert all(b["type"] != "actions" for b in message.block_dicts())
    assert decided_strategy_message(superseded, workflow(RESTART)).text.startswith("⏭️")


def test_execution_results_for_people_and_for_a_webhook() -> None:
    steps = ["kubectl rollout restart deployment/payments-api -n payments"]
    by_hand = ExecutionResult(
        executor="none", status=ExecutionStatus.HANDED_OVER, summary="x", steps=steps, at=NOW
    )
    accepted = ExecutionResult(
        executor="webhook",
        status=ExecutionStatus.ACCEPTED,
        summary="it answered HTTP 202",
        steps=steps,
        http_status=202,
        response_excerpt='{"run": 42}',
        at=NOW,
    )
    failed = accepted.model_copy(
        update={"status": ExecutionStatus.FAILED, "summary": "it answered HTTP 500"}
    )

    snapshot("execution_by_hand", execution_message(by_hand, workflow(RESTART)))
    assert "```" in execution_message(by_hand, workflow(RESTART)).block_dicts()[0]["text"]["text"]
    assert "HTTP 202" in execution_message(accepted, workflow(RESTART)).text
    assert "did not run" in execution_message(failed, workflow(RESTART)).text
