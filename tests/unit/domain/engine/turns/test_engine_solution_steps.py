"""A Yes on a solution step asks the next one, so the click never leaves the case waiting:
applied → did it fix it? → (for a mitigation) resolve and write the report? in one click."""

from __future__ import annotations

from domain.lifecycle.confirmations import (
    ConfirmationKind,
    Decision,
    SolutionAppliedPayload,
    StatusChangePayload,
)
from domain.lifecycle.proposals import propose
from domain.lifecycle.status import CaseStatus
from tests.unit.domain.builders import OPENER, add_solution, investigating_case
from tests.unit.domain.engine.helpers import Rig


async def test_applied_asks_whether_it_fixed_it_and_a_working_mitigation_asks_to_resolve() -> None:
    rig = Rig()
    case = investigating_case()
    rollback = add_solution(case, mitigation=True, title="Roll checkout-api back to v2.14.0")
    applied = propose(
        case, SolutionAppliedPayload(solution_id=rollback.solution_id), now=rig.clock.now()
    )

    after_applied = await rig.engine.answer_confirmation(
        case=case, confirmation_id=applied.confirmation_id, by=OPENER, decision=Decision.YES
    )
    (fixed,) = after_applied.reply.confirmations
    assert fixed.kind is ConfirmationKind.SOLUTION_VERIFIED
    assert fixed.prompt.startswith("Once you have watched it: did “Roll checkout-api back")

    after_fixed = await rig.engine.answer_confirmation(
        case=after_applied.case,
        confirmation_id=fixed.confirmation_id,
        by=OPENER,
        decision=Decision.YES,
    )
    (resolve,) = after_fixed.reply.confirmations
    assert resolve.to_status is CaseStatus.RESOLVED
    assert after_fixed.case.status is CaseStatus.INVESTIGATING, "only the next Yes resolves it"
    rig.llm.then("# Report\n", "# Runbook\n")

    resolved = await rig.engine.answer_confirmation(
        case=after_fixed.case,
        confirmation_id=resolve.confirmation_id,
        by=OPENER,
        decision=Decision.YES,
    )
    assert resolved.case.status is CaseStatus.RESOLVED
    (solution,) = resolved.case.solutions
    assert solution.state == "attested", "the same rollback, vouched for; not a second fix"
    written = [d.markdown for d in resolved.reply.documents]
    assert written == ["# Report\n", "# Runbook\n"], "resolving writes the report and runbook"
    assert not [c for c in resolved.case.confirmations if c.kind is ConfirmationKind.DELIVERABLES]


async def test_no_on_a_step_asks_nothing_more() -> None:
    rig = Rig()
    case = investigating_case()
    rollback = add_solution(case, mitigation=True)
    applied = propose(
        case, SolutionAppliedPayload(solution_id=rollback.solution_id), now=rig.clock.now()
    )

    result = await rig.engine.answer_confirmation(
        case=case, confirmation_id=applied.confirmation_id, by=OPENER, decision=Decision.NO
    )

    assert result.reply.confirmations == []


async def test_a_verified_permanent_fix_resolves_without_a_second_question() -> None:
    rig = Rig()
    case = investigating_case()
    fix = add_solution(case, title="Restore maximumPoolSize to 50")
    applied = propose(
        case, SolutionAppliedPayload(solution_id=fix.solution_id), now=rig.clock.now()
    )
    asked = await rig.engine.answer_confirmation(
        case=case, confirmation_id=applied.confirmation_id, by=OPENER, decision=Decision.YES
    )
    (fixed,) = asked.reply.confirmations

    result = await rig.engine.answer_confirmation(
        case=asked.case, confirmation_id=fixed.confirmation_id, by=OPENER, decision=Decision.YES
    )

    assert result.case.status is CaseStatus.RESOLVED
    assert not any(isinstance(c.payload, StatusChangePayload) for c in result.case.confirmations)
