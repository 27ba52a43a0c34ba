"""Deliverables on resolution: offered, written by the model or from a template, kept in the KB."""

from __future__ import annotations

from datetime import timedelta

from domain.case import Case
from domain.engine.documents import fallback_report, fallback_runbook, problem_of
from domain.engine.engine import TurnResult
from domain.investigation.conclusions import DeadEnd, RootCauseConclusion
from domain.investigation.evidence_requests import EvidenceStatus
from domain.investigation.hypotheses import HypothesisStatus
from domain.knowledge import KnowledgeBaseKind
from domain.lifecycle.confirmations import (
    ConfirmationKind,
    Decision,
    DeliverablesPayload,
    SolutionVerifiedPayload,
)
from domain.lifecycle.proposals import propose
from domain.lifecycle.special_states import DocumentType
from domain.lifecycle.status import CaseStatus
from domain.llm import LLMUnavailableError
from tests.unit.domain.builders import (
    NOW,
    OPENER,
    add_evidence,
    add_hypothesis,
    add_request,
    add_solution,
    investigating_case,
    new_case,
)
from tests.unit.domain.engine.helpers import Rig, said, terminal


def rich_case() -> Case:
    """An investigation with a root cause, a fix, a dead end and documentation."""
    case = investigating_case()
    case.short_id = "FM-7K3Q"
    evidence = add_evidence(case)
    case.root_cause_conclusion = RootCauseConclusion(
        root_cause="Pool size cut to 10 in v2.1.3",
        confidence_score=0.85,
        mechanism="requests queue for connections and time out",
        evidence_basis=[evidence.evidence_id],
        missing_evidence=["heap dump"],
        determined_at=NOW,
    )
    case.progress.root_cause_identified = True
    fix = add_solution(case, title="Restore pool size 50")
    fix.implementation_steps = ["Ask the payments team to restore the pool size"]
    fix.commands = ["kubectl get configmap payments -o yaml"]
    fix.applied_at = NOW
    add_hypothesis(case, status=HypothesisStatus.REFUTED)
    case.dead_ends.append(
        DeadEnd(
            hypothesis="DNS",
            why_ruled_out="resolves fine",
            turn_number=1,
            confidence_eliminated=0.9,
        )
    )
    request = add_request(case)
    request.status = EvidenceStatus.COMPLETE
    request.guidance.commands = ["grep ERROR /var/log/app.log"]
    case.problem_verification.symptom_indicators = ["HTTP 500 at 30%"]  # type: ignore[union-attr]
    case.problem_verification.started_at = NOW  # type: ignore[union-attr]
    case.documentation.lessons_learned = ["Load-test pool changes"]
    case.documentation.preventive_measures = ["Alert at 80% pool use"]
    return case


async def resolve(rig: Rig, case: Case) -> TurnResult:
    """A person confirms the fix worked, which resolves the case."""
    solution = case.solutions[-1]
    cf = propose(case, SolutionVerifiedPayload(solution_id=solution.solution_id), now=NOW)
    return await rig.engine.answer_confirmation(
        case=case, confirmation_id=cf.confirmation_id, by=OPENER, decision=Decision.YES
    )


async def test_resolution_offers_a_report_and_a_runbook() -> None:
    rig = Rig()

    result = await resolve(rig, rich_case())

    assert result.case.status is CaseStatus.RESOLVED
    (offer,) = result.reply.confirmations
    assert offer.kind is ConfirmationKind.DELIVERABLES
    payload = result.case.find_confirmation(offer.confirmation_id).payload  # type: ignore[union-attr]
    assert payload == DeliverablesPayload(
        documents=[DocumentType.INCIDENT_REPORT, DocumentType.RUNBOOK]
    )
    artifacts = result.case.documentation.artifacts
    assert (artifacts.case_report_offered, artifacts.runbook_offered) == (True, True)
    assert not artifacts.runbook_exists


async def test_no_runbook_is_offered_when_a_similar_one_exists() -> None:
    rig = Rig()
    rig.knowledge.similar_runbook = ("Postgres pool exhaustion", 0.91)

    result = await resolve(rig, rich_case())

    (offer,) = result.reply.confirmations
    payload = result.case.find_confirmation(offer.confirmation_id).payload  # type: ignore[union-attr]
    assert payload == DeliverablesPayload(documents=[DocumentType.INCIDENT_REPORT])
    assert "Postgres pool exhaustion" in offer.prompt
    assert result.case.documentation.artifacts.runbook_exists


