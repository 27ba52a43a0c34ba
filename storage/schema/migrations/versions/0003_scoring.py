"""Scoring: the judge's category points, the case's facts, progress phase and progress message.

Revision ID: 0003
Revises: 0002
Create Date: 2025-12-08
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out here rather than imported, so this revision never changes with the models.
DATA = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
CATEGORIES = (
    "logical_flow_score",
    "consistency_score",
    "tool_relevance_score",
    "synthesis_quality_score",
)


def _columns() -> list[sa.Column]:
    return [
        *(sa.Column(name, sa.Integer(), nullable=True) for name in CATEGORIES),
        sa.Column("facts", DATA, nullable=True),
        sa.Column("phase", sa.String(40), nullable=True),
        sa.Column("message_channel", sa.String(64), nullable=True),
        sa.Column("message_ts", sa.String(64), nullable=True),
    ]


def upgrade() -> None:
    """Add the nullable columns (plain ALTER TABLE … ADD COLUMN on SQLite and PostgreSQL)."""
    for column in _columns():
        op.add_column("session_scores", column)


def downgrade() -> None:
    """Drop them again (SQLite 3.35+ drops columns in place)."""
    for column in reversed(_columns()):
        op.drop_column("session_scores", column.name)
