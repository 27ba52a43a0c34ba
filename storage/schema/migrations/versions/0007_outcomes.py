"""Calibration from real use: 👍/👎 on stated root causes and the outcome of each finished case.

Neither table has a foreign key to ``cases``: like the LLM call records, what a team learnt about
its bot's confidence outlives the cases it came from.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out here rather than imported, so this revision never changes with the models.
BIGINT_PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    """Create ``conclusion_feedback`` and ``case_outcomes``."""
    op.create_table(
        "conclusion_feedback",
        sa.Column("id", BIGINT_PK, autoincrement=True, nullable=False),
        sa.Column("team_id", sa.String(64), nullable=False),
        sa.Column("case_id", sa.String(40), nullable=False),
        sa.Column("conclusion_id", sa.String(40), nullable=False),
        sa.Column("user_id", sa.String(255), nullable=False),
        sa.Column("rating", sa.String(8), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("model", sa.String(255), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_conclusion_feedback"),
        sa.UniqueConstraint(
            "case_id",
            "conclusion_id",
            "user_id",
            name="uq_conclusion_feedback_case_id_conclusion_id_user_id",
        ),
    )
    op.create_table(
        "case_outcomes",
        sa.Column("case_id", sa.String(40), nullable=False),
        sa.Column("team_id", sa.String(64), nullable=False),
        sa.Column("conclusion_id", sa.String(40), nullable=True),
        sa.Column("confidence", sa.Float(), nullable=True),
        sa.Column("model", sa.String(255), nullable=True),
        sa.Column("verdict", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("case_id", name="pk_case_outcomes"),
    )
    op.create_index(
        "ix_case_outcomes_team_id_finished_at", "case_outcomes", ["team_id", "finished_at"]
    )


def downgrade() -> None:
    """Drop both tables."""
    op.drop_index("ix_case_outcomes_team_id_finished_at", table_name="case_outcomes")
    op.drop_table("case_outcomes")
    op.drop_table("conclusion_feedback")