async def test_accepted_deliverables_are_written_by_the_model_and_saved() -> None:
    rig = Rig()
    resolved = await resolve(rig, rich_case())
    offer = resolved.reply.confirmations[0]
    rig.llm.then(
        "# Case report\nRan `kubectl delete pod api-1`.", "# Runbook\nCheck `kubectl get pods`."
    )

    result = await rig.engine.answer_confirmation(
        case=resolved.case, confirmation_id=offer.confirmation_id, by=OPENER, decision=Decision.YES
    )

    report, runbook = result.reply.documents
    assert report.markdown.startswith("# Case report")
    assert "kubectl delete" not in report.markdown
    assert report.filename == "case-report-fm-7k3q.md"
    assert runbook.document_type is DocumentType.RUNBOOK
    assert [c.template for c in rig.llm.calls] == ["case_report", "runbook"]
    assert [(d.kb, d.title) for d in rig.knowledge.saved] == [
        (KnowledgeBaseKind.GLOBAL, report.title),
        (KnowledgeBaseKind.GLOBAL, runbook.title),
    ]
    # Each is marked with the case it was written from, so a later case can find it again.
    assert [d.case_id for d in rig.knowledge.saved] == [result.case.case_id] * 2
    documentation = result.case.documentation
    assert len(documentation.documents_generated) == 2
    assert documentation.runbook_entry == runbook.title
    assert documentation.artifacts.case_report_generated == report.markdown
    assert documentation.artifacts.requested == []
    assert result.reply.debug.unsafe_commands_removed == 1


async def test_without_a_model_the_templates_write_them() -> None:
    rig = Rig()
    rig.llm.enabled = False
    resolved = await resolve(rig, rich_case())

    result = await rig.engine.answer_confirmation(
        case=resolved.case,
        confirmation_id=resolved.reply.confirmations[0].confirmation_id,
        by=OPENER,
        decision=Decision.YES,
    )

    report, runbook = result.reply.documents
    assert report.markdown == fallback_report(resolved.case)
    assert runbook.markdown == fallback_runbook(resolved.case)


async def test_a_failing_model_falls_back_and_a_failing_save_is_reported() -> None:
    rig = Rig()
    rig.knowledge.save_fails = True
    case = rich_case()
    case.status = CaseStatus.RESOLVED
    cf = propose(case, DeliverablesPayload(documents=[DocumentType.POST_MORTEM]), now=NOW)
    rig.llm.then(LLMUnavailableError("down"))

    result = await rig.engine.answer_confirmation(
        case=case, confirmation_id=cf.confirmation_id, by=OPENER, decision=Decision.YES
    )

    (document,) = result.reply.documents
    assert document.title.startswith("Post-mortem: ")
    assert document.markdown == fallback_report(case)
    assert result.reply.notices == [
        f"I couldn't save “{document.title}” to the knowledge base: disk full."
    ]


async def test_an_empty_model_document_falls_back_to_the_template() -> None:
    rig = Rig()
    case = rich_case()
    case.status = CaseStatus.RESOLVED
    cf = propose(case, DeliverablesPayload(documents=[DocumentType.RUNBOOK]), now=NOW)
    rig.llm.then("   ")

    result = await rig.engine.answer_confirmation(
        case=case, confirmation_id=cf.confirmation_id, by=OPENER, decision=Decision.YES
    )

    assert result.reply.documents[0].markdown == fallback_runbook(case)


async def test_documents_the_engine_cannot_write_are_named() -> None:
    rig = Rig()
    case = rich_case()
    case.status = CaseStatus.CLOSED
    cf = propose(case, DeliverablesPayload(documents=[DocumentType.CHAT_SUMMARY]), now=NOW)

    result = await rig.engine.answer_confirmation(
        case=case, confirmation_id=cf.confirmation_id, by=OPENER, decision=Decision.YES
    )

    assert result.reply.documents == []
    assert result.reply.notices == ["I can't write a chat summary yet."]


async def test_a_typed_yes_to_the_offer_writes_them_too() -> None:
    rig = Rig()
    resolved = await resolve(rig, rich_case())
    rig.llm.then("# Report\n", "# Runbook\n", terminal("Here they are."))

    result = await rig.turn(resolved.case, said("yes please"))

    assert [d.markdown for d in result.reply.documents] == ["# Report\n", "# Runbook\n"]
    assert result.reply.text == "Here they are."


async def test_offers_are_made_once() -> None:
    rig = Rig()
    resolved = await resolve(rig, rich_case())
    offers = [c for c in resolved.case.confirmations if c.kind is ConfirmationKind.DELIVERABLES]

    assert len(offers) == 1
    assert resolved.case.documentation.artifacts.case_report_offered


def test_the_fallback_report_uses_only_recorded_facts() -> None:
    case = rich_case()

    report = fallback_report(case)

    assert report.startswith(f"# Case report: {problem_of(case)}\n")
    for expected in (
        "## Timeline",
        "Case opened",
        "Problem started",
        "Pool size cut to 10 in v2.1.3",
        "*Confidence:* 85% (confident: strong supporting evidence, minor gaps)",
        "*Missing evidence:* heap dump",
        "- **Fix: Restore pool size 50** (applied)",
        "  - `kubectl get configmap payments -o yaml`",
        "- DNS: resolves fine",
        "- config problem",
        "- Load-test pool changes",
        "- Alert at 80% pool use",
    ):
        assert expected in report


