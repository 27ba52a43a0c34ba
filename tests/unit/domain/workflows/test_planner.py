"""The RCA use case: investigate first, search with the RCA's own signal type, then validate."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.alerts.payload import parse_alertmanager
from domain.llm import LLMReplyInvalidError, LLMTimeoutError
from domain.workflows.catalog import Catalog, LabelFilters
from domain.workflows.incident import DedupContext, IncidentContext, build_incident_context
from domain.workflows.planner import OutcomeKind, RcaPlanner
from domain.workflows.prompts import INVESTIGATE, SELECT
from domain.workflows.rca import RcaFindings, RcaReply
from tests.alerts import crash_looping
from tests.fakes.clock import FakeClock
from tests.fakes.models.llm import ScriptedLLM
from tests.fakes.workflows import FakeWorkflowIndex
from tests.unit.domain.workflows.catalog_data import (
    HPA,
    MEMORY,
    RESTART,
    ROLLBACK,
    catalog,
    findings,
    reply,
    strategy,
)

NOW = datetime(2026, 11, 21, 14, 20, tzinfo=UTC)


def incident(payload: dict[str, Any] | None = None) -> IncidentContext:
    group = parse_alertmanager(json.dumps(payload or crash_looping()).encode())
    dedup = DedupContext(is_duplicate=False, first_seen=NOW, last_seen=NOW, occurrence_count=1)
    return build_incident_context(group, dedup=dedup, received_at=NOW)


def planner(llm: ScriptedLLM, index: FakeWorkflowIndex | None = None) -> RcaPlanner:
    return RcaPlanner(
        llm=llm,
        index=index if index is not None else FakeWorkflowIndex(catalog()),
        catalog=catalog(),
        clock=FakeClock(NOW),
    )


async def test_valid_strategies_come_from_a_search_with_the_rcas_signal_type_and_severity() -> None:
    llm = ScriptedLLM([findings(signal_type="OOMKilled", rca_severity="critical")])
    llm.then(reply(strategy(MEMORY), strategy(RESTART, confidence=0.4)))
    index = FakeWorkflowIndex(catalog())

    outcome = await planner(llm, index).analyse(incident(), case_id="case_1")

    assert outcome.kind is OutcomeKind.STRATEGIES
    assert index.searches == [
        (
            "OOMKilled critical",
            LabelFilters(
                environment="production",
                priority="P1",
                risk_tolerance="medium",
                business_category="revenue-critical",
            ),
        )
    ]
    assert outcome.offered[0].workflow_id == MEMORY
    assert outcome.validation is not None
    assert [s.workflow.workflow_id for s in outcome.validation.strategies] == [MEMORY, RESTART]
    assert [c.template for c in llm.calls] == [INVESTIGATE, SELECT]
    assert [c.schema for c in llm.calls] == [RcaFindings, RcaReply]


async def test_label_filters_keep_workflows_the_business_context_does_not_allow_out() -> None:
    llm = ScriptedLLM([findings(signal_type="KubeHpaMaxedOut")])
    llm.then(reply(strategy(RESTART)))

    outcome = await planner(llm).analyse(incident(), case_id="case_1")

    offered = {w.workflow_id for w in outcome.offered}
    assert HPA in offered, "for P0–P2 in production: this alert is P1 in production"
    assert "cordon-drain-node" not in offered, "the alert tolerates medium risk; it needs high"


async def test_the_prompts_carry_facts_only_and_the_selection_shows_each_parameter_schema() -> None:
    llm = ScriptedLLM([findings(), reply(strategy())])

    await planner(llm).analyse(incident(), case_id="case_1")

    investigate, select = ("\n".join(m.content for m in c.messages) for c in llm.calls)
    assert "runbook" not in investigate.lower()
    assert '<data kind="incident" cite="alert">' in investigate
    assert "KubePodCrashLooping" in investigate
    assert "Workflows found" not in investigate, "no workflow before the RCA (phase order)"
    assert "`TARGET_NAMESPACE` (string, **REQUIRED**): Namespace of the deployment" in select
    assert "Pattern (whole value): ^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$" in select
    assert "query `KubePodCrashLooping high`" in select
    assert "environment=production, priority=P1, risk_tolerance=medium" in select


async def test_a_reply_that_fails_validation_is_rca_only_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    llm = ScriptedLLM([findings(), reply(strategy(confidence=3.0))])

    with caplog.at_level(logging.WARNING, logger="domain.workflows.planner"):
        outcome = await planner(llm).analyse(incident(), case_id="case_1")

    assert outcome.kind is OutcomeKind.RCA_ONLY
    assert outcome.reply is not None
    assert outcome.problems == ["strategy 1: confidence 3.0 is outside 0.0–1.0"]
    record = next(r for r in caplog.records if "failed validation" in r.message)
    assert record.problems == outcome.problems  # type: ignore[attr-defined]
    assert '"confidence":3.0' in record.reply  # type: ignore[attr-defined]


async def test_a_selection_that_does_not_match_the_schema_twice_is_rca_only() -> None:
    llm = ScriptedLLM([findings(), LLMReplyInvalidError("twice")])

    outcome = await planner(llm).analyse(incident(), case_id="case_1")

    assert outcome.kind is OutcomeKind.RCA_ONLY
    assert outcome.findings is not None
    assert outcome.problems == [
        "the reply did not match the response schema (JSON structure or required fields)"
    ]


async def test_a_model_failure_during_selection_keeps_the_rca() -> None:
    llm = ScriptedLLM([findings(), LLMTimeoutError("slow")])

    outcome = await planner(llm).analyse(incident(), case_id="case_1")

    assert outcome.kind is OutcomeKind.RCA_ONLY
    assert outcome.note is not None
    assert outcome.problems == []


async def test_a_model_failure_before_the_rca_is_reported_not_raised() -> None:
    outcome = await planner(ScriptedLLM([LLMTimeoutError("slow")])).analyse(
        incident(), case_id="case_1"
    )

    assert outcome.kind is OutcomeKind.FAILED
    assert outcome.note is not None
    assert outcome.findings is None


async def test_no_workflow_found_means_no_selection_call() -> None:
    llm = ScriptedLLM([findings()])
    empty = RcaPlanner(
        llm=llm, index=FakeWorkflowIndex(Catalog()), catalog=Catalog(), clock=FakeClock(NOW)
    )

    outcome = await empty.analyse(incident(), case_id="case_1")

    assert outcome.kind is OutcomeKind.NO_WORKFLOWS
    assert len(llm.calls) == 1


async def test_without_a_model_the_catalog_is_searched_with_the_alerts_own_signal() -> None:
    index = FakeWorkflowIndex(catalog())

    outcome = await planner(ScriptedLLM(enabled=False), index).analyse(incident(), case_id="c")

    assert outcome.kind is OutcomeKind.NO_LLM
    assert index.searches[0][0] == "KubePodCrashLooping medium"
    assert outcome.offered[0].workflow_id == RESTART
    assert outcome.validation is None


async def test_a_workflow_the_index_returns_but_the_filters_forbid_is_dropped() -> None:
    class Careless(FakeWorkflowIndex):
        async def search(self, *, query: str, filters: LabelFilters, limit: int) -> Any:
            return await super().search(query=query, filters=LabelFilters(), limit=limit)

    staging = crash_looping()
    for labels in (staging["commonLabels"], staging["alerts"][0]["labels"]):  # type: ignore[index]
        labels["environment"] = "development"
    llm = ScriptedLLM([findings(signal_type="KubeDeploymentRolloutStuck")])
    llm.then(reply(strategy(RESTART)))

    outcome = await planner(llm, Careless(catalog())).analyse(incident(staging), case_id="c")

    assert ROLLBACK not in {w.workflow_id for w in outcome.offered}


async def test_suggested_checks_that_change_anything_are_never_shown() -> None:
    checks = [
        "kubectl logs deploy/payments-api -n payments --previous",
        "Kubernetes: kubectl delete pod payments-api-7d9f8-x2k4q -n payments",
    ]
    llm = ScriptedLLM([findings(evidence_to_confirm=checks), reply(strategy())])

    outcome = await planner(llm).analyse(incident(), case_id="case_1")

    assert outcome.findings is not None
    assert outcome.findings.evidence_to_confirm == checks[:1]
