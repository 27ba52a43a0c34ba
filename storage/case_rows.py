"""Mapping between the case aggregate and its rows: document, confirmation mirror, audit."""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from domain.case import Case
from domain.lifecycle.confirmations import PendingConfirmation
from domain.lifecycle.status import CaseStatusTransition
from domain.records import AuditEntry
from storage.schema.tables import AuditRow, CaseRow, ConfirmationRow

CROCKFORD_BASE32 = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
SHORT_ID_PREFIX = "FM-"
SHORT_ID_LENGTH = 4


def new_short_id() -> str:
    """A random human case id such as FM-7K3Q (Crockford base32: no I, L, O or U)."""
    suffix = "".join(secrets.choice(CROCKFORD_BASE32) for _ in range(SHORT_ID_LENGTH))
    return SHORT_ID_PREFIX + suffix


def case_row(case: Case) -> CaseRow:
    """A new row holding the case."""
    return CaseRow(
        case_id=case.case_id,
        team_id=case.team_id,
        channel_id=case.channel_id,
        thread_ts=case.thread_ts,
        short_id=case.short_id,
        status=case.status.value,
        version=case.version,
        document=case.model_dump(mode="json"),
        created_at=case.created_at,
        updated_at=case.updated_at,
    )


def to_case(row: CaseRow) -> Case:
    """The domain model; the columns storage maintains win over the document's copies."""
    return Case.model_validate({**row.document, "version": row.version, "short_id": row.short_id})


def confirmation_values(case_id: str, confirmation: PendingConfirmation) -> dict[str, Any]:
    """Column values mirroring one confirmation."""
    return {
        "confirmation_id": confirmation.confirmation_id,
        "case_id": case_id,
        "kind": confirmation.kind.value,
        "state": confirmation.state.value,
        "payload": confirmation.payload.model_dump(mode="json"),
        "answerable_by": list(confirmation.answerable_by),
        "prompt": confirmation.prompt,
        "proposed_at": confirmation.proposed_at,
        "proposed_by": confirmation.proposed_by,
        "proposed_at_turn": confirmation.proposed_at_turn,
        "answered_at": confirmation.answered_at,
        "answered_by": confirmation.answered_by,
        "decision": confirmation.decision.value if confirmation.decision else None,
    }


def to_confirmation(row: ConfirmationRow) -> PendingConfirmation:
    """The domain model of a mirrored confirmation."""
    return PendingConfirmation.model_validate(
        {
            "confirmation_id": row.confirmation_id,
            "payload": row.payload,
            "prompt": row.prompt,
            "answerable_by": row.answerable_by,
            "state": row.state,
            "proposed_at": row.proposed_at,
            "proposed_by": row.proposed_by,
            "proposed_at_turn": row.proposed_at_turn,
            "answered_at": row.answered_at,
            "answered_by": row.answered_by,
            "decision": row.decision,
        }
    )


async def sync_confirmations(session: AsyncSession, case: Case) -> None:
    """Make the mirror rows equal ``case.confirmations``: insert new, update changed, drop gone."""
    query = select(ConfirmationRow).where(ConfirmationRow.case_id == case.case_id)
    existing = {row.confirmation_id: row for row in await session.scalars(query)}
    for confirmation in case.confirmations:
        values = confirmation_values(case.case_id, confirmation)
        row = existing.pop(confirmation.confirmation_id, None)
        if row is None:
            session.add(ConfirmationRow(**values))
            continue
        for name, value in values.items():
            if getattr(row, name) != value:
                setattr(row, name, value)
    for gone in existing.values():
        await session.delete(gone)


def transition_audit_rows(
    case: Case, *, already_recorded: list[CaseStatusTransition]
) -> list[AuditRow]:
    """Audit rows for the status transitions not in the stored document yet."""
    return [
        AuditRow(
            team_id=case.team_id,
            case_id=case.case_id,
            actor=transition.triggered_by,
            action="status_change",
            detail={
                "from": transition.from_status.value,
                "to": transition.to_status.value,
                "reason": transition.reason,
                "confirmation_id": transition.confirmation_id,
            },
            source="system",
            at=transition.triggered_at,
        )
        for transition in case.status_history
        if transition not in already_recorded
    ]


def audit_row(entry: AuditEntry) -> AuditRow:
    """A new row holding one audit entry (its id is assigned by the database)."""
    return AuditRow(
        team_id=entry.team_id,
        case_id=entry.case_id,
        actor=entry.actor,
        action=entry.action,
        detail=entry.detail,
        source=entry.source,
        at=entry.at,
    )


def recorded_transitions(document: dict[str, Any]) -> list[CaseStatusTransition]:
    """The status history a stored document holds."""
    return [CaseStatusTransition.model_validate(t) for t in document.get("status_history", [])]
