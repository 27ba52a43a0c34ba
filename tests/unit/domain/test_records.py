"""Records beside the case and small state helpers."""

from __future__ import annotations

import pytest

from domain.records import ConversationMessage, InboxItem, MessageRole, ScoringStatus, SessionScore
from domain.special_states import EscalationState, EscalationType

from .builders import NOW


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
        "InboxRepository",
        "ScoreRepository",
    ):
        assert getattr(getattr(ports, name), "_is_protocol", False), name
