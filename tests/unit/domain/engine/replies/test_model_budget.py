"""The engine and the model's budget: a stopped call is a plain answer that says why, and a
case report ends with what the model cost."""

from __future__ import annotations

from datetime import datetime

from domain.budget import Breach, BudgetScope, LLMBudgetExceededError, LLMSpend
from domain.engine.engine import TurnEngine
from domain.lifecycle.confirmations import Decision
from domain.lifecycle.special_states import DocumentType
from tests.unit.domain.builders import OPENER, new_case
from tests.unit.domain.engine.helpers import Rig, said
from tests.unit.domain.engine.replies.test_deliverables import resolve, rich_case

SPENT = LLMSpend(calls=7, tokens=31_000, cost_usd=0.042)


class FixedLedger:
    """Every case cost SPENT."""

    async def for_case(self, case_id: str) -> LLMSpend:
        return SPENT

    async def for_team(self, team_id: str, *, since: datetime, until: datetime) -> LLMSpend:
        return SPENT


async def test_a_call_a_budget_stopped_is_a_plain_answer_opening_with_the_budget_s_sentence() -> (
    None
):
    rig = Rig()
    breach = Breach(scope=BudgetScope.CASE, limit="$1.00", spent="$1.02 spent")

    result = await rig.turn(new_case(), said("db-1 is down"), LLMBudgetExceededError(breach))

    text = result.reply.text
    assert text.startswith(
        "This case has reached its model budget of $1.00 ($1.02 spent), so it goes on without"
        " the model"
    )
    assert "unreachable" not in text


async def test_the_case_report_ends_with_what_the_model_cost() -> None:
    rig = Rig()
    resolved = await resolve(rig, rich_case())
    engine = TurnEngine(
        llm=rig.llm, knowledge=rig.knowledge, clock=rig.clock, spending=FixedLedger()
    )
    rig.llm.then("# Case report\nThe pool ran dry.", "# Runbook\nCheck the pool.")

    result = await engine.answer_confirmation(
        case=resolved.case,
        confirmation_id=resolved.reply.confirmations[0].confirmation_id,
        by=OPENER,
        decision=Decision.YES,
    )

    report, runbook = result.reply.documents
    assert report.document_type is DocumentType.INCIDENT_REPORT
    assert report.markdown.endswith("\n\n## Model use\n- 7 model calls · 31.0k tokens · $0.042.\n")
    assert "Model use" not in runbook.markdown
    assert result.case.documentation.artifacts.case_report_generated == report.markdown
