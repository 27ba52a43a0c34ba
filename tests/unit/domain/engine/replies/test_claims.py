"""A reply never claims a status change the case did not make: the claim is corrected in place."""

from __future__ import annotations

import pytest

from domain.engine.apply.claims import Refusal, correct_claims
from domain.lifecycle.status import CaseStatus
from tests.unit.domain.builders import investigating_case
from tests.unit.domain.engine.helpers import Rig, investigating, said

ASKED = "_I haven't marked it resolved: that happens once someone answers Yes below._"


@pytest.mark.parametrize(
    "claim",
    [
        "I am marking it resolved.",
        "I've resolved the case.",
        "Marking the case as resolved now.",
        "The case is now resolved.",
        "I'm going to mark this incident resolved.",
    ],
)
def test_a_claimed_resolution_that_waits_for_a_yes_says_so_where_it_stood(claim: str) -> None:
    text = f"No 502s since the rollback. {claim} The pool fix still has to ship."

    corrected = correct_claims(text, status=CaseStatus.INVESTIGATING, asked=[CaseStatus.RESOLVED])

    assert corrected == f"No 502s since the rollback. {ASKED} The pool fix still has to ship."


@pytest.mark.parametrize(
    "honest",
    [
        "Shall I mark it resolved?",
        "Once you confirm, I'll close the case.",
        "Closing the connection pool leak needs a restart.",
        "I've closed the idle connections.",
        "I haven't closed the case.",
        "The 502s have resolved since 14:18.",
        "If the rate stays at zero, we can resolve it.",
    ],
)
def test_questions_conditions_and_other_closings_are_left_alone(honest: str) -> None:
    text = f"Line one.\n\n{honest}\n• v2.15.0 shipped"

    assert correct_claims(text, status=CaseStatus.INVESTIGATING, asked=[]) == text


def test_a_refused_change_says_why_in_place() -> None:
    refused = Refusal(CaseStatus.RESOLVED, "say what fixed it or verify the solution first")

    corrected = correct_claims(
        "I've marked the case resolved and closed.",
        status=CaseStatus.INVESTIGATING,
        asked=[],
        refused=[refused],
    )

    assert corrected == (
        "_I haven't marked it resolved or closed: say what fixed it or verify the solution first._"
    )


def test_a_status_the_case_has_is_no_false_claim() -> None:
    text = "I've marked the case resolved."

    assert correct_claims(text, status=CaseStatus.RESOLVED, asked=[]) == text


async def test_the_thread_never_reads_resolved_while_the_question_waits() -> None:
    result = await Rig().turn(
        investigating_case(),
        said("the rollback fixed it"),
        investigating(
            "No 502s since the rollback. I am marking it resolved and closed.",
            status_change_request={
                "to_status": "resolved",
                "resolution_summary": "Rolled back to v2.14.0",
            },
        ),
    )

    assert result.case.status is CaseStatus.INVESTIGATING
    assert "I am marking it" not in result.reply.text
    assert "that happens once someone answers Yes below" in result.reply.text
    (question,) = result.reply.confirmations
    assert question.to_status is CaseStatus.RESOLVED


async def test_a_refused_resolution_is_explained_once_in_the_answer_not_in_a_note() -> None:
    result = await Rig().turn(
        investigating_case(),
        said("close it as resolved"),
        investigating(
            "Done: the case is now resolved.",
            status_change_request={"to_status": "resolved", "reason": "the user asked"},
        ),
    )

    assert result.reply.confirmations == []
    assert result.reply.text == (
        "_I haven't marked it resolved: to mark the case resolved, say what fixed it or verify "
        "the solution first._"
    )
    assert not any("can't ask for that" in note for note in result.reply.notices)
