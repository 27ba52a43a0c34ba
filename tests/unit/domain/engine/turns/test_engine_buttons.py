"""The turn loop's buttons and questions: applied once, refused to strangers, superseded, the
newest answered, evidence that cannot be got."""

from __future__ import annotations

import pytest

from domain.engine.view import ReplyKind
from domain.errors import NotAllowedToAnswerError, NotFoundError
from domain.investigation.evidence_requests import EvidenceStatus
from domain.lifecycle.confirmations import (
    ConfirmationState,
    Decision,
    SolutionAppliedPayload,
)
from domain.lifecycle.proposals import propose
from domain.lifecycle.status import CaseStatus
from tests.unit.domain.builders import (
    OPENER,
    add_request,
    add_solution,
    investigating_case,
    triaged_case,
)
from tests.unit.domain.engine.helpers import (
    Rig,
    investigating,
    proposed_statement,
    said,
)


async def test_a_button_applies_once_and_says_what_happened() -> None:
    rig = Rig()
    case = triaged_case()
    cf = propose(case, proposed_statement(), now=rig.clock.now())

    first = await rig.engine.answer_confirmation(
        case=case, confirmation_id=cf.confirmation_id, by=OPENER, decision=Decision.NO
    )
    again = await rig.engine.answer_confirmation(
        case=first.case, confirmation_id=cf.confirmation_id, by=OPENER, decision=Decision.YES
    )

    assert case.find_confirmation(cf.confirmation_id).is_pending  # type: ignore[union-attr]
    assert first.reply.kind is ReplyKind.DECISION
    assert "answered no: " in first.reply.text
    assert again.reply.text == "{@U_OPENER} already answered that question."
    assert again.case.status is CaseStatus.CONSULTING


@pytest.mark.parametrize(
    ("prompt", "said"),
    [
        ("Fix: roll back", "Fix: roll back. The case is now investigating."),
        ("Shall I start?", "Shall I start? The case is now investigating."),
    ],
)
async def test_what_a_yes_did_reads_as_sentences(prompt: str, said: str) -> None:
    rig = Rig()
    case = triaged_case()
    cf = propose(case, proposed_statement(), now=rig.clock.now(), prompt=prompt)

    result = await rig.engine.answer_confirmation(
        case=case, confirmation_id=cf.confirmation_id, by=OPENER, decision=Decision.YES
    )

    assert result.reply.text == f"{{@U_OPENER}} answered yes: {said}"


async def test_a_superseded_question_says_so() -> None:
    rig = Rig()
    case = triaged_case()
    old = propose(case, proposed_statement(), now=rig.clock.now())
    propose(case, proposed_statement("A sharper statement"), now=rig.clock.now())

    result = await rig.engine.answer_confirmation(
        case=case, confirmation_id=old.confirmation_id, by=OPENER, decision=Decision.YES
    )

    assert result.reply.text == "That question no longer applies; a newer one replaced it."


async def test_buttons_from_strangers_are_refused() -> None:
    rig = Rig()
    case = triaged_case()
    cf = propose(case, proposed_statement(), now=rig.clock.now())

    with pytest.raises(NotAllowedToAnswerError) as refused:
        await rig.engine.answer_confirmation(
            case=case, confirmation_id=cf.confirmation_id, by="U_STRANGER", decision=Decision.YES
        )

    assert refused.value.named == ()
    assert refused.value.responders is None, "the case's participants may: anyone can join"


async def test_cant_get_this_blocks_the_request_and_offers_alternatives() -> None:
    rig = Rig()
    case = investigating_case()
    requests = [add_request(case, label=f"Data {i}") for i in range(3)]
    requests[0].guidance.alternatives = ["Ask the DBA for pg_stat_activity output"]

    result = case
    for request in requests:
        result = (
            await rig.engine.report_unavailable(
                case=result, request_id=request.request_id, by="U_SRE", reason="no access"
            )
        ).case
    first = await rig.engine.report_unavailable(
        case=case, request_id=requests[0].request_id, by="U_SRE", reason="no access"
    )

    assert "Another way: Ask the DBA for pg_stat_activity output" in first.reply.text
    assert case.evidence_requests[0].status is EvidenceStatus.PENDING
    assert all(r.status is EvidenceStatus.BLOCKED for r in result.evidence_requests)
    assert result.degraded_mode is not None
    assert result.degraded_mode.escalation_recommended
    with pytest.raises(NotFoundError):
        await rig.engine.report_unavailable(case=case, request_id="req_x", by="U", reason="r")


async def test_the_newest_question_is_the_one_answered() -> None:
    rig = Rig()
    case = investigating_case()
    first = add_solution(case, title="first")
    second = add_solution(case, title="second")
    propose(case, SolutionAppliedPayload(solution_id=first.solution_id), now=rig.clock.now())
    newest = propose(
        case, SolutionAppliedPayload(solution_id=second.solution_id), now=rig.clock.now()
    )

    result = await rig.turn(case, said("yes"), investigating("Great."))

    answered = result.case.find_confirmation(newest.confirmation_id)
    assert answered is not None
    assert answered.state is ConfirmationState.ACCEPTED
    assert result.case.find_solution(second.solution_id).applied_by == OPENER  # type: ignore[union-attr]
