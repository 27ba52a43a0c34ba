"""LLM call records: model, template and hash, latency, tokens, cost and outcome per call.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out here rather than imported, so this revision never changes with the models.
BIGINT_PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    """Create ``llm_calls`` with its indexes."""
    op.create_table(
        "llm_calls",
        sa.Column("id", BIGINT_PK, autoincrement=True, nullable=False),
        sa.Column("case_id", sa.String(40), nullable=True),
        sa.Column("model", sa.String(255), nullable=False),
        sa.Column("template", sa.String(128), nullable=False),
        sa.Column("template_hash", sa.String(64), nullable=False),
        sa.Column("latency_ms", sa.Integer(), nullable=False),
        sa.Column("prompt_tokens", sa.Integer(), nullable=True),
        sa.Column("completion_tokens", sa.Integer(), nullable=True),
        sa.Column("cost_usd", sa.Float(), nullable=True),
        sa.Column("outcome", sa.String(32), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_llm_calls"),
    )
    op.create_index("ix_llm_calls_case_id_at", "llm_calls", ["case_id", "at"])
    op.create_index("ix_llm_calls_outcome", "llm_calls", ["outcome"])
    op.create_index("ix_llm_calls_at", "llm_calls", ["at"])


def downgrade() -> None:
    """Drop ``llm_calls``."""
    op.drop_table("llm_calls")
