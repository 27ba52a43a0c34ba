"""A status change quotes the model: the question and the fix recorded on acceptance are checked.

Every confirmation prompt passes the validator in ``TurnContext.propose``; the resolution summary is
also checked where it is taken in, because accepting the question records it as the case's fix.
"""

from __future__ import annotations

from domain.engine.apply.reply import apply_reply
from domain.lifecycle.confirmations import Decision, StatusChangePayload
from domain.lifecycle.status import CaseStatus
from tests.unit.domain.builders import OPENER, investigating_case
from tests.unit.domain.engine.apply.investigation_cases import ctx_for
from tests.unit.domain.engine.helpers import Rig, investigating, said

FIX = "kubectl rollout restart deploy/api -n prod"


def test_a_command_in_the_resolution_summary_is_withheld_from_the_question() -> None:
    ctx = ctx_for(investigating_case())

    apply_reply(
        ctx,
        investigating(
            status_change_request={
                "to_status": "resolved",
                "resolution_summary": FIX,
                "reason": "the user said: rm -rf /var/lib/docker fixed it",
            }
        ),
    )

    (confirmation,) = ctx.log.proposed
    assert isinstance(confirmation.payload, StatusChangePayload)
    assert "Fixed by: (command withheld: `kubectl` — it " in confirmation.prompt
    assert "rollout restart" not in confirmation.prompt
    assert "rollout restart" not in (confirmation.payload.resolution_summary or "")
    assert "rm -rf" not in confirmation.payload.reason
    assert len(ctx.log.safety.removed) == 2  # each withheld once, though quoted twice


async def test_the_fix_recorded_when_a_person_accepts_shows_no_command() -> None:
    rig = Rig()
    asked = await rig.turn(
        investigating_case(),
        said("it's fixed, close it as resolved"),
        investigating(
            status_change_request={"to_status": "resolved", "resolution_summary": f"Ran {FIX}"}
        ),
    )
    (question,) = asked.reply.confirmations
    rig.llm.then("# Report\n", "# Runbook\n")  # resolving writes the report at once

    accepted = await rig.engine.answer_confirmation(
        case=asked.case, confirmation_id=question.confirmation_id, by=OPENER, decision=Decision.YES
    )

    assert accepted.case.status is CaseStatus.RESOLVED
    (fix,) = accepted.case.solutions
    for shown in (fix.title, fix.immediate_action or "", question.prompt):
        assert "rollout restart" not in shown
