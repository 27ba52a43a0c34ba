"""Applying consulting and terminal replies: the model proposes, the people confirm."""

from __future__ import annotations

from domain.engine.apply.reply import apply_reply
from domain.engine.context import TurnContext
from domain.engine.inputs import TurnInput
from domain.lifecycle.confirmations import (
    ConfirmationKind,
    ConfirmationState,
    DeliverablesPayload,
    ProblemStatementPayload,
    StatusChangePayload,
)
from domain.lifecycle.special_states import DocumentType
from domain.lifecycle.status import CaseStatus, ClosureReason
from tests.unit.domain.builders import NOW, STATEMENT, investigating_case, new_case, triaged_case
from tests.unit.domain.engine.helpers import consulting, said, terminal

TRIAGE = {"problem_type": "error", "severity_guess": "HIGH", "affected_components": ["payments"]}


def ctx_for(case, *messages) -> TurnContext:  # type: ignore[no-untyped-def]
    return TurnContext(case=case, now=NOW, turn=TurnInput(messages=list(messages)))


def pending_kinds(case) -> list[ConfirmationKind]:  # type: ignore[no-untyped-def]
    return [c.kind for c in case.pending_confirmations()]


def test_a_plain_question_changes_nothing_but_suggestions() -> None:
    ctx = ctx_for(new_case())

    apply_reply(
        ctx, consulting("Use `kubectl top pods`.", quick_suggestions=["`kubectl top pods`"])
    )

    assert ctx.case.consulting.problem_confirmation is None
    assert ctx.case.consulting.quick_suggestions == ["`kubectl top pods`"]
    assert ctx.case.confirmations == []


def test_a_formalised_problem_becomes_a_statement_to_confirm() -> None:
    ctx = ctx_for(new_case())

    apply_reply(
        ctx,
        consulting(problem_confirmation=TRIAGE, proposed_problem_statement=f"  {STATEMENT}  "),
    )

    consulting_data = ctx.case.consulting
    assert consulting_data.problem_confirmation is not None
    assert consulting_data.problem_confirmation.created_at == NOW
    assert consulting_data.problem_confirmation.affected_components == ["payments"]
    (confirmation,) = ctx.log.proposed
    assert isinstance(confirmation.payload, ProblemStatementPayload)
    assert confirmation.payload.statement == STATEMENT
    assert confirmation.payload.and_investigate
    assert STATEMENT in confirmation.prompt
    assert not consulting_data.problem_statement_confirmed
    assert ctx.case.status is CaseStatus.CONSULTING


def test_a_correction_supersedes_the_earlier_statement() -> None:
    case = new_case()
    first = ctx_for(case)
    apply_reply(
        first, consulting(problem_confirmation=TRIAGE, proposed_problem_statement="API slow")
    )
    second = ctx_for(case, said("not quite, 30% of requests take over 5 s"))

    apply_reply(second, consulting(proposed_problem_statement="API: 30% of requests take > 5 s"))

    old, new = case.confirmations
    assert old.state is ConfirmationState.SUPERSEDED
    assert new.is_pending
    assert case.consulting.proposed_problem_statement == "API: 30% of requests take > 5 s"


def test_repeating_the_pending_statement_asks_nothing_new() -> None:
    case = new_case()
    apply_reply(
        ctx_for(case), consulting(problem_confirmation=TRIAGE, proposed_problem_statement="X")
    )

    apply_reply(ctx_for(case), consulting(proposed_problem_statement="X"))

    assert len(case.confirmations) == 1


def test_a_statement_without_triage_gets_a_placeholder_triage() -> None:
    ctx = ctx_for(new_case())

    apply_reply(ctx, consulting(proposed_problem_statement="Checkout returns 502s"))

    triage = ctx.case.consulting.problem_confirmation
    assert triage is not None
    assert (triage.problem_type, triage.severity_guess) == ("unclassified", "UNKNOWN")
    assert pending_kinds(ctx.case) == [ConfirmationKind.PROBLEM_STATEMENT]


