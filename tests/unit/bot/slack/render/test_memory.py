"""Seen before: one section naming the past case, its link, cause and fix, and its runbook."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from bot.slack.ids import ActionId, RunbookValue, load_value
from bot.slack.render.case.header import case_header_message
from bot.slack.render.case.memory import seen_before_lead
from domain.past_cases import MatchedDocument, PastCaseMatch, SeenBefore, Verdict
from tests.fakes.slack.block_kit_validation import check_message
from tests.unit.bot.slack.render.snapshots import assert_snapshot
from tests.unit.domain.builders import NOW, investigating_case

MATCH = PastCaseMatch(
    case_id="case_past",
    short_id="FM-7K3Q",
    team_id="T1",
    channel_id="C1",
    thread_ts="1700000000.000100",
    resolved_at=datetime(2026, 11, 2, 15, 30, tzinfo=UTC),
    problem="Payments API returns HTTP 500 for 30% of requests",
    root_cause="The deploy cut the database connection pool from 50 to 10",
    fixed_by="Rolled back to v4.11.3",
    verdict=Verdict.RIGHT,
    score=0.7412,
    margin=0.0831,
    document=MatchedDocument.RUNBOOK,
    document_title="Runbook: payments pool",
    runbook_title="Runbook: payments pool",
)
LINK = "https://acme.slack.com/archives/C1/p1700000000000100"


def as_slack(match: PastCaseMatch, link: str | None) -> dict[str, Any]:
    rendered = seen_before_lead(match, case_id="case_new", link=link)
    payload: dict[str, Any] = {
        "text": rendered.text,
        "blocks": [b.to_dict() for b in rendered.blocks],
    }
    assert check_message(payload["text"], payload["blocks"]) is None
    return payload


def test_a_past_case_is_one_section_with_its_link_cause_fix_and_a_runbook_button() -> None:
    payload = as_slack(MATCH, LINK)

    assert_snapshot("seen_before", payload)
    (block,) = payload["blocks"]
    assert f"<{LINK}|FM-7K3Q>" in block["text"]["text"]
    assert "not a conclusion" in block["text"]["text"]
    button = block["accessory"]
    assert button["action_id"] == ActionId.USE_RUNBOOK
    value = load_value(RunbookValue, button["value"])
    assert (value.case_id, value.past_case_id) == ("case_new", "case_past")


def test_a_past_case_without_a_runbook_or_a_link_has_no_button_and_names_the_case() -> None:
    bare = MATCH.model_copy(update={"runbook_title": None, "margin": None})

    (block,) = as_slack(bare, None)["blocks"]

    assert "accessory" not in block
    assert "*FM-7K3Q*" in block["text"]["text"]
    assert "the only close past case" in block["text"]["text"]


def test_the_case_summary_names_the_past_case_while_the_case_runs() -> None:
    case = investigating_case()
    case.seen_before = SeenBefore(looked_at=NOW, match=MATCH)

    shown = case_header_message(case)

    assert "*Seen before:* looks like FM-7K3Q (a lead to check)" in str(shown.block_dicts())
