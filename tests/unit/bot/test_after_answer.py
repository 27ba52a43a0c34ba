"""The line that opens what follows a click: what the answer did, without repeating the question."""

from __future__ import annotations

from bot.services.clicks import after_answer
from domain.confirmations import Decision, ProblemStatementPayload
from domain.engine.view import DocumentView
from domain.proposals import propose
from domain.special_states import DocumentType
from domain.status import CaseStatus
from tests.unit.domain.builders import NOW, OPENER, new_case, triaged_case


def _document(kind: DocumentType) -> DocumentView:
    return DocumentView(document_type=kind, title="t", filename="t.md", markdown="# t")


def _answered(decision: Decision):  # type: ignore[no-untyped-def]
    case = triaged_case()
    asked = propose(case, ProblemStatementPayload(statement="db-1 is down"), now=NOW)
    return asked.model_copy(update={"decision": decision, "answered_by": OPENER})


def test_a_status_change_and_documents_are_said_in_one_line() -> None:
    before = new_case()
    after = before.model_copy(update={"status": CaseStatus.RESOLVED})
    documents = [_document(DocumentType.INCIDENT_REPORT), _document(DocumentType.RUNBOOK)]

    said = after_answer(_answered(Decision.YES), before, after, documents)

    assert said == (
        f"After <@{OPENER}>'s yes: the case is now resolved. "
        "Here are the case report and the runbook."
    )


def test_nothing_changed_says_only_whose_answer_it_was() -> None:
    case = new_case()

    assert after_answer(_answered(Decision.NO), case, case, []) == f"After <@{OPENER}>'s no:"