def test_a_confirmed_statement_is_final() -> None:
    case = triaged_case()
    case.consulting.problem_statement_confirmed = True
    ctx = ctx_for(case)

    apply_reply(ctx, consulting(problem_confirmation=TRIAGE, proposed_problem_statement="Other"))

    assert case.consulting.proposed_problem_statement == STATEMENT
    assert case.consulting.problem_confirmation.problem_type == "error"  # type: ignore[union-attr]
    assert ctx.log.ignored == ["the problem statement is already confirmed and cannot change"]
    assert case.confirmations == []


def test_asking_to_investigate_becomes_a_status_change_question() -> None:
    ctx = ctx_for(triaged_case())

    apply_reply(ctx, consulting(status_change_request={"to_status": "investigating"}))

    (confirmation,) = ctx.log.proposed
    assert isinstance(confirmation.payload, StatusChangePayload)
    assert confirmation.payload.to_status is CaseStatus.INVESTIGATING
    assert "You asked me to investigate: " in confirmation.prompt
    assert ctx.case.status is CaseStatus.CONSULTING


def test_asking_to_investigate_while_a_statement_is_pending_asks_once() -> None:
    ctx = ctx_for(new_case())

    apply_reply(
        ctx,
        consulting(
            problem_confirmation=TRIAGE,
            proposed_problem_statement=STATEMENT,
            status_change_request={"to_status": "investigating"},
        ),
    )

    assert pending_kinds(ctx.case) == [ConfirmationKind.PROBLEM_STATEMENT]


def test_asking_to_close_while_consulting_is_a_question_too() -> None:
    ctx = ctx_for(new_case())

    apply_reply(
        ctx, consulting(status_change_request={"to_status": "closed", "reason": "answered"})
    )

    (confirmation,) = ctx.log.proposed
    assert confirmation.payload == StatusChangePayload(
        to_status=CaseStatus.CLOSED, reason="answered"
    )
    assert confirmation.prompt.startswith("Close this case without a resolution?")


def test_a_request_the_rules_forbid_becomes_a_note() -> None:
    ctx = ctx_for(new_case())

    apply_reply(ctx, consulting(status_change_request={"to_status": "resolved"}))

    assert ctx.case.confirmations == []
    (note,) = ctx.log.notes
    assert note.startswith("I can't ask for that yet:")


def test_closing_an_investigation_names_the_findings() -> None:
    case = investigating_case()
    ctx = ctx_for(case)

    apply_reply(
        ctx,
        consulting(status_change_request={"to_status": "closed", "closure_reason": "escalated"}),
    )

    (confirmation,) = ctx.log.proposed
    assert confirmation.payload.closure_reason is ClosureReason.ESCALATED  # type: ignore[union-attr]
    assert "Findings so far: limited data" in confirmation.prompt


def test_a_terminal_case_takes_documentation_only() -> None:
    case = investigating_case()
    case.status = CaseStatus.RESOLVED
    case.documentation.lessons_learned = ["alert on pool usage"]
    ctx = ctx_for(case)

    apply_reply(
        ctx,
        terminal(
            documentation_updates={
                "lessons_learned": ["alert on pool usage", "load-test config changes"],
                "preventive_measures": ["`kubectl delete ns staging` weekly"],
                "documents_to_generate": ["runbook", "runbook"],
            }
        ),
    )

    documentation = case.documentation
    assert documentation.lessons_learned == ["alert on pool usage", "load-test config changes"]
    assert "kubectl delete" not in documentation.preventive_measures[0]
    (confirmation,) = ctx.log.proposed
    assert confirmation.payload == DeliverablesPayload(documents=[DocumentType.RUNBOOK])
    assert "runbook" in confirmation.prompt


def test_a_terminal_reply_without_documentation_changes_nothing() -> None:
    case = investigating_case()
    case.status = CaseStatus.CLOSED
    before = case.model_copy(deep=True)

    apply_reply(ctx_for(case), terminal())
    apply_reply(ctx_for(case), terminal(documentation_updates={"lessons_learned": []}))

    assert case == before
