"""Where the bot's own messages are: the case header and the placeholders of unfinished work.

Kept in the audit log (the bot posting a message is something that happened), so a restart can
find the header to edit and correct a placeholder left behind by an interrupted turn.
"""

from __future__ import annotations

from enum import StrEnum

from domain.case import Case
from domain.ports import AuditRepository, Clock
from domain.records import AuditEntry

BOT_ACTOR = "faultmaven"
SOURCE = "system"


class RefAction(StrEnum):
    """Audit actions recording the bot's messages."""

    HEADER = "slack.header_posted"
    PLACEHOLDER = "slack.placeholder_posted"


class MessageRefs:
    """Reads and writes the bot's message references for a case."""

    def __init__(self, *, audit: AuditRepository, clock: Clock) -> None:
        self._audit = audit
        self._clock = clock
        self._headers: dict[str, str] = {}

    async def header(self, case_id: str) -> str | None:
        """The ts of the case header, if one was posted."""
        if case_id not in self._headers:
            entries = await self._audit.list_for_case(case_id)
            found = [e for e in entries if e.action == RefAction.HEADER]
            if not found:
                return None
            self._headers[case_id] = str(found[0].detail["ts"])
        return self._headers[case_id]

    async def set_header(self, case: Case, ts: str, **detail: str) -> None:
        """Remember the case header (with anything else worth auditing about the opening)."""
        self._headers[case.case_id] = ts
        await self._record(case, RefAction.HEADER, {"ts": ts, **detail})

    async def set_opening(
        self, case: Case, *, header: str, work_key: str, placeholder: str, **detail: str
    ) -> None:
        """A new case's header and first placeholder, remembered in one write."""
        self._headers[case.case_id] = header
        await self._audit.record_many(
            [
                self._entry(case, RefAction.HEADER, {"ts": header, **detail}),
                self._entry(case, RefAction.PLACEHOLDER, {"ts": placeholder, "work": work_key}),
            ]
        )

    async def open_placeholder(self, case_id: str, work_key: str) -> str | None:
        """The newest placeholder posted for this work.

        Only unfinished work asks (the worker never runs finished work again), so a placeholder
        found here was left behind by an interrupted run.
        """
        found = [
            str(entry.detail["ts"])
            for entry in await self._audit.list_for_case(case_id)
            if entry.action == RefAction.PLACEHOLDER and entry.detail.get("work") == work_key
        ]
        return found[-1] if found else None

    async def set_placeholder(self, case: Case, work_key: str, ts: str) -> None:
        """Remember a placeholder, so an interrupted run's one can be corrected."""
        await self._record(case, RefAction.PLACEHOLDER, {"ts": ts, "work": work_key})

    async def _record(self, case: Case, action: RefAction, detail: dict[str, str]) -> None:
        await self._audit.record(self._entry(case, action, detail))

    def _entry(self, case: Case, action: RefAction, detail: dict[str, str]) -> AuditEntry:
        return AuditEntry(
            team_id=case.team_id,
            case_id=case.case_id,
            actor=BOT_ACTOR,
            action=action.value,
            detail=detail,
            source=SOURCE,
            at=self._clock.now(),
        )
