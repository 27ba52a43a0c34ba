"""End-to-end investigations: the engine, the real litellm gateway and a fake model server."""

from __future__ import annotations

from domain.engine.second_look import SecondLookReply
from domain.investigation.conclusions import ConfidenceLevel
from domain.investigation.evidence import EvidenceCategory
from domain.investigation.evidence_requests import EvidenceStatus
from domain.investigation.hypotheses import HypothesisStatus
from domain.investigation.turns import TurnOutcome
from domain.investigation.verification import InvestigationPath
from domain.knowledge import KnowledgeBaseKind
from domain.lifecycle.confirmations import ConfirmationKind, Decision
from domain.lifecycle.special_states import DocumentType
from domain.lifecycle.status import CaseStatus
from domain.llm import LLMCallOutcome
from tests.fakes.models.llm_server import FakeLLMServer, reply
from tests.integration.engine.thread import SRE, Thread, json_reply, thread_on

STATEMENT = "Payments API returns HTTP 500 for ~30% of requests since 14:05 UTC"
VERIFIED = {
    "symptom_verified": True,
    "scope_assessed": True,
    "timeline_established": True,
    "changes_identified": True,
}
LOGS_REQUEST = {
    "label": "Payments error logs",
    "description": "The errors behind the 500s, to see what fails",
    "category": "symptoms",
    "guidance": {
        "commands": [
            "kubectl logs deploy/payments --since=1h | grep ERROR",
            "kubectl delete pod -l app=payments",
        ],
        "alternatives": ["Docker: docker logs payments --since 1h"],
        "expected_output": "exception names and stack traces",
    },
}


async def start_investigation(thread: Thread) -> None:
    """Consulting → a statement to confirm → a typed yes → investigating, logs requested."""
    first = await thread.say(
        "payments API is throwing 500s since 14:05, maybe 30% of requests",
        json_reply(
            f"Let me confirm: *{STATEMENT}*. Is that accurate?",
            problem_confirmation={"problem_type": "error", "severity_guess": "HIGH"},
            proposed_problem_statement=STATEMENT,
        ),
    )
    assert [c.kind for c in first.confirmations] == [ConfirmationKind.PROBLEM_STATEMENT]
    second = await thread.say(
        "yes",
        json_reply(
            "Starting the investigation. First, the error logs.",
            evidence_requests=[LOGS_REQUEST],
            outcome="data_requested",
        ),
    )
    assert thread.case.status is CaseStatus.INVESTIGATING
    (card,) = second.evidence_requests
    assert card.commands == ["kubectl logs deploy/payments --since=1h | grep ERROR"]


