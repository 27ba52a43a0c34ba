"""Where the bot's own messages are: the one place they are remembered, per case.

The header (the living case summary, with a fingerprint of what it shows), the reply of each piece
of work (with what it said), every question with buttons, every workflow offered, and every
scoring file shared are kept in
``posted_messages`` (`domain.ports.PostedMessageRepository`): never in the case, the remediation
table or the audit log, which keeps only what people and the bot did.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.thread.memory import Analysed, Kept, Offer, ShownReply, Summary, dump, parse
from domain.case import Case
from domain.ports import AuditRepository, Clock, PostedMessageRepository
from domain.records import AuditEntry, PostedKind, PostedMessage

OPENED = "case.opened"


class MessageRefs:
    """Reads and writes the references to the bot's messages of each case."""

    def __init__(
        self, *, posted: PostedMessageRepository, audit: AuditRepository, clock: Clock
    ) -> None:
        self._posted = posted
        self._audit = audit
        self._clock = clock

    async def find(self, case: Case, kind: PostedKind, key: str = "") -> PostedMessage | None:
        """The message of that kind and key, if there is one."""
        return await self._posted.find(case.case_id, kind, key)

    async def kept(self, case: Case, kind: PostedKind, key: str = "") -> Kept | None:
        """What the message of that kind and key was kept with, if anything."""
        found = await self.find(case, kind, key)
        return parse(found.body) if found is not None else None

    async def ts(self, case: Case, kind: PostedKind, key: str = "") -> str | None:
        """Where the message of that kind and key was posted, if it was."""
        found = await self.find(case, kind, key)
        return found.ts if found is not None else None

    async def remember(
        self,
        case: Case,
        kind: PostedKind,
        ts: str | None,
        key: str = "",
        *,
        body: Kept | None = None,
    ) -> None:
        """Keep where a message is (``ts``), or what is to be posted (``body``, no ts yet)."""
        message = PostedMessage(
            case_id=case.case_id,
            kind=kind,
            key=key,
            channel_id=case.channel_id,
            ts=ts,
            body=dump(body) if body is not None else None,
            posted_at=self._clock.now(),
        )
        await self._posted.remember(message)

    async def set_header(
        self,
        case: Case,
        ts: str,
        *,
        digest: str,
        opening: ShownReply | None = None,
        analysis: Analysed | None = None,
        offers: Sequence[Offer] = (),
    ) -> None:
        """Remember the case summary and what it shows, to edit it in place only on a change;
        with ``opening``, what was kept of the case's first answer, which shares its message;
        with ``analysis``, an alert's analysis sharing it, and its ``offers`` as drawn."""
        body = Summary(digest=digest, opening=opening, analysis=analysis, offers=list(offers))
        await self.remember(case, PostedKind.HEADER, ts, body=body)

    async def opened(self, case: Case, **detail: str) -> None:
        """Audit the opening of a case: who opened it, and how."""
        await self._audit.record(
            AuditEntry(
                team_id=case.team_id,
                case_id=case.case_id,
                actor=detail.get("opened_by", case.user_id),
                action=OPENED,
                detail=detail,
                source=detail.get("source", "system"),
                at=self._clock.now(),
            )
        )
