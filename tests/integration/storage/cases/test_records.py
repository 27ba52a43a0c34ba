"""Conversation messages, file records and the audit log."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from domain.errors import NotFoundError
from domain.records import AuditEntry, ConversationMessage, FileStatus, MessageRole, StoredFile
from storage import Repositories
from storage.schema.tables import CaseRow, MessageRow
from tests.integration.storage.builders import OPENER, at, new_case


def message(case_id: str, ts: str, text: str = "500s again") -> ConversationMessage:
    """A user message in the case thread."""
    return ConversationMessage(
        case_id=case_id,
        ts=ts,
        author=OPENER,
        role=MessageRole.USER,
        text=text,
        files=["file_1"],
        created_at=at(1),
    )


async def test_a_message_is_stored_once_per_ts(
    repos: Repositories, sessions: async_sessionmaker[AsyncSession]
) -> None:
    case = await repos.cases.add(new_case())

    assert await repos.messages.add(message(case.case_id, "1700000001.000100")) is True
    assert await repos.messages.add(message(case.case_id, "1700000001.000100", "dup")) is False

    async with sessions() as session:
        assert await session.scalar(select(func.count()).select_from(MessageRow)) == 1
    stored = await repos.messages.list_for_case(case.case_id)
    assert stored == [message(case.case_id, "1700000001.000100")]
    assert await repos.messages.add(message(case.case_id, "1700000001.000200")) is True


async def test_the_same_ts_in_another_case_is_a_different_message(repos: Repositories) -> None:
    first = await repos.cases.add(new_case(thread_ts="1.1"))
    second = await repos.cases.add(new_case(thread_ts="1.2"))
    assert await repos.messages.add(message(first.case_id, "5.5"))
    assert await repos.messages.add(message(second.case_id, "5.5"))


async def test_messages_list_oldest_first_and_limit_keeps_the_newest(
    repos: Repositories,
) -> None:
    case = await repos.cases.add(new_case())
    for ts in ("1700000003.000000", "1700000001.000000", "1700000002.000000"):
        await repos.messages.add(message(case.case_id, ts, text=ts))

    every = [m.ts for m in await repos.messages.list_for_case(case.case_id)]
    newest = [m.ts for m in await repos.messages.list_for_case(case.case_id, limit=2)]

    assert every == ["1700000001.000000", "1700000002.000000", "1700000003.000000"]
    assert newest == ["1700000002.000000", "1700000003.000000"]


async def test_a_message_for_an_unknown_case_is_refused(repos: Repositories) -> None:
    with pytest.raises(NotFoundError):
        await repos.messages.add(message("case_missing", "1.0"))


async def test_deleting_a_case_removes_its_messages_but_not_its_audit(
    repos: Repositories, sessions: async_sessionmaker[AsyncSession]
) -> None:
    case = await repos.cases.add(new_case())
    await repos.messages.add(message(case.case_id, "1.0"))
    await repos.audit.record(
        AuditEntry(team_id="T1", case_id=case.case_id, actor=OPENER, action="x", source="console")
    )

    async with sessions.begin() as session:
        await session.delete(await session.get_one(CaseRow, case.case_id))

    assert await repos.messages.list_for_case(case.case_id) == []
    assert len(await repos.audit.list_for_case(case.case_id)) == 1


def stored_file(case_id: str, file_id: str = "file_1", minute: int = 1) -> StoredFile:
    """A received upload."""
    return StoredFile(
        file_id=file_id,
        case_id=case_id,
        filename="app.log",
        size_bytes=2048,
        source_ref="F0123",
        sha256="a" * 64,
        uploaded_by=OPENER,
        created_at=at(minute),
    )


async def test_file_records_are_added_updated_and_listed(repos: Repositories) -> None:
    case = await repos.cases.add(new_case())
    record = stored_file(case.case_id)
    await repos.files.add(stored_file(case.case_id, "file_2", minute=5))
    await repos.files.add(record)

    ingested = record.model_copy(
        update={"status": FileStatus.INGESTED, "line_count": 120, "redactions": 2}
    )
    await repos.files.update(ingested)

    assert await repos.files.get("file_1") == ingested
    assert [f.file_id for f in await repos.files.list_for_case(case.case_id)] == [
        "file_1",
        "file_2",
    ]


async def test_missing_file_records_are_not_found(repos: Repositories) -> None:
    with pytest.raises(NotFoundError):
        await repos.files.get("file_missing")
    with pytest.raises(NotFoundError):
        await repos.files.update(stored_file("case_missing"))
    with pytest.raises(NotFoundError):
        await repos.files.add(stored_file("case_missing"))


async def test_audit_entries_list_oldest_first_with_their_ids(repos: Repositories) -> None:
    late = AuditEntry(
        team_id="T1",
        case_id="case_x",
        actor=OPENER,
        action="button",
        detail={"action_id": "confirm_yes", "values": [1, 2]},
        source="slack:button",
        at=at(10),
    )
    early = late.model_copy(update={"action": "command", "source": "slack:command", "at": at(1)})
    await repos.audit.record(late)
    await repos.audit.record(early)
    await repos.audit.record(early.model_copy(update={"case_id": "case_other"}))

    entries = await repos.audit.list_for_case("case_x")

    assert [e.action for e in entries] == ["command", "button"]
    assert all(e.entry_id is not None for e in entries)
    assert entries[1].model_copy(update={"entry_id": None}) == late


async def test_several_messages_are_stored_at_once_skipping_stored_ones(
    repos: Repositories,
) -> None:
    case = await repos.cases.add(new_case())
    first, second, third = (message(case.case_id, f"1700000001.00000{n}") for n in (1, 2, 3))

    assert await repos.messages.add_many([first, second]) == 2
    assert await repos.messages.add_many([second, third]) == 1

    stored = await repos.messages.list_for_case(case.case_id)
    assert [m.ts for m in stored] == [first.ts, second.ts, third.ts]


async def test_audit_entries_written_together_keep_their_order(repos: Repositories) -> None:
    first = AuditEntry(
        team_id="T1",
        case_id="case_x",
        actor="faultmaven",
        action="case.opened",
        detail={"ts": "1.1"},
        source="system",
        at=at(1),
    )
    second = first.model_copy(update={"action": "confirmation.answered"})

    await repos.audit.record_many([first, second])

    entries = await repos.audit.list_for_case("case_x")
    assert [e.action for e in entries] == ["case.opened", "confirmation.answered"]


async def test_the_audit_log_says_whether_a_workspace_did_something_since_a_moment(
    repos: Repositories,
) -> None:
    entry = AuditEntry(
        team_id="T1", actor="faultmaven", action="budget.day_reached", source="system", at=at(10)
    )
    await repos.audit.record(entry)

    assert await repos.audit.recorded_since("T1", "budget.day_reached", since=at(10))
    assert not await repos.audit.recorded_since("T1", "budget.day_reached", since=at(11))
    assert not await repos.audit.recorded_since("T2", "budget.day_reached", since=at(0))
    assert not await repos.audit.recorded_since("T1", "budget.case_reached", since=at(0))