async def test_the_seed_one_turn_resolution(server: FakeLLMServer) -> None:
    thread = thread_on(server)
    await start_investigation(thread)
    log = await thread.upload(
        "error.log",
        "2026-11-21T14:23:01Z ERROR NullPointerException at UserService.java:42\n"
        "2026-11-21T14:23:02Z ERROR request failed: timeout\n",
    )

    answer = await thread.say(
        "My API is timing out. Attached error.log showing NullPointerException at line 42 "
        "starting at 14:23 UTC. We deployed v2.1.3 at 14:20 UTC.",
        json_reply(
            "**Investigation complete.** NullPointerException at UserService.java:42 since 14:23, "
            "3 minutes after v2.1.3 (error.log:1).\n```\nkubectl rollout undo deployment/api\n```",
            milestones={
                **VERIFIED,
                "root_cause_identified": True,
                "root_cause_confidence": 0.95,
                "root_cause_method": "direct_analysis",
                "solution_proposed": True,
            },
            verification_updates={
                "temporal_state": "ongoing",
                "urgency_level": "high",
                "severity": "HIGH",
                "started_at": "2026-11-21T14:23:00Z",
                "recent_changes": [
                    {
                        "description": "deployed v2.1.3",
                        "occurred_at": "2026-11-21T14:20:00Z",
                        "change_type": "deployment",
                    }
                ],
            },
            evidence_to_add=[
                {
                    "ref": "E1",
                    "summary": "NullPointerException at UserService.java:42",
                    "analysis": "missing null check crashes on a null user",
                    "source_ref": log.file.file_id,
                }
            ],
            root_cause_conclusion={
                "root_cause": "Missing null check at UserService.java:42 (v2.1.3)",
                "confidence_score": 0.95,
                "mechanism": "a null user object crashes the call",
                "evidence_basis": ["E1"],
            },
            solutions_to_add=[
                {
                    "solution_type": "rollback",
                    "title": "Roll back to v2.1.2",
                    "is_mitigation": True,
                    "immediate_action": "Roll the api deployment back to v2.1.2",
                    "commands": [
                        "kubectl rollout undo deployment/api",
                        "kubectl rollout status deployment/api",
                    ],
                },
                {
                    "solution_type": "code_fix",
                    "title": "Add a null check at line 42",
                    "longterm_fix": "Guard the user lookup at UserService.java:42",
                },
            ],
            outcome="milestone_completed",
            citations=["error.log:1"],
        ),
        reply(
            SecondLookReply.model_validate(
                {
                    "links": [{"claim": "v2.1.3 throws at :42", "evidence": ["E1"], "shown": True}],
                    "supported_confidence": 0.95,
                }
            )
        ),
        files=[log],
    )

    case = thread.case
    assert case.progress.verification_complete
    assert case.progress.root_cause_identified
    assert case.progress.solution_proposed
    assert not case.progress.solution_applied
    (evidence,) = case.evidence
    assert evidence.category is EvidenceCategory.SYMPTOM_EVIDENCE
    assert evidence.advances_milestones == list(VERIFIED)
    assert evidence.content_ref == f"file:{log.file.file_id}"
    turn = case.turn_history[-1]
    assert turn.progress_made
    assert turn.outcome is TurnOutcome.MILESTONE_COMPLETED
    assert set(turn.milestones_completed) >= {"root_cause_identified", "solution_proposed"}
    assert case.turns_without_progress == 0
    assert case.path is InvestigationPath.MITIGATION_FIRST
    assert answer.root_cause is not None
    assert answer.root_cause.confidence_level is ConfidenceLevel.VERIFIED
    assert answer.root_cause.supporting_evidence[0].summary.startswith("NullPointerException")
    # The rollback changes state: shown for people to run, saying what it changes, in the
    # answer as in the rollback solution's commands; nothing was withheld.
    assert "kubectl rollout undo deployment/api\n```\n↳ `kubectl` changes state:" in answer.text
    assert [s.commands for s in answer.solutions] == [
        ["kubectl rollout undo deployment/api", "kubectl rollout status deployment/api"],
        [],
    ]
    assert answer.debug.unsafe_commands_removed == 0
    assert [c.label() for c in answer.citations] == ["error.log:1"]
    assert case.status is CaseStatus.INVESTIGATING  # resolution needs people, not the model
    # The turn's own request; a root cause at 0.95 then gets its second look.
    prompt = thread.prompt(-2)
    assert any('cite="error.log:1"' in m["content"] for m in prompt)
    records = thread.kit.recorder.records
    templates = ["consulting", "investigating", "investigating", "second_look"]
    assert [r.template for r in records] == templates
    assert records[-2].template_hash == answer.debug.template_hash
    assert all(r.outcome is LLMCallOutcome.OK and r.case_id == case.case_id for r in records)


