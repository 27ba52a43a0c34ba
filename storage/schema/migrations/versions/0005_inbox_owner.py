"""Inbox items remember which worker instance holds them (several replicas, restarts).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``inbox.locked_by``."""
    op.add_column("inbox", sa.Column("locked_by", sa.String(255), nullable=True))


def downgrade() -> None:
    """Drop ``inbox.locked_by``."""
    with op.batch_alter_table("inbox") as batch:
        batch.drop_column("locked_by")
