"""An alert's analysis shows no unsafe command: every text the model wrote is checked on intake."""

from __future__ import annotations

import logging

import pytest

from domain.workflows.planner import OutcomeKind, safe_findings
from domain.workflows.rca import RcaFindings
from domain.workflows.remediation import propose
from tests.fakes.models.llm import ScriptedLLM
from tests.unit.domain.builders import NOW, new_case
from tests.unit.domain.workflows.catalog_data import findings, reply, strategy
from tests.unit.domain.workflows.test_planner import incident, planner

UNSAFE = ("kubectl delete", "rm -rf", "systemctl restart", "rollout restart")

UNSAFE_FINDINGS = findings(
    analysis_summary="```\nkubectl delete pod -l app=payments-api\n```",
    root_cause_assessment="Stale connections. Fix: kubectl rollout restart deploy/payments-api",
    severity_rationale="Production; `rm -rf /var/lib/docker` was considered and rejected",
    contributing_factors=["No retry on start", "Then run sudo systemctl restart docker"],
    evidence_to_confirm=[
        "kubectl logs deploy/payments-api -n payments --previous",
        "If the pods are stuck, kubectl delete pod -l app=payments-api -n payments",
    ],
)
UNSAFE_REPLY = reply(
    strategy(rationale="A restart clears it, like kubectl rollout restart deploy/payments-api"),
    analysis_summary="```bash\nkubectl delete pod -l app=payments-api -n payments\n```",
    root_cause_assessment="Fix: kubectl delete pod payments-api-7d9f8-x2k4q -n payments",
    warnings=["Never rm -rf /var/lib/postgresql during a failover", "A restart drops requests"],
    context_used={
        "cluster_state": "Healthy apart from payments",
        "resource_availability": "`kubectl delete node worker-3` would free CPU",
        "blast_radius": "One deployment",
    },
)


def assert_nothing_unsafe(text: str) -> None:
    for command in UNSAFE:
        assert command not in text


async def test_every_text_of_the_findings_and_the_reply_is_checked_where_it_is_taken_in() -> None:
    llm = ScriptedLLM([UNSAFE_FINDINGS, UNSAFE_REPLY])

    outcome = await planner(llm).analyse(incident(), case_id="case_1")

    assert outcome.kind is OutcomeKind.STRATEGIES
    assert outcome.findings is not None
    assert outcome.reply is not None
    assert outcome.validation is not None
    assert_nothing_unsafe(outcome.findings.model_dump_json())
    assert_nothing_unsafe(outcome.reply.model_dump_json())
    (offered,) = propose(outcome.validation.strategies, case=new_case(), batch_id="rca_1", now=NOW)
    assert_nothing_unsafe(offered.rationale)
    assert outcome.findings.analysis_summary.startswith("```\n(command withheld: `kubectl` — it ")
    assert outcome.findings.evidence_to_confirm == [
        "kubectl logs deploy/payments-api -n payments --previous"
    ]
    assert outcome.reply.warnings[1] == "A restart drops requests"


async def test_a_reply_that_fails_validation_is_logged_as_the_model_wrote_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    invalid = reply(
        strategy(confidence=3.0), root_cause_assessment="Fix: kubectl delete pod api-0 -n payments"
    )
    llm = ScriptedLLM([findings(), invalid])

    with caplog.at_level(logging.WARNING, logger="domain.workflows.planner"):
        outcome = await planner(llm).analyse(incident(), case_id="case_1")

    assert outcome.kind is OutcomeKind.RCA_ONLY
    assert outcome.reply is not None
    assert_nothing_unsafe(outcome.reply.root_cause_assessment)
    record = next(r for r in caplog.records if "failed validation" in r.message)
    assert "kubectl delete pod api-0" in record.reply  # type: ignore[attr-defined]


def test_findings_without_commands_are_unchanged() -> None:
    plain = RcaFindings.model_validate(findings())

    assert safe_findings(plain) == plain
