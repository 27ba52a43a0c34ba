"""The answer first and short, the rest behind Details; a decided question in one line."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from bot.slack.ids import DetailsValue, load_value
from bot.slack.render.case.decided import decided_line, replaced_message
from bot.slack.render.case.details import details_modal
from bot.slack.render.case.reply import ANSWER_CHARS, reply_message
from bot.slack.render.limits import problems
from domain.engine.view import SolutionView
from domain.lifecycle.confirmations import (
    ConfirmationState,
    Decision,
    DeliverablesPayload,
    PendingConfirmation,
    StatusChangePayload,
)
from domain.lifecycle.special_states import DocumentType
from domain.lifecycle.status import CaseStatus
from tests.unit.bot.slack.render.views import full_reply, ingest_report

CASE_ID = "case_000000000001"
DETAILS = DetailsValue(case_id=CASE_ID, key="Ev0001")
FIX = SolutionView(
    solution_id="sol_2",
    title="Size the pool for peak traffic",
    is_mitigation=False,
    state="proposed",
    longterm_fix="Set maximumPoolSize from the peak load test, and alert on pending connections",
    implementation_steps=["run the load test", "set the pool size in the prod profile"],
)


def shown(reply_blocks: list[dict[str, object]]) -> str:
    return json.dumps(reply_blocks, ensure_ascii=False)


def test_a_kept_answer_is_short_and_its_details_button_names_where_it_is_kept() -> None:
    reply = full_reply().model_copy(update={"solutions": [*full_reply().solutions, FIX]})

    rendered = reply_message(reply, case_id=CASE_ID, details=DETAILS)
    text = shown(rendered.block_dicts())

    assert problems(rendered) == []
    assert "*🎯 Root cause* (82%, confident): Pool size 10" in text, "the cause, in a line"
    assert "_How:_ requests wait" in text
    assert "kubectl get configmap payments-db -o yaml" in text, "the mitigation's command"
    assert "*🛠️ Then, the fix:* Size the pool for peak traffic" in text
    for hidden in ("Supporting evidence", "Missing evidence", "DNS lookups", "load test"):
        assert hidden not in text, f"{hidden} is in the Details, not the thread"
    (details,) = [
        e
        for b in rendered.block_dicts()
        if b["type"] == "actions"
        for e in b["elements"]
        if e["action_id"] == "fm_details"
    ]
    assert load_value(DetailsValue, details["value"]) == DETAILS


def test_the_details_modal_holds_the_evidence_the_alternatives_and_the_fix() -> None:
    reply = full_reply().model_copy(update={"solutions": [*full_reply().solutions, FIX]})

    view = details_modal(reply, [ingest_report()]).to_dict()
    text = shown(view["blocks"])

    assert view["type"] == "modal"
    assert len(view["title"]["text"]) <= 24
    assert "100/100 active" in text
    assert "DB server-side connection count" in text
    assert "DNS lookups for the DB host are slow" in text, "the other hypotheses"
    assert "Set maximumPoolSize from the peak load test" in text, "the permanent fix"
    assert "1. run the load test" in text
    assert "`payments.log:812 (14:41:15Z)`" in text, "every finding, cited in full"
    assert "`DB pool runbook › Sizing`" in text


def test_a_long_answer_opens_with_its_first_sentences_and_keeps_the_rest_for_details() -> None:
    sentence = "The pool of ten connections is exhausted at the peak of checkout traffic. "
    reply = full_reply().model_copy(update={"text": sentence * 20, "root_cause": None})

    short = reply_message(reply, case_id=CASE_ID, details=DETAILS)
    whole = reply_message(reply, case_id=CASE_ID)

    assert len(short.block_dicts()[0]["text"]["text"]) <= ANSWER_CHARS + 2
    assert "fm_details" in shown(short.block_dicts())
    assert len(whole.block_dicts()[0]["text"]["text"]) > ANSWER_CHARS, "no Details: all of it"


def test_an_answer_that_cannot_open_details_shows_the_rest_under_it() -> None:
    text = shown(reply_message(full_reply(), case_id=CASE_ID).block_dicts())

    assert "fm_details" not in text
    assert "Supporting evidence" in text
    assert "DNS lookups" in text


def test_a_decided_question_is_one_line_saying_what_the_decision_did_and_when() -> None:
    at = datetime(2026, 11, 29, 18, 31, tzinfo=UTC)
    resolve = PendingConfirmation(
        payload=StatusChangePayload(to_status=CaseStatus.RESOLVED, resolution_summary="rollback"),
        prompt="Mark this case resolved? Problem: … Root cause: … Fix: …",
        state=ConfirmationState.ACCEPTED,
        decision=Decision.YES,
        answered_by="U1",
        answered_at=at,
    )
    documents = resolve.model_copy(
        update={
            "payload": DeliverablesPayload(
                documents=[DocumentType.INCIDENT_REPORT, DocumentType.RUNBOOK]
            )
        }
    )

    line = decided_line(resolve)

    assert line.startswith("✅ {@U1} resolved it <!date^")
    assert line.endswith("|18:31 UTC>")
    assert "Root cause" not in line
    assert "asked for the case report and the runbook" in decided_line(documents)
    assert "\n" not in replaced_message("Did it fix it? " * 20).text
