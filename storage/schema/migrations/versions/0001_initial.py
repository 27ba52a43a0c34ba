"""Initial schema: cases, conversation, files, confirmations, inbox, scores, audit log.

Revision ID: 0001
Revises:
Create Date: 2025-11-21
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out here rather than imported, so this revision never changes with the models.
DOCUMENT = sa.JSON()
DATA = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
BIGINT_PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
ACTIVE_SCORING = "status IN ('pending', 'in_progress')"
PROCESSING_ITEM = "status = 'processing'"


def _at(name: str, *, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _case_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["case_id"],
        ["cases.case_id"],
        name=f"fk_{table}_case_id_cases",
        ondelete="CASCADE",
    )


def upgrade() -> None:
    """Create every table with its indexes and constraints."""
    _create_cases()
    _create_conversation_messages()
    _create_uploaded_files()
    _create_pending_confirmations()
    _create_inbox()
    _create_session_scores()
    _create_audit_log()


def downgrade() -> None:
    """Drop every table (children before the cases they reference)."""
    for table in (
        "audit_log",
        "session_scores",
        "inbox",
        "pending_confirmations",
        "uploaded_files",
        "conversation_messages",
        "cases",
    ):
        op.drop_table(table)


def _create_cases() -> None:
    op.create_table(
        "cases",
        sa.Column("case_id", sa.String(40), nullable=False),
        sa.Column("team_id", sa.String(64), nullable=False),
        sa.Column("channel_id", sa.String(64), nullable=False),
        sa.Column("thread_ts", sa.String(64), nullable=False),
        sa.Column("short_id", sa.String(16), nullable=False),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("document", DOCUMENT, nullable=False),
        _at("created_at"),
        _at("updated_at"),
        sa.PrimaryKeyConstraint("case_id", name="pk_cases"),
        sa.UniqueConstraint(
            "team_id", "channel_id", "thread_ts", name="uq_cases_team_id_channel_id_thread_ts"
        ),
        sa.UniqueConstraint("short_id", name="uq_cases_short_id"),
    )
    op.create_index("ix_cases_status", "cases", ["status"])
    op.create_index("ix_cases_team_id_created_at", "cases", ["team_id", "created_at"])


def _create_conversation_messages() -> None:
    op.create_table(
        "conversation_messages",
        sa.Column("id", BIGINT_PK, autoincrement=True, nullable=False),
        sa.Column("case_id", sa.String(40), nullable=False),
        sa.Column("ts", sa.String(64), nullable=False),
        sa.Column("author", sa.String(255), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("files", DATA, nullable=False),
        _at("created_at"),
        sa.PrimaryKeyConstraint("id", name="pk_conversation_messages"),
        _case_fk("conversation_messages"),
        sa.UniqueConstraint("case_id", "ts", name="uq_conversation_messages_case_id_ts"),
    )


def _create_uploaded_files() -> None:
    op.create_table(
        "uploaded_files",
        sa.Column("file_id", sa.String(64), nullable=False),
        sa.Column("case_id", sa.String(40), nullable=False),
        sa.Column("filename", sa.String(1024), nullable=False),
        sa.Column("content_type", sa.String(255), nullable=False),
        sa.Column("size_bytes", sa.BigInteger(), nullable=False),
        sa.Column("source_ref", sa.String(1024), nullable=True),
        sa.Column("sha256", sa.String(64), nullable=True),
        sa.Column("uploaded_by", sa.String(255), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("line_count", sa.BigInteger(), nullable=True),
        sa.Column("redactions", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        _at("created_at"),
        sa.PrimaryKeyConstraint("file_id", name="pk_uploaded_files"),
        _case_fk("uploaded_files"),
    )
    op.create_index("ix_uploaded_files_case_id", "uploaded_files", ["case_id"])


def _create_pending_confirmations() -> None:
    op.create_table(
        "pending_confirmations",
        sa.Column("confirmation_id", sa.String(40), nullable=False),
        sa.Column("case_id", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("payload", DATA, nullable=False),
        sa.Column("answerable_by", DATA, nullable=False),
        sa.Column("prompt", sa.Text(), nullable=False),
        _at("proposed_at"),
        sa.Column("proposed_by", sa.String(255), nullable=False),
        sa.Column("proposed_at_turn", sa.Integer(), nullable=False),
        _at("answered_at", nullable=True),
        sa.Column("answered_by", sa.String(255), nullable=True),
        sa.Column("decision", sa.String(16), nullable=True),
        sa.Column("surface_ref", sa.String(255), nullable=True),
        sa.PrimaryKeyConstraint("confirmation_id", name="pk_pending_confirmations"),
        _case_fk("pending_confirmations"),
    )
    op.create_index(
        "ix_pending_confirmations_case_id_state", "pending_confirmations", ["case_id", "state"]
    )


def _create_inbox() -> None:
    op.create_table(
        "inbox",
        sa.Column("item_id", BIGINT_PK, autoincrement=True, nullable=False),
        sa.Column("dedup_key", sa.String(255), nullable=False),
        sa.Column("team_id", sa.String(64), nullable=False),
        sa.Column("case_key", sa.String(255), nullable=True),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("payload", DATA, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        _at("available_at"),
        _at("locked_at", nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        _at("created_at"),
        _at("updated_at"),
        sa.PrimaryKeyConstraint("item_id", name="pk_inbox"),
        sa.UniqueConstraint("dedup_key", name="uq_inbox_dedup_key"),
    )
    op.create_index("ix_inbox_status_available_at", "inbox", ["status", "available_at"])
    op.create_index("ix_inbox_case_key_status", "inbox", ["case_key", "status"])
    op.create_index(
        "uq_inbox_processing_case_key",
        "inbox",
        ["case_key"],
        unique=True,
        sqlite_where=sa.text(PROCESSING_ITEM),
        postgresql_where=sa.text(PROCESSING_ITEM),
    )


def _create_session_scores() -> None:
    op.create_table(
        "session_scores",
        sa.Column("score_id", sa.String(36), nullable=False),
        sa.Column("case_id", sa.String(40), nullable=False),
        sa.Column("prompt_hash", sa.String(64), nullable=False),
        sa.Column("total_score", sa.Integer(), nullable=True),
        sa.Column("score_analysis", sa.Text(), nullable=True),
        sa.Column("missing_tools_analysis", sa.Text(), nullable=True),
        sa.Column("score_triggered_by", sa.String(255), nullable=False),
        sa.Column("scored_at_us", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(50), nullable=False),
        sa.Column("started_at_us", sa.BigInteger(), nullable=False),
        sa.Column("completed_at_us", sa.BigInteger(), nullable=True),
        sa.Column("error_message", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("score_id", name="pk_session_scores"),
        _case_fk("session_scores"),
        sa.CheckConstraint(
            "total_score >= 0 AND total_score <= 100", name="ck_session_scores_total_score"
        ),
    )
    _index_session_scores()


def _index_session_scores() -> None:
    for columns in (
        ["case_id"],
        ["prompt_hash"],
        ["total_score"],
        ["status"],
        ["case_id", "status"],
        ["status", "started_at_us"],
    ):
        op.create_index(f"ix_session_scores_{'_'.join(columns)}", "session_scores", columns)
    # One pending or in-progress scoring per case; completed and failed ones accumulate.
    op.create_index(
        "uq_session_scores_active_case",
        "session_scores",
        ["case_id"],
        unique=True,
        sqlite_where=sa.text(ACTIVE_SCORING),
        postgresql_where=sa.text(ACTIVE_SCORING),
    )


def _create_audit_log() -> None:
    op.create_table(
        "audit_log",
        sa.Column("id", BIGINT_PK, autoincrement=True, nullable=False),
        sa.Column("team_id", sa.String(64), nullable=False),
        sa.Column("case_id", sa.String(40), nullable=True),
        sa.Column("actor", sa.String(255), nullable=False),
        sa.Column("action", sa.String(64), nullable=False),
        sa.Column("detail", DATA, nullable=False),
        sa.Column("source", sa.String(64), nullable=False),
        _at("at"),
        sa.PrimaryKeyConstraint("id", name="pk_audit_log"),
    )
    op.create_index("ix_audit_log_case_id_at", "audit_log", ["case_id", "at"])