async def test_from_consulting_to_a_resolved_case_with_its_report_and_runbook(
    server: FakeLLMServer,
) -> None:
    thread = thread_on(server)
    await start_investigation(thread)
    logs_request = thread.case.evidence_requests[0]

    log = await thread.upload(
        "payments.log", "14:05:02 ERROR timeout acquiring DB connection from pool\n"
    )
    await thread.say(
        "here are the logs; this happened yesterday, it's fine now but we need the cause",
        json_reply(
            "Every 500 is a timeout waiting for a DB connection. Two candidates.",
            milestones=VERIFIED,
            verification_updates={"temporal_state": "historical", "urgency_level": "medium"},
            evidence_to_add=[
                {
                    "ref": "E1",
                    "summary": "500s are DB pool acquisition timeouts",
                    "source_ref": log.file.file_id,
                }
            ],
            hypotheses_to_add=[
                {
                    "ref": "H1",
                    "statement": "The DB connection pool is exhausted",
                    "category": "config",
                    "likelihood": 0.6,
                    "rationale": "acquisition timeouts",
                },
                {
                    "ref": "H2",
                    "statement": "DNS lookups for the DB host are slow",
                    "category": "network",
                    "likelihood": 0.3,
                    "rationale": "timeouts can be DNS",
                },
            ],
            classification={
                "matched_request_ids": [logs_request.request_id],
                "completeness": "complete",
                "completeness_score": 0.9,
                "form": "document",
                "evidence_type": "supportive",
                "user_intent": "providing_evidence",
                "rationale": "the requested logs",
            },
            evidence_requests=[
                {
                    "label": "Pool metrics",
                    "description": "active vs max connections",
                    "category": "metrics",
                }
            ],
        ),
        files=[log],
    )
    case = thread.case
    assert case.path is InvestigationPath.ROOT_CAUSE
    assert logs_request.request_id in [r.request_id for r in case.evidence_requests]
    assert case.find_request(logs_request.request_id).status is EvidenceStatus.COMPLETE  # type: ignore[union-attr]
    pool, dns = case.hypotheses.values()

    evidence_turn = await thread.say(
        "pool: 100/100 active, 240 waiting; DNS resolves in 2 ms",
        json_reply(
            "The pool is saturated, and DNS is fast, which contradicts the DNS theory.",
            evidence_to_add=[
                {
                    "ref": "E1",
                    "summary": "Pool 100/100 active, 240 waiting; DNS 2 ms",
                    "tests_hypothesis_id": pool.hypothesis_id,
                    "stance": "strongly_supports",
                }
            ],
            hypothesis_evidence_links=[
                {
                    "hypothesis_id": pool.hypothesis_id,
                    "evidence_id": "E1",
                    "stance": "strongly_supports",
                    "reasoning": "saturated pool",
                    "completeness": 0.8,
                },
                {
                    "hypothesis_id": dns.hypothesis_id,
                    "evidence_id": "E1",
                    "stance": "strongly_contradicts",
                    "reasoning": "We expected slow DNS; it answers in 2 ms.",
                    "completeness": 0.9,
                },
            ],
        ),
    )
    (question,) = evidence_turn.confirmations
    assert question.kind is ConfirmationKind.REFUTATION
    assert len(question.options) == 3
    assert thread.case.hypotheses[dns.hypothesis_id].status is HypothesisStatus.ACTIVE

    await thread.click(ConfirmationKind.REFUTATION, Decision.YES)
    assert thread.case.hypotheses[dns.hypothesis_id].status is HypothesisStatus.REFUTED
    assert thread.case.dead_ends[0].hypothesis == dns.statement

    found = await thread.say(
        "pool max was lowered from 50 to 10 in yesterday's config change",
        json_reply(
            "That explains it: the pool was cut to 10.",
            hypotheses_to_update=[{"hypothesis_id": pool.hypothesis_id, "status": "validated"}],
            root_cause_conclusion={
                "root_cause": "Pool max lowered from 50 to 10 in a config change",
                "confidence_score": 0.9,
                "mechanism": "requests queue for connections",
                "validated_hypothesis_id": pool.hypothesis_id,
                "missing_evidence": ["the change ticket"],
            },
            milestones={"root_cause_method": "hypothesis_validation"},
            solutions_to_add=[
                {
                    "solution_type": "config_change",
                    "title": "Restore pool max to 50",
                    "longterm_fix": "Set pool max back to 50 and add a review for pool changes",
                }
            ],
        ),
    )
    assert found.root_cause is not None
    assert found.root_cause.confidence_level is ConfidenceLevel.VERIFIED
    assert found.root_cause.missing_evidence == ["the change ticket"]
    assert thread.case.progress.root_cause_identified
    assert thread.case.progress.root_cause_method == "hypothesis_validation"
    fix = thread.case.solutions[-1]

    applied = await thread.say(
        "restored it to 50 and redeployed",
        json_reply(
            "Good. Watch the error rate for a few minutes.",
            applied_solution_id=fix.solution_id,
            milestones={"solution_applied": True},
        ),
        by=SRE,
    )
    # Said by a person who may answer: recorded in their name (with Undo), not asked again.
    assert thread.case.progress.solution_applied
    assert ConfirmationKind.SOLUTION_APPLIED not in [c.kind for c in applied.confirmations]

    verified = await thread.say(
        "error rate has been 0% for 20 minutes",
        json_reply(
            "The fix holds.",
            evidence_to_add=[{"ref": "E1", "summary": "0% errors for 20 min"}],
            verified_solution_id=fix.solution_id,
            verification_evidence_id="E1",
            outcome="case_resolved",
        ),
    )
    assert thread.case.evidence[-1].category is EvidenceCategory.RESOLUTION_EVIDENCE
    assert [c.kind for c in verified.confirmations] == [ConfirmationKind.SOLUTION_VERIFIED]
    assert thread.case.status is CaseStatus.INVESTIGATING

    resolved = await thread.click(ConfirmationKind.SOLUTION_VERIFIED)
    assert thread.case.status is CaseStatus.RESOLVED
    (offer,) = resolved.confirmations
    assert offer.kind is ConfirmationKind.DELIVERABLES

    server.script(
        reply("# Case report: pool cut to 10\n"), reply("# Runbook: DB pool exhaustion\n")
    )
    delivered = await thread.click(ConfirmationKind.DELIVERABLES)
    assert [d.document_type for d in delivered.documents] == [
        DocumentType.INCIDENT_REPORT,
        DocumentType.RUNBOOK,
    ]
    assert [s.kb for s in thread.knowledge.saved] == [KnowledgeBaseKind.GLOBAL] * 2
    assert thread.knowledge.saved[1].markdown == "# Runbook: DB pool exhaustion\n"
    assert [r.template for r in thread.kit.recorder.records][-2:] == ["case_report", "runbook"]
    history = [(t.from_status, t.to_status) for t in thread.case.status_history]
    assert history == [
        (CaseStatus.CONSULTING, CaseStatus.INVESTIGATING),
        (CaseStatus.INVESTIGATING, CaseStatus.RESOLVED),
    ]
