"""Table mappings (SQLAlchemy 2 typed declarative); portable across SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
ACTIVE_SCORING = "status IN ('pending', 'in_progress')"
PROCESSING_ITEM = "status = 'processing'"
ACTIVE_GROUP = "retired_at IS NULL"

# Plain JSON keeps object keys in insertion order on every backend (JSONB would sort them, and
# the order of a case's hypotheses is meaningful); JSONB suits the small queryable payloads.
Document = JSON()
Data = JSON().with_variant(JSONB(), "postgresql")
# SQLite autoincrements only an INTEGER PRIMARY KEY.
BigIntegerPK = BigInteger().with_variant(Integer(), "sqlite")


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware datetimes stored as UTC; SQLite drops the offset, so it is put back."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Refuse naive datetimes and store UTC."""
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetimes are not stored; pass a timezone-aware one")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Return an aware UTC datetime."""
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    """Declarative base with deterministic constraint names (migrations depend on them)."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def _case_fk() -> ForeignKey:
    return ForeignKey("cases.case_id", ondelete="CASCADE")


class CaseRow(Base):
    """A case: indexed identity columns plus the whole domain model as a JSON document."""

    __tablename__ = "cases"
    __table_args__ = (
        UniqueConstraint("team_id", "channel_id", "thread_ts"),
        Index(None, "team_id", "created_at"),
    )

    case_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    team_id: Mapped[str] = mapped_column(String(64))
    channel_id: Mapped[str] = mapped_column(String(64))
    thread_ts: Mapped[str] = mapped_column(String(64))
    short_id: Mapped[str] = mapped_column(String(16), unique=True)
    status: Mapped[str] = mapped_column(String(32), index=True)
    version: Mapped[int] = mapped_column(Integer)
    document: Mapped[dict[str, Any]] = mapped_column(Document)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())


class MessageRow(Base):
    """One message of a case thread."""

    __tablename__ = "conversation_messages"
    __table_args__ = (UniqueConstraint("case_id", "ts"),)

    id: Mapped[int] = mapped_column(BigIntegerPK, primary_key=True, autoincrement=True)
    case_id: Mapped[str] = mapped_column(String(40), _case_fk())
    ts: Mapped[str] = mapped_column(String(64))
    author: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(16))
    text: Mapped[str] = mapped_column(Text)
    files: Mapped[list[str]] = mapped_column(Data)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class FileRow(Base):
    """An uploaded file's record."""

    __tablename__ = "uploaded_files"

    file_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    case_id: Mapped[str] = mapped_column(String(40), _case_fk(), index=True)
    filename: Mapped[str] = mapped_column(String(1024))
    content_type: Mapped[str] = mapped_column(String(255))
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    source_ref: Mapped[str | None] = mapped_column(String(1024))
    sha256: Mapped[str | None] = mapped_column(String(64))
    uploaded_by: Mapped[str] = mapped_column(String(255))
    status: Mapped[str] = mapped_column(String(16))
    line_count: Mapped[int | None] = mapped_column(BigInteger)
    redactions: Mapped[int] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class ConfirmationRow(Base):
    """Mirror of one entry of ``case.confirmations``, written with the case document."""

    __tablename__ = "pending_confirmations"
    __table_args__ = (Index(None, "case_id", "state"),)

    confirmation_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    case_id: Mapped[str] = mapped_column(String(40), _case_fk())
    kind: Mapped[str] = mapped_column(String(32))
    state: Mapped[str] = mapped_column(String(16))
    payload: Mapped[dict[str, Any]] = mapped_column(Data)
    answerable_by: Mapped[list[str]] = mapped_column(Data)
    prompt: Mapped[str] = mapped_column(Text)
    proposed_at: Mapped[datetime] = mapped_column(UTCDateTime())
    proposed_by: Mapped[str] = mapped_column(String(255))
    proposed_at_turn: Mapped[int] = mapped_column(Integer)
    answered_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    answered_by: Mapped[str | None] = mapped_column(String(255))
    decision: Mapped[str | None] = mapped_column(String(16))


