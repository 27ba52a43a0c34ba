"""End-to-end investigations that change course: mitigation first, no progress, blocked data."""

from __future__ import annotations

from domain.case import Case
from domain.engine.view import EscalationOption, ReplyKind
from domain.investigation.evidence_requests import EvidenceStatus
from domain.investigation.progress import InvestigationStage
from domain.investigation.verification import InvestigationPath
from domain.lifecycle.confirmations import ConfirmationKind
from domain.lifecycle.special_states import DegradedModeType
from domain.lifecycle.status import CaseStatus, LifecycleLabel
from domain.lifecycle.transitions import lifecycle_label
from tests.fakes.models.llm_server import FakeLLMServer
from tests.integration.engine.test_scenarios import VERIFIED, start_investigation
from tests.integration.engine.thread import json_reply, thread_on

STAGE_NUMBER = {
    InvestigationStage.SYMPTOM_VERIFICATION: 1,
    InvestigationStage.HYPOTHESIS_FORMULATION: 2,
    InvestigationStage.HYPOTHESIS_VALIDATION: 3,
    InvestigationStage.SOLUTION: 4,
}


def stage(case: Case) -> int:
    current = case.current_stage
    assert current is not None
    return STAGE_NUMBER[current]


async def test_mitigation_first_goes_one_four_two_three_four(server: FakeLLMServer) -> None:
    thread = thread_on(server)
    await start_investigation(thread)
    stages = [stage(thread.case)]

    await thread.say(
        "it's happening right now, checkout is down for everyone",
        json_reply(
            "Active incident: let's stop the bleeding first. Fail over to the replica.",
            milestones=VERIFIED,
            verification_updates={"temporal_state": "ongoing", "urgency_level": "critical"},
            solutions_to_add=[
                {
                    "solution_type": "workaround",
                    "title": "Fail over to the DB replica",
                    "is_mitigation": True,
                    "immediate_action": "Fail over to the replica",
                }
            ],
        ),
    )
    assert thread.case.path is InvestigationPath.MITIGATION_FIRST
    stages.append(stage(thread.case))
    mitigation = thread.case.solutions[-1]

    await thread.say(
        "failed over, errors stopped",
        json_reply(
            "Service restored. Now the root cause.",
            applied_solution_id=mitigation.solution_id,
            milestones={"mitigation_applied": True},
        ),
    )
    assert "Strategy: active incident" in thread.prompt()[0]["content"]
    # The person said they failed over: recorded in their name, not asked again.
    assert lifecycle_label(thread.case) is LifecycleLabel.MITIGATED
    stages.append(stage(thread.case))

    await thread.say(
        "what could it be?",
        json_reply(
            "Two candidates.",
            hypotheses_to_add=[
                {
                    "ref": "H1",
                    "statement": "Primary disk filled up",
                    "category": "environment",
                    "likelihood": 0.7,
                    "rationale": "writes failed",
                }
            ],
        ),
    )
    assert "Strategy: root cause (post-mortem)" in thread.prompt()[0]["content"]
    stages.append(stage(thread.case))
    (hypothesis,) = thread.case.hypotheses.values()

    await thread.say(
        "df shows /var/lib/postgres at 100%",
        json_reply(
            "Disk full on the primary.",
            hypotheses_to_update=[
                {"hypothesis_id": hypothesis.hypothesis_id, "status": "validated"}
            ],
            root_cause_conclusion={
                "root_cause": "WAL filled the primary's disk",
                "confidence_score": 0.8,
                "mechanism": "writes fail when the disk is full",
                "validated_hypothesis_id": hypothesis.hypothesis_id,
            },
            solutions_to_add=[
                {"solution_type": "infrastructure", "title": "Grow the disk and archive WAL"}
            ],
        ),
    )
    stages.append(stage(thread.case))
    fix = thread.case.solutions[-1]

    await thread.say("done", json_reply("Great.", applied_solution_id=fix.solution_id))
    await thread.say(
        "disk at 40%, no errors", json_reply("Verified.", verified_solution_id=fix.solution_id)
    )
    await thread.click(ConfirmationKind.SOLUTION_VERIFIED)

    assert stages == [1, 4, 2, 3, 4]
    assert thread.case.status is CaseStatus.RESOLVED
    assert thread.case.progress.mitigation_applied
    assert thread.case.progress.solution_verified


async def test_three_turns_without_progress_offer_escalation(server: FakeLLMServer) -> None:
    thread = thread_on(server)
    await start_investigation(thread)
    assert thread.case.turns_without_progress == 1

    for text in ("still looking", "hmm"):
        await thread.say(
            text, json_reply("Could you share the error logs?", outcome="data_not_provided")
        )
    stuck = thread.replies[-1]

    assert thread.case.turns_without_progress == 3
    degraded = thread.case.degraded_mode
    assert degraded is not None
    assert degraded.mode_type is DegradedModeType.NO_PROGRESS
    assert stuck.escalation is not None
    assert EscalationOption.ESCALATE in stuck.escalation.options
    assert stuck.summary.stuck
    assert "No progress for 2 turns." in thread.prompt()[0]["content"]

    await thread.say("still nothing", json_reply("Let's try another way."))
    assert "No progress for 3 turns." in thread.prompt()[0]["content"]


async def test_blocked_critical_evidence_leads_to_escalation(server: FakeLLMServer) -> None:
    thread = thread_on(server)
    await start_investigation(thread)
    await thread.say(
        "the error page says 'upstream timeout'; what else do you need?",
        json_reply(
            "Noted the upstream timeout. Metrics and the deploy history, please.",
            evidence_to_add=[{"ref": "E1", "summary": "Error page: upstream timeout"}],
            evidence_requests=[
                {"label": "DB metrics", "description": "connections", "category": "metrics"},
                {"label": "Deploy history", "description": "recent deploys", "category": "changes"},
            ],
        ),
    )
    requests = [r.request_id for r in thread.case.evidence_requests]

    answer = await thread.say(
        "I have no production access: no logs, no metrics, no deploy history",
        json_reply(
            "Without access we need someone who has it.",
            classification={
                "matched_request_ids": requests,
                "completeness": "over_complete",
                "completeness_score": 0.0,
                "form": "user_input",
                "evidence_type": "absence",
                "user_intent": "reporting_unavailable",
                "rationale": "no access",
            },
        ),
    )

    assert all(r.status is EvidenceStatus.BLOCKED for r in thread.case.evidence_requests)
    assert answer.escalation is not None
    assert answer.escalation.recommended
    assert answer.escalation.mode is DegradedModeType.LIMITED_DATA
    assert "Blocked: DB metrics" in answer.escalation.share
    assert lifecycle_label(thread.case) is LifecycleLabel.STALLED
    assert answer.kind is ReplyKind.ANSWER
