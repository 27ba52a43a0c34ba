"""The bot's messages of each case in one table (they were in three places).

Where the bot posted a case's header, placeholders, questions, workflow offers and shared files
was kept in the confirmations (``surface_ref``), in the remediation strategies (``surface_ref``)
and in audit-log entries that the scorer then had to leave out. Now ``posted_messages`` holds
them all; the old columns go and the audit log keeps only what happened.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-26
"""

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

POSTED = sa.table(
    "posted_messages",
    sa.column("case_id", sa.String),
    sa.column("kind", sa.String),
    sa.column("key", sa.String),
    sa.column("channel_id", sa.String),
    sa.column("ts", sa.String),
    sa.column("posted_at", sa.DateTime(timezone=True)),
)
AUDIT = sa.table(
    "audit_log",
    sa.column("id", sa.BigInteger),
    sa.column("case_id", sa.String),
    sa.column("action", sa.String),
    sa.column("detail", sa.JSON),
    sa.column("at", sa.DateTime(timezone=True)),
)
CASES = sa.table(
    "cases",
    sa.column("case_id", sa.String),
    sa.column("channel_id", sa.String),
    sa.column("document", sa.JSON),
)
REFS_IN_AUDIT = {
    "slack.header_posted": ("header", None),
    "slack.placeholder_posted": ("placeholder", "work"),
    "scoring.file_shared": ("score_file", "score_id"),
}


def upgrade() -> None:
    """Create ``posted_messages``, move every reference into it, drop the old places."""
    op.create_table(
        "posted_messages",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("case_id", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("channel_id", sa.String(64), nullable=False),
        sa.Column("ts", sa.String(64), nullable=True),
        sa.Column("body", sa.JSON(), nullable=True),
        sa.Column("posted_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_posted_messages"),
        sa.ForeignKeyConstraint(
            ["case_id"],
            ["cases.case_id"],
            name="fk_posted_messages_case_id_cases",
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint("case_id", "kind", "key", name="uq_posted_messages_case_id_kind_key"),
    )
    bind = op.get_bind()
    channels = {row.case_id: row.channel_id for row in bind.execute(sa.select(CASES))}
    rows = _from_columns(bind, channels) + _from_audit(bind, channels)
    unique = {(r["case_id"], r["kind"], r["key"]): r for r in rows}
    if unique:
        op.bulk_insert(POSTED, list(unique.values()))
    bind.execute(sa.delete(AUDIT).where(AUDIT.c.action.in_(list(REFS_IN_AUDIT))))
    _strip_document_refs(bind)
    with op.batch_alter_table("pending_confirmations") as batch:
        batch.drop_column("surface_ref")
    with op.batch_alter_table("remediation_strategies") as batch:
        batch.drop_column("surface_ref")


def _from_columns(bind: sa.Connection, channels: dict[str, str]) -> list[dict[str, Any]]:
    now = datetime.now(UTC)
    found = []
    for table, key, kind in (
        ("pending_confirmations", "confirmation_id", "prompt"),
        ("remediation_strategies", "strategy_id", "strategy"),
    ):
        query = sa.text(f"SELECT case_id, {key}, surface_ref FROM {table}")  # noqa: S608
        for case_id, ident, ts in bind.execute(query):
            if ts and case_id in channels:
                found.append(_row(case_id, kind, ident, channels[case_id], ts, now))
    return found


def _from_audit(bind: sa.Connection, channels: dict[str, str]) -> list[dict[str, Any]]:
    query = sa.select(AUDIT).where(AUDIT.c.action.in_(list(REFS_IN_AUDIT))).order_by(AUDIT.c.id)
    found = []
    for entry in bind.execute(query):
        kind, key_field = REFS_IN_AUDIT[entry.action]
        detail = entry.detail or {}
        if entry.case_id not in channels:
            continue
        key = str(detail.get(key_field, "")) if key_field else ""
        ts = detail.get("ts")
        at = entry.at if entry.at.tzinfo else entry.at.replace(tzinfo=UTC)
        found.append(_row(entry.case_id, kind, key, channels[entry.case_id], ts, at))
    return found


def _row(case_id: str, kind: str, key: str, channel: str, ts: Any, at: datetime) -> dict[str, Any]:
    return {
        "case_id": case_id,
        "kind": kind,
        "key": key,
        "channel_id": channel,
        "ts": str(ts) if ts else None,
        "posted_at": at,
    }


def _strip_document_refs(bind: sa.Connection) -> None:
    """The case documents' confirmations carried ``surface_ref`` too; the model no longer has it."""
    for row in bind.execute(sa.select(CASES)):
        document = dict(row.document or {})
        confirmations = document.get("confirmations") or []
        if not any("surface_ref" in c for c in confirmations):
            continue
        document["confirmations"] = [
            {k: v for k, v in c.items() if k != "surface_ref"} for c in confirmations
        ]
        bind.execute(
            sa.update(CASES).where(CASES.c.case_id == row.case_id).values(document=document)
        )


def downgrade() -> None:
    """Bring the old columns back (empty) and drop ``posted_messages``."""
    with op.batch_alter_table("remediation_strategies") as batch:
        batch.add_column(sa.Column("surface_ref", sa.String(64), nullable=True))
    with op.batch_alter_table("pending_confirmations") as batch:
        batch.add_column(sa.Column("surface_ref", sa.String(255), nullable=True))
    op.drop_table("posted_messages")