class InboxRow(Base):
    """Durable inbox item."""

    __tablename__ = "inbox"
    __table_args__ = (
        Index(None, "status", "available_at"),
        Index(None, "case_key", "status"),
        # At most one item per case key is processing, even with several replicas claiming.
        Index(
            "uq_inbox_processing_case_key",
            "case_key",
            unique=True,
            sqlite_where=text(PROCESSING_ITEM),
            postgresql_where=text(PROCESSING_ITEM),
        ),
    )

    item_id: Mapped[int] = mapped_column(BigIntegerPK, primary_key=True, autoincrement=True)
    dedup_key: Mapped[str] = mapped_column(String(255), unique=True)
    team_id: Mapped[str] = mapped_column(String(64))
    case_key: Mapped[str | None] = mapped_column(String(255))
    kind: Mapped[str] = mapped_column(String(64))
    payload: Mapped[dict[str, Any]] = mapped_column(Data)
    status: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(Integer)
    available_at: Mapped[datetime] = mapped_column(UTCDateTime())
    locked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    """When the holder claimed it or last said it is still working on it (its heartbeat)."""
    locked_by: Mapped[str | None] = mapped_column(String(255))
    """The worker instance processing it."""
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())


class ScoreRow(Base):
    """A session score: the scoring seed's schema (session_id is case_id here) and our extras."""

    __tablename__ = "session_scores"
    __table_args__ = (
        CheckConstraint(
            "total_score >= 0 AND total_score <= 100", name="ck_session_scores_total_score"
        ),
        Index(None, "case_id", "status"),
        Index(None, "status", "started_at_us"),
        Index(
            "uq_session_scores_active_case",
            "case_id",
            unique=True,
            sqlite_where=text(ACTIVE_SCORING),
            postgresql_where=text(ACTIVE_SCORING),
        ),
    )

    score_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    case_id: Mapped[str] = mapped_column(String(40), _case_fk(), index=True)
    prompt_hash: Mapped[str] = mapped_column(String(64), index=True)
    total_score: Mapped[int | None] = mapped_column(Integer, index=True)
    score_analysis: Mapped[str | None] = mapped_column(Text)
    missing_tools_analysis: Mapped[str | None] = mapped_column(Text)
    score_triggered_by: Mapped[str] = mapped_column(String(255))
    scored_at_us: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(50), index=True)
    started_at_us: Mapped[int] = mapped_column(BigInteger)
    completed_at_us: Mapped[int | None] = mapped_column(BigInteger)
    error_message: Mapped[str | None] = mapped_column(Text)
    # Added by 0003: the judge's category points, the case's facts, progress and its message.
    logical_flow_score: Mapped[int | None] = mapped_column(Integer)
    consistency_score: Mapped[int | None] = mapped_column(Integer)
    tool_relevance_score: Mapped[int | None] = mapped_column(Integer)
    synthesis_quality_score: Mapped[int | None] = mapped_column(Integer)
    facts: Mapped[dict[str, Any] | None] = mapped_column(Data)
    phase: Mapped[str | None] = mapped_column(String(40))
    message_channel: Mapped[str | None] = mapped_column(String(64))
    message_ts: Mapped[str | None] = mapped_column(String(64))


class PostedMessageRow(Base):
    """Where one of the bot's messages of a case is (or, while ``ts`` is empty, is to be)."""

    __tablename__ = "posted_messages"
    __table_args__ = (UniqueConstraint("case_id", "kind", "key"),)

    id: Mapped[int] = mapped_column(BigIntegerPK, primary_key=True, autoincrement=True)
    case_id: Mapped[str] = mapped_column(String(40), _case_fk())
    kind: Mapped[str] = mapped_column(String(16))
    key: Mapped[str] = mapped_column(String(255))
    channel_id: Mapped[str] = mapped_column(String(64))
    ts: Mapped[str | None] = mapped_column(String(64))
    body: Mapped[dict[str, Any] | None] = mapped_column(Document)
    posted_at: Mapped[datetime] = mapped_column(UTCDateTime())


class AuditRow(Base):
    """Append-only audit entry; no foreign key, so entries outlive their case."""

    __tablename__ = "audit_log"
    __table_args__ = (Index(None, "case_id", "at"),)

    id: Mapped[int] = mapped_column(BigIntegerPK, primary_key=True, autoincrement=True)
    team_id: Mapped[str] = mapped_column(String(64))
    case_id: Mapped[str | None] = mapped_column(String(40))
    actor: Mapped[str] = mapped_column(String(255))
    action: Mapped[str] = mapped_column(String(64))
    detail: Mapped[dict[str, Any]] = mapped_column(Data)
    source: Mapped[str] = mapped_column(String(64))
    at: Mapped[datetime] = mapped_column(UTCDateTime())