def test_the_fallback_runbook_lists_diagnosis_and_resolution() -> None:
    runbook = fallback_runbook(rich_case())

    assert "- HTTP 500 at 30%" in runbook
    assert "`grep ERROR /var/log/app.log`" in runbook
    assert "- **Fix: Restore pool size 50** (applied)" in runbook
    assert "## Escalation" in runbook


def test_an_empty_case_still_gets_a_readable_document() -> None:
    case = new_case(title="")

    report = fallback_report(case)
    runbook = fallback_runbook(case)

    assert report.startswith("# Case report: Untitled case")
    assert "Not identified." in report
    assert "_none recorded_" in runbook
    case.consulting.proposed_problem_statement = "Checkout 502s"
    assert problem_of(case) == "Checkout 502s"


async def test_only_a_resolved_case_gets_an_offer() -> None:
    from domain.engine.context import TurnContext
    from domain.engine.deliverables import offer_deliverables

    ctx = TurnContext(case=rich_case(), now=NOW)

    await offer_deliverables(ctx, Rig().knowledge)

    assert ctx.log.proposed == []


def test_the_runbook_lists_only_fixes_that_were_applied() -> None:
    case = rich_case()
    add_solution(case, title="Rewrite the service in Rust")

    assert "Rewrite the service in Rust" not in fallback_runbook(case)
    assert "Rewrite the service in Rust" in fallback_report(case)


def test_the_report_summary_says_how_the_case_ended_and_how_long_it_took() -> None:
    ended = NOW + timedelta(minutes=95)
    resolved = new_case().model_copy(
        update={
            "status": CaseStatus.RESOLVED,
            "closure_reason": "resolved",
            "resolved_at": ended,
            "closed_at": ended,
        }
    )
    abandoned = new_case().model_copy(
        update={
            "status": CaseStatus.CLOSED,
            "closure_reason": "consulting_only",
            "closed_at": ended,
        }
    )

    summary = fallback_report(resolved).split("## Timeline")[0]

    assert "- Status: resolved\n" in summary
    assert "- Opened: 2026-11-21T03:00+00:00\n" in summary
    assert "- Ended: 2026-11-21T04:35+00:00 (after 1 h 35 min)\n" in summary
    assert "- Status: closed (consulting only)\n" in fallback_report(abandoned)
    assert "Ended:" not in fallback_report(new_case())


async def test_a_runbook_with_placeholders_keeps_its_diagnosis_commands() -> None:
    rig = Rig()
    resolved = await resolve(rig, rich_case())
    offer = resolved.reply.confirmations[0]
    diagnosis = "kubectl logs -n <ns> -l app=<app> --since=30m | grep -i error"
    runbook_text = (
        "# Runbook: consumer lag\n## Diagnosis\n"
        f"1. Look for errors: `{diagnosis}`\n"
        "2. kubectl get pods -n <ns> -l app=<app> -o wide\n"
        "```bash\nkafka-consumer-groups.sh --bootstrap-server <broker>:9092 --describe"
        " --group <group>\n```\n"
    )
    rig.llm.then("# Case report\nNothing to add.", runbook_text)

    result = await rig.engine.answer_confirmation(
        case=resolved.case, confirmation_id=offer.confirmation_id, by=OPENER, decision=Decision.YES
    )

    runbook = result.reply.documents[1]
    assert runbook.markdown == runbook_text
    assert result.reply.debug.unsafe_commands_removed == 0
    assert not [n for n in result.reply.notices if n.startswith("Withheld")]


async def test_a_long_problem_makes_a_title_cut_between_words() -> None:
    rig = Rig()
    case = rich_case()
    case.status = CaseStatus.RESOLVED
    words = "orders-consumer stuck in a rebalance loop after max.poll.records went to 5000 "
    case.problem_verification.symptom_statement = words * 4  # type: ignore[union-attr]
    cf = propose(case, DeliverablesPayload(documents=[DocumentType.INCIDENT_REPORT]), now=NOW)
    rig.llm.then(LLMUnavailableError("down"))

    result = await rig.engine.answer_confirmation(
        case=case, confirmation_id=cf.confirmation_id, by=OPENER, decision=Decision.YES
    )

    (document,) = result.reply.documents
    assert document.title.endswith("…")
    assert len(document.title) <= 120
    kept = document.title.removesuffix("…").split(": ", 1)[1]
    assert (words * 4).startswith(kept + " "), "cut at a word boundary, not inside a word"
