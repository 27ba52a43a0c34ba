"""Alerts and remediation: alert groups (deduplicated into one case) and proposed strategies.

Revision ID: 0004
Revises: 0003
Create Date: 2025-11-24
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out here rather than imported, so this revision never changes with the models.
DOCUMENT = sa.JSON()
DATA = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
ACTIVE_GROUP = "retired_at IS NULL"


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
    """Create the alert groups and the remediation strategies."""
    _create_alert_groups()
    _create_remediation_strategies()


def downgrade() -> None:
    """Drop both tables."""
    op.drop_table("remediation_strategies")
    op.drop_table("alert_groups")


def _create_alert_groups() -> None:
    op.create_table(
        "alert_groups",
        sa.Column("group_id", sa.String(40), nullable=False),
        sa.Column("team_id", sa.String(64), nullable=False),
        sa.Column("group_hash", sa.String(64), nullable=False),
        sa.Column("group_key", sa.Text(), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("channel_id", sa.String(64), nullable=False),
        sa.Column("alert_ts", sa.String(64), nullable=True),
        sa.Column("case_id", sa.String(40), nullable=True),
        sa.Column("fingerprints", DATA, nullable=False),
        sa.Column("latest", DOCUMENT, nullable=False),
        sa.Column("occurrence_count", sa.Integer(), nullable=False),
        _at("first_seen"),
        _at("last_seen"),
        _at("retired_at", nullable=True),
        sa.PrimaryKeyConstraint("group_id", name="pk_alert_groups"),
        _case_fk("alert_groups"),
    )
    op.create_index("ix_alert_groups_case_id", "alert_groups", ["case_id"])
    # One active group per identity: concurrent notifications cannot open two cases.
    op.create_index(
        "uq_alert_groups_active_group",
        "alert_groups",
        ["team_id", "group_hash"],
        unique=True,
        sqlite_where=sa.text(ACTIVE_GROUP),
        postgresql_where=sa.text(ACTIVE_GROUP),
    )


def _create_remediation_strategies() -> None:
    op.create_table(
        "remediation_strategies",
        sa.Column("strategy_id", sa.String(40), nullable=False),
        sa.Column("case_id", sa.String(40), nullable=False),
        sa.Column("team_id", sa.String(64), nullable=False),
        sa.Column("batch_id", sa.String(40), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("workflow_id", sa.String(100), nullable=False),
        sa.Column("version", sa.String(32), nullable=False),
        sa.Column("title", sa.String(300), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("estimated_risk", sa.String(16), nullable=False),
        sa.Column("rationale", sa.Text(), nullable=False),
        sa.Column("parameters", DATA, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        _at("proposed_at"),
        sa.Column("decided_by", sa.String(255), nullable=True),
        _at("decided_at", nullable=True),
        sa.Column("surface_ref", sa.String(64), nullable=True),
        sa.Column("execution", DATA, nullable=True),
        sa.PrimaryKeyConstraint("strategy_id", name="pk_remediation_strategies"),
        _case_fk("remediation_strategies"),
    )
    op.create_index("ix_remediation_strategies_case_id", "remediation_strategies", ["case_id"])
    op.create_index(
        "ix_remediation_strategies_batch_id_status",
        "remediation_strategies",
        ["batch_id", "status"],
    )