class LLMCallRow(Base):
    """One LLM call's record; no foreign key, so the cost of a deleted case stays accountable."""

    __tablename__ = "llm_calls"
    __table_args__ = (Index(None, "case_id", "at"),)

    id: Mapped[int] = mapped_column(BigIntegerPK, primary_key=True, autoincrement=True)
    case_id: Mapped[str | None] = mapped_column(String(40))
    model: Mapped[str] = mapped_column(String(255))
    template: Mapped[str] = mapped_column(String(128))
    template_hash: Mapped[str] = mapped_column(String(64))
    latency_ms: Mapped[int] = mapped_column(Integer)
    prompt_tokens: Mapped[int | None] = mapped_column(Integer)
    completion_tokens: Mapped[int | None] = mapped_column(Integer)
    cost_usd: Mapped[float | None] = mapped_column(Float)
    outcome: Mapped[str] = mapped_column(String(32), index=True)
    error: Mapped[str | None] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)


class AlertGroupRow(Base):
    """An alert group and the case it opened; one active row per group identity (dedup)."""

    __tablename__ = "alert_groups"
    __table_args__ = (
        # Concurrent notifications of one group cannot open two cases: the second insert fails.
        Index(
            "uq_alert_groups_active_group",
            "team_id",
            "group_hash",
            unique=True,
            sqlite_where=text(ACTIVE_GROUP),
            postgresql_where=text(ACTIVE_GROUP),
        ),
    )

    group_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    team_id: Mapped[str] = mapped_column(String(64))
    group_hash: Mapped[str] = mapped_column(String(64))
    group_key: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16))
    channel_id: Mapped[str] = mapped_column(String(64))
    alert_ts: Mapped[str | None] = mapped_column(String(64))
    case_id: Mapped[str | None] = mapped_column(String(40), _case_fk(), index=True)
    fingerprints: Mapped[list[str]] = mapped_column(Data)
    latest: Mapped[dict[str, Any]] = mapped_column(Document)
    occurrence_count: Mapped[int] = mapped_column(Integer)
    first_seen: Mapped[datetime] = mapped_column(UTCDateTime())
    last_seen: Mapped[datetime] = mapped_column(UTCDateTime())
    retired_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class RemediationRow(Base):
    """A remediation strategy offered for approval in a case thread, and its decision."""

    __tablename__ = "remediation_strategies"
    __table_args__ = (Index(None, "batch_id", "status"),)

    strategy_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    case_id: Mapped[str] = mapped_column(String(40), _case_fk(), index=True)
    team_id: Mapped[str] = mapped_column(String(64))
    batch_id: Mapped[str] = mapped_column(String(40))
    rank: Mapped[int] = mapped_column(Integer)
    workflow_id: Mapped[str] = mapped_column(String(100))
    version: Mapped[str] = mapped_column(String(32))
    title: Mapped[str] = mapped_column(String(300))
    confidence: Mapped[float] = mapped_column(Float)
    estimated_risk: Mapped[str] = mapped_column(String(16))
    rationale: Mapped[str] = mapped_column(Text)
    parameters: Mapped[dict[str, Any]] = mapped_column(Data)
    status: Mapped[str] = mapped_column(String(16))
    proposed_at: Mapped[datetime] = mapped_column(UTCDateTime())
    decided_by: Mapped[str | None] = mapped_column(String(255))
    decided_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    execution: Mapped[dict[str, Any] | None] = mapped_column(Data)


class FeedbackRow(Base):
    """One person's 👍/👎 on one root cause of a case; no foreign key, like the outcomes."""

    __tablename__ = "conclusion_feedback"
    __table_args__ = (UniqueConstraint("case_id", "conclusion_id", "user_id"),)

    id: Mapped[int] = mapped_column(BigIntegerPK, primary_key=True, autoincrement=True)
    team_id: Mapped[str] = mapped_column(String(64))
    case_id: Mapped[str] = mapped_column(String(40))
    conclusion_id: Mapped[str] = mapped_column(String(40))
    user_id: Mapped[str] = mapped_column(String(255))
    rating: Mapped[str] = mapped_column(String(8))
    confidence: Mapped[float] = mapped_column(Float)
    model: Mapped[str | None] = mapped_column(String(255))
    at: Mapped[datetime] = mapped_column(UTCDateTime())


class OutcomeRow(Base):
    """The graded root cause of a finished case; no foreign key, so calibration outlives cases."""

    __tablename__ = "case_outcomes"
    __table_args__ = (Index(None, "team_id", "finished_at"),)

    case_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    team_id: Mapped[str] = mapped_column(String(64))
    conclusion_id: Mapped[str | None] = mapped_column(String(40))
    confidence: Mapped[float | None] = mapped_column(Float)
    model: Mapped[str | None] = mapped_column(String(255))
    verdict: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str] = mapped_column(Text)
    finished_at: Mapped[datetime] = mapped_column(UTCDateTime())
    recorded_at: Mapped[datetime] = mapped_column(UTCDateTime())
