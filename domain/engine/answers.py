"""Typed answers to confirmations ("yes", "no", "not sure") and how any answer is reported."""

from __future__ import annotations

from collections.abc import Sequence

from domain.engine.context import TurnContext
from domain.engine.intents import parse_decision
from domain.engine.view import DocumentView
from domain.errors import DomainError
from domain.lifecycle.confirmations import ConfirmationKind, Decision
from domain.lifecycle.decisions import AnswerOutcome, AnswerResult, answer, may_answer
from domain.lifecycle.special_states import DocumentType
from domain.people import mention

DOCUMENT_NAMES = {
    DocumentType.INCIDENT_REPORT: "the case report",
    DocumentType.POST_MORTEM: "the post-mortem",
    DocumentType.RUNBOOK: "the runbook",
    DocumentType.CHAT_SUMMARY: "the summary",
}


def typed_decision(ctx: TurnContext) -> AnswerResult | None:
    """A typed yes / no / not sure from an allowed person answers the newest pending question."""
    pending = ctx.case.pending_confirmations()
    last = ctx.turn.messages[-1] if ctx.turn.messages else None
    decision = parse_decision(last.text) if last else None
    if not pending or last is None or decision is None:
        return None
    newest = pending[-1]
    if decision is Decision.UNSURE and newest.kind is not ConfirmationKind.REFUTATION:
        return None
    responders = ctx.turn.responders
    if not may_answer(ctx.case, newest, last.author, responders=responders):
        ctx.log.notes.append(f"Only the case's participants can answer: {mention(last.author)}.")
        return None
    try:
        return answer(
            ctx.case,
            newest.confirmation_id,
            by=last.author,
            decision=decision,
            now=ctx.now,
            responders=responders,
        )
    except DomainError as error:
        ctx.log.notes.append(f"I couldn't apply that answer: {error}.")
        return None


def decision_note(result: AnswerResult) -> str:
    """What an answer did, in one line."""
    confirmation = result.confirmation
    if result.outcome is AnswerOutcome.SUPERSEDED:
        return "That question no longer applies; a newer one replaced it."
    if result.outcome is AnswerOutcome.ALREADY_ANSWERED:
        return f"{mention(confirmation.answered_by)} already answered that question."
    decision = confirmation.decision.value if confirmation.decision else "?"
    moves = "".join(f" The case is now {t.to_status.value}." for t in result.transitions)
    who = confirmation.answered_by
    asked = confirmation.prompt.rstrip()
    if moves and asked and asked[-1] not in ".?!":
        asked += "."  # "…Fix: roll back. The case is now resolved."
    return f"{mention(who)} answered {decision}: {asked}{moves}"


def follow_up_note(result: AnswerResult, documents: Sequence[DocumentView]) -> str:
    """What follows an answer whose question already shows who decided what, in a few words:
    "The case is now closed.", or "Here is the case report." """
    done = [f"The case is now {t.to_status.value}." for t in result.transitions[-1:]]
    if documents and done:
        done = []  # the decided line above already says it was resolved (or closed)
    if documents:
        names = [DOCUMENT_NAMES[document.document_type] for document in documents]
        listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        done.append(f"Here {'is' if len(names) == 1 else 'are'} {listed}.")
    return " ".join(done)
