"""Records beside the case and small state helpers."""

from __future__ import annotations

import pytest

from domain.lifecycle.special_states import EscalationState, EscalationType
from domain.queue import InboxItem
from domain.records import ConversationMessage, MessageRole
from domain.scoring.model import ScoringStatus, SessionScore
from tests.unit.domain.builders import NOW


def test_scoring_statuses_split_into_active_and_terminal():
    assert ScoringStatus.terminal_values() == {ScoringStatus.COMPLETED, ScoringStatus.FAILED}
    assert ScoringStatus.active_values() == {ScoringStatus.PENDING, ScoringStatus.IN_PROGRESS}


def test_a_score_is_an_integer_from_0_to_100():
    base = {
        "score_id": "s",
        "case_id": "c",
        "prompt_hash": "h",
        "score_triggered_by": "U1",
        "scored_at_us": 1,
        "started_at_us": 1,
    }
    assert SessionScore(**base, total_score=100).total_score == 100
    with pytest.raises(ValueError, match="less than or equal to 100"):
        SessionScore(**base, total_score=101)


def test_records_have_sensible_defaults():
    message = ConversationMessage(
        case_id="c", ts="1.1", author="U1", role=MessageRole.USER, text="hi"
    )
    assert message.files == []
    item = InboxItem(dedup_key="Ev1", team_id="T1", kind="message")
    assert (item.status, item.attempts) == ("pending", 0)


def test_an_escalation_is_active_until_resolved():
    escalation = EscalationState(
        escalation_type=EscalationType.PERMISSIONS_REQUIRED,
        reason="no prod access",
        context_summary="500s",
    )
    assert escalation.is_active
    escalation.resolved_at = NOW
    assert not escalation.is_active


def test_the_ports_are_protocols():
    from domain import ports

    for name in (
        "Clock",
        "CaseRepository",
        "MessageRepository",
        "ScoreRepository",
    ):
        assert getattr(getattr(ports, name), "_is_protocol", False), name


def test_the_queue_s_types_live_with_the_queue_not_in_the_core():
    from domain import ports, queue, records

    assert not hasattr(ports, "InboxRepository")
    assert not hasattr(records, "InboxItem")
    assert getattr(queue.InboxRepository, "_is_protocol", False)


def test_citations_read_like_file_line_time_or_title_section():
    from domain.knowledge import Citation, KnowledgeBaseKind

    at = NOW.replace(hour=14, minute=32, second=15)
    assert Citation(
        kb=KnowledgeBaseKind.CASE, source="app.log", line_start=1045, line_end=1045, timestamp=at
    ).label() == ("app.log:1045 (14:32:15Z)")
    assert (
        Citation(kb=KnowledgeBaseKind.CASE, source="app.log", line_start=3, line_end=9).label()
        == "app.log:3-9"
    )
    assert Citation(
        kb=KnowledgeBaseKind.PERSONAL, source="DB failover", section="Steps"
    ).label() == ("DB failover › Steps")
    assert (
        Citation(kb=KnowledgeBaseKind.GLOBAL, source="Postgres tuning").label() == "Postgres tuning"
    )


def test_llm_calls_are_recorded_with_their_outcome():
    from domain.llm import LLMCallOutcome, LLMCallRecord, ModelTier

    record = LLMCallRecord(
        model="openai/x",
        template="consulting",
        template_hash="h",
        latency_ms=12,
        outcome=LLMCallOutcome.OK,
    )
    assert record.prompt_tokens is None
    assert ModelTier.JUDGE.value == "judge"
