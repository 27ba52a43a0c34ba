"""A finished case of the workspace, as "seen before" finds it: stored, graded, its documents
in the knowledge base and its thread in Slack."""

from __future__ import annotations

from dataclasses import dataclass

from domain.base import utc_now
from domain.case import Case
from domain.investigation.conclusions import RootCauseConclusion
from domain.knowledge import KnowledgeBaseKind
from domain.lifecycle.confirmations import StatusChangePayload
from domain.lifecycle.proposals import propose
from domain.lifecycle.status import CaseStatus
from domain.outcomes import Outcome, Verdict
from rag.service import KnowledgeService
from tests.fakes.slack.state import TEAM_ID
from tests.integration.bot.harness import CHANNEL, OPENER, BotHarness
from tests.unit.domain.builders import answer_yes, investigating_case


@dataclass(frozen=True)
class PastCase:
    """What a finished case said: its problem, root cause, fix, and the two documents."""

    problem: str
    root_cause: str
    fix: str
    report_title: str
    report: str
    runbook_title: str
    runbook: str
    thread_ts: str = "1690000000.000100"


def resolved(past: PastCase) -> Case:
    """A resolved case of this workspace with a root cause and a runbook, in CHANNEL."""
    case = investigating_case()
    case.team_id = TEAM_ID
    case.channel_id, case.thread_ts = CHANNEL, past.thread_ts
    case.consulting.proposed_problem_statement = past.problem
    case.problem_verification = None
    case.root_cause_conclusion = RootCauseConclusion(
        root_cause=past.root_cause, confidence_score=0.8, mechanism="see the case report"
    )
    payload = StatusChangePayload(to_status=CaseStatus.RESOLVED, resolution_summary=past.fix)
    answer_yes(case, propose(case, payload, now=case.created_at))
    assert case.status is CaseStatus.RESOLVED
    case.documentation.runbook_entry = past.runbook_title
    case.documentation.artifacts.runbook_generated = past.runbook
    return case


async def finished(
    bot: BotHarness, knowledge: KnowledgeService, past: PastCase, *, verdict: Verdict
) -> Case:
    """The past case stored and graded, its thread in Slack, its documents in the knowledge base."""
    bot.slack.add_message(CHANNEL, past.problem, user=OPENER, ts=past.thread_ts)
    case = await bot.runtime.repositories.cases.add(resolved(past))
    for title, markdown in ((past.report_title, past.report), (past.runbook_title, past.runbook)):
        await knowledge.save_document(
            team_id=TEAM_ID,
            kb=KnowledgeBaseKind.GLOBAL,
            scope_id=None,
            title=title,
            markdown=markdown,
            case_id=case.case_id,
        )
    now = utc_now()
    outcome = Outcome(
        team_id=TEAM_ID,
        case_id=case.case_id,
        verdict=verdict,
        reason="test",
        finished_at=now,
        recorded_at=now,
    )
    await bot.runtime.repositories.outcomes.record(outcome)
    return case
