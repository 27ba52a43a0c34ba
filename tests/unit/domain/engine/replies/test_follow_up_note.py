"""The line that opens what follows a click: what the answer did, without repeating the question."""

from __future__ import annotations

from domain.engine.answers import follow_up_note
from domain.engine.view import DocumentView
from domain.lifecycle.confirmations import Decision, ProblemStatementPayload
from domain.lifecycle.decisions import AnswerOutcome, AnswerResult
from domain.lifecycle.proposals import propose
from domain.lifecycle.special_states import DocumentType
from domain.lifecycle.status import CaseStatus, CaseStatusTransition
from tests.unit.domain.builders import NOW, OPENER, triaged_case


def _document(kind: DocumentType) -> DocumentView:
    return DocumentView(document_type=kind, title="t", filename="t.md", markdown="# t")


def _answered(decision: Decision, *moves: CaseStatus) -> AnswerResult:
    case = triaged_case()
    asked = propose(case, ProblemStatementPayload(statement="db-1 is down"), now=NOW)
    answered = asked.model_copy(update={"decision": decision, "answered_by": OPENER})
    transitions = [
        CaseStatusTransition(
            from_status=CaseStatus.INVESTIGATING,
            to_status=status,
            triggered_at=NOW,
            triggered_by=OPENER,
            reason="r",
            confirmation_id=asked.confirmation_id,
        )
        for status in moves
    ]
    return AnswerResult(AnswerOutcome.APPLIED, answered, transitions)


def test_documents_after_a_status_change_are_named_the_decided_line_says_the_rest() -> None:
    documents = [_document(DocumentType.INCIDENT_REPORT), _document(DocumentType.RUNBOOK)]

    said = follow_up_note(_answered(Decision.YES, CaseStatus.RESOLVED), documents)

    assert said == "Here are the case report and the runbook."


def test_nothing_changed_adds_nothing_to_the_decided_line() -> None:
    assert follow_up_note(_answered(Decision.NO), []) == ""
