"""The turn loop without a model: status changes and statements asked for, typed answers
applied, uploads summarised from their ingest report."""

from __future__ import annotations

import pytest

from domain.lifecycle.confirmations import (
    ConfirmationKind,
    Decision,
    StatusChangePayload,
)
from domain.lifecycle.proposals import propose
from domain.lifecycle.status import CaseStatus
from tests.unit.domain.builders import (
    NOW,
    OPENER,
    investigating_case,
    new_case,
    triaged_case,
)
from tests.unit.domain.engine.helpers import (
    Rig,
    inputs,
    proposed_statement,
    said,
    upload,
)


@pytest.mark.parametrize(
    ("text", "status", "summary"),
    [
        ("close this", CaseStatus.CLOSED, None),
        ("resolved: rolled back to v2.1.2", CaseStatus.RESOLVED, "rolled back to v2.1.2"),
    ],
)
async def test_without_a_model_status_changes_are_asked_for_when_requested(
    text: str, status: CaseStatus, summary: str | None
) -> None:
    rig = Rig()
    rig.llm.enabled = False

    result = await rig.turn(investigating_case(), said(text))

    (confirmation,) = result.reply.confirmations
    payload = result.case.find_confirmation(confirmation.confirmation_id).payload  # type: ignore[union-attr]
    assert payload == StatusChangePayload(
        to_status=status, reason="asked by {@U_OPENER}", resolution_summary=summary
    )
    assert result.case.status is CaseStatus.INVESTIGATING
    assert result.case.evidence == []


async def test_without_a_model_investigate_proposes_the_statement() -> None:
    rig = Rig()
    rig.llm.enabled = False

    result = await rig.turn(new_case(), said("investigate: Checkout 502s since 09:00"))

    (confirmation,) = result.reply.confirmations
    assert confirmation.kind is ConfirmationKind.PROBLEM_STATEMENT
    assert "Checkout 502s since 09:00" in confirmation.prompt
    accepted = await rig.engine.answer_confirmation(
        case=result.case,
        confirmation_id=confirmation.confirmation_id,
        by=OPENER,
        decision=Decision.YES,
    )
    assert accepted.case.status is CaseStatus.INVESTIGATING


async def test_without_a_model_investigate_needs_a_problem() -> None:
    rig = Rig()
    rig.llm.enabled = False

    untitled = await rig.turn(new_case(title=""), said("investigate"))
    already = await rig.turn(investigating_case(), said("investigate"))

    assert untitled.reply.notices == [
        "Tell me the problem first: `investigate: <one-line problem>`."
    ]
    assert already.reply.notices[0].startswith("I can't ask for that yet:")


async def test_without_a_model_a_typed_answer_is_applied_and_not_evidence() -> None:
    rig = Rig()
    rig.llm.enabled = False
    case = triaged_case()
    propose(case, proposed_statement(), now=rig.clock.now())

    result = await rig.turn(case, said("yes"))

    assert result.case.status is CaseStatus.INVESTIGATING
    assert result.case.evidence == []
    assert "answered yes: " in result.reply.text


async def test_without_a_model_a_finished_case_records_nothing() -> None:
    rig = Rig()
    rig.llm.enabled = False
    case = investigating_case()
    case.status = CaseStatus.CLOSED

    result = await rig.turn(case, said("one more thing: the pool was 10"))

    assert result.case.evidence == []


async def test_without_a_model_uploads_are_summarised_from_their_ingest_report() -> None:
    rig = Rig()
    rig.llm.enabled = False
    timed = upload("app.log")
    assert timed.report is not None
    timed = timed.model_copy(
        update={
            "report": timed.report.model_copy(
                update={"first_timestamp": NOW, "last_timestamp": NOW}
            )
        }
    )
    bare = upload("shot.png").model_copy(update={"report": None})

    result = await rig.turn(investigating_case(), inputs(files=[timed, bare]))

    first, second = (e.summary for e in result.case.evidence)
    assert first.endswith(f", {NOW.isoformat()} to {NOW.isoformat()}")
    assert second == "Uploaded shot.png"
