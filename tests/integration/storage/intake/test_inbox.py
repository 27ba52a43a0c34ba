"""The durable inbox: deduplication, claiming one item per case key, failures and retries."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from sqlalchemy import func, select, text, update
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from domain.base import utc_now
from domain.queue import InboxItem, InboxStatus
from storage import Repositories
from storage.inbox import SqlInboxRepository
from storage.schema.tables import InboxRow
from tests.integration.storage.builders import at


def item(key: str, *, case_key: str | None = "T1:C1:1.0", minute: int = 0) -> InboxItem:
    """An event recorded by a listener."""
    return InboxItem(
        dedup_key=key,
        team_id="T1",
        case_key=case_key,
        kind="message",
        payload={"event_id": key, "text": "hello"},
        available_at=at(minute),
        created_at=at(minute),
    )


async def _statuses(sessions: async_sessionmaker[AsyncSession]) -> dict[str, str]:
    async with sessions() as session:
        rows = await session.execute(select(InboxRow.dedup_key, InboxRow.status))
        return {key: status for key, status in rows}


async def test_the_same_dedup_key_is_recorded_once(
    repos: Repositories, sessions: async_sessionmaker[AsyncSession]
) -> None:
    assert await repos.inbox.enqueue(item("Ev1")) is True
    assert await repos.inbox.enqueue(item("Ev1", minute=1)) is False

    async with sessions() as session:
        assert await session.scalar(select(func.count()).select_from(InboxRow)) == 1


async def test_a_burst_is_recorded_together_and_duplicates_in_it_are_told_apart(
    repos: Repositories, sessions: async_sessionmaker[AsyncSession]
) -> None:
    assert await repos.inbox.enqueue(item("Ev0")) is True
    keys = ["Ev0", *(f"Ev{n}" for n in range(1, 30)), "Ev7"]

    recorded = await asyncio.gather(*(repos.inbox.enqueue(item(key)) for key in keys))

    assert recorded == [False, *([True] * 29), False]
    assert set((await _statuses(sessions)).keys()) == {f"Ev{n}" for n in range(30)}


async def _rename(sessions: async_sessionmaker[AsyncSession], old: str, new: str) -> None:
    async with sessions() as session:
        await session.execute(text(f"ALTER TABLE {old} RENAME TO {new}"))
        await session.commit()


async def test_a_burst_that_cannot_be_written_fails_for_every_caller(
    repos: Repositories, sessions: async_sessionmaker[AsyncSession]
) -> None:
    await _rename(sessions, "inbox", "inbox_away")  # as if the database refused every write
    try:
        outcomes = await asyncio.gather(
            *(repos.inbox.enqueue(item(f"Ev{n}")) for n in range(5)), return_exceptions=True
        )
    finally:
        await _rename(sessions, "inbox_away", "inbox")

    assert all(isinstance(outcome, DBAPIError) for outcome in outcomes)
    assert await repos.inbox.enqueue(item("Ev1")) is True


async def test_claim_takes_the_oldest_item_of_each_case_key(repos: Repositories) -> None:
    await repos.inbox.enqueue(item("a2", case_key="A", minute=2))
    await repos.inbox.enqueue(item("a1", case_key="A", minute=1))
    await repos.inbox.enqueue(item("b1", case_key="B", minute=3))
    await repos.inbox.enqueue(item("n1", case_key=None, minute=4))
    await repos.inbox.enqueue(item("n2", case_key=None, minute=5))
    await repos.inbox.enqueue(item("later", case_key="C", minute=60))

    claimed = await repos.inbox.claim(now=at(10))

    assert [i.dedup_key for i in claimed] == ["a1", "b1", "n1", "n2"]
    assert all(i.status is InboxStatus.PROCESSING and i.attempts == 1 for i in claimed)
    assert claimed[0].payload == {"event_id": "a1", "text": "hello"}
    assert claimed[0].item_id is not None


async def test_a_busy_case_key_is_skipped_until_its_item_completes(repos: Repositories) -> None:
    await repos.inbox.enqueue(item("a1", case_key="A", minute=1))
    await repos.inbox.enqueue(item("a2", case_key="A", minute=2))
    (first,) = await repos.inbox.claim(now=at(10))

    assert await repos.inbox.claim(now=at(10)) == []

    assert first.item_id is not None
    await repos.inbox.complete(first.item_id)
    assert [i.dedup_key for i in await repos.inbox.claim(now=at(10))] == ["a2"]


async def test_claim_respects_the_limit(repos: Repositories) -> None:
    for n in range(5):
        await repos.inbox.enqueue(item(f"k{n}", case_key=f"K{n}", minute=n))
    assert [i.dedup_key for i in await repos.inbox.claim(now=at(10), limit=2)] == ["k0", "k1"]
    assert [i.dedup_key for i in await repos.inbox.claim(now=at(10), limit=10)] == [
        "k2",
        "k3",
        "k4",
    ]
    assert await repos.inbox.claim(now=at(10), limit=0) == []


async def test_a_failed_item_is_retried_later(
    repos: Repositories, sessions: async_sessionmaker[AsyncSession]
) -> None:
    await repos.inbox.enqueue(item("a1", case_key="A"))
    (first,) = await repos.inbox.claim(now=at(1))
    assert first.item_id is not None

    await repos.inbox.fail(first.item_id, error="LLM timeout", retry_at=at(5))

    assert await repos.inbox.claim(now=at(4)) == []
    (again,) = await repos.inbox.claim(now=at(5))
    assert again.item_id == first.item_id
    assert again.attempts == 2
    assert again.last_error == "LLM timeout"
    assert again.available_at == at(5)

    await repos.inbox.fail(first.item_id, error="still failing", retry_at=None)
    assert await _statuses(sessions) == {"a1": "failed"}
    assert await repos.inbox.claim(now=at(100)) == []


async def test_an_item_is_found_by_its_dedup_key_with_its_state(repos: Repositories) -> None:
    await repos.inbox.enqueue(item("f1", case_key="F"))
    (claimed,) = await repos.inbox.claim(now=at(1))
    assert claimed.item_id is not None
    await repos.inbox.fail(claimed.item_id, error="boom", retry_at=None)

    found = await repos.inbox.find("f1")

    assert found is not None
    assert (found.item_id, found.status, found.kind) == (
        claimed.item_id,
        InboxStatus.FAILED,
        "message",
    )
    assert found.payload == {"event_id": "f1", "text": "hello"}
    assert await repos.inbox.find("nothing") is None


async def test_a_newer_item_waits_while_an_older_one_of_its_key_is_available(
    repos: Repositories,
) -> None:
    await repos.inbox.enqueue(item("a1", case_key="A", minute=1))
    await repos.inbox.enqueue(item("a2", case_key="A", minute=2))
    (first,) = await repos.inbox.claim(now=at(3))
    assert first.item_id is not None
    await repos.inbox.fail(first.item_id, error="boom", retry_at=at(30))

    (second,) = await repos.inbox.claim(now=at(3))

    assert second.dedup_key == "a2", "a retry scheduled later does not block newer work"


async def test_stale_processing_items_are_released(
    repos: Repositories, sessions: async_sessionmaker[AsyncSession]
) -> None:
    await repos.inbox.enqueue(item("old", case_key="A"))
    await repos.inbox.enqueue(item("fresh", case_key="B"))
    (old,) = await repos.inbox.claim(now=at(0), limit=1)
    (fresh,) = await repos.inbox.claim(now=at(9), limit=1)

    released = await repos.inbox.release_stale(now=at(10), older_than=timedelta(minutes=5))

    assert released == 1
    assert await _statuses(sessions) == {"old": "pending", "fresh": "processing"}
    (again,) = await repos.inbox.claim(now=at(11))
    assert again.item_id == old.item_id
    assert again.attempts == 2
    assert fresh.dedup_key == "fresh"


async def test_each_instance_holds_its_own_items_and_keeps_them_fresh(
    repos: Repositories, sessions: async_sessionmaker[AsyncSession]
) -> None:
    for key, case_key in [("a", "A"), ("b", "B"), ("c", "C")]:
        await repos.inbox.enqueue(item(key, case_key=case_key))
    (mine,) = await repos.inbox.claim(now=at(0), limit=1, owner="host-1:/data")
    (theirs,) = await repos.inbox.claim(now=at(0), limit=1, owner="host-2:/data")
    (anonymous,) = await repos.inbox.claim(now=at(0), limit=1)
    owners = (mine.locked_by, theirs.locked_by, anonymous.locked_by)
    assert owners == ("host-1:/data", "host-2:/data", None)

    assert await repos.inbox.heartbeat(owner="host-2:/data", now=at(9)) == 1
    released = await repos.inbox.release_stale(now=at(10), older_than=timedelta(minutes=5))

    assert released == 2, "the two silent since minute 0; host-2 said it still works at minute 9"
    assert await _statuses(sessions) == {"a": "pending", "b": "processing", "c": "pending"}
    (held,) = await repos.inbox.held_elsewhere(owner="host-1:/data", since=at(5))
    assert (held.dedup_key, held.locked_by) == ("b", "host-2:/data")
    assert await repos.inbox.held_elsewhere(owner="host-2:/data", since=at(5)) == []
    assert await repos.inbox.held_elsewhere(owner="host-1:/data", since=at(10)) == []


async def test_an_instance_returns_only_its_own_items(
    repos: Repositories, sessions: async_sessionmaker[AsyncSession]
) -> None:
    await repos.inbox.enqueue(item("a", case_key="A"))
    await repos.inbox.enqueue(item("b", case_key="B"))
    await repos.inbox.claim(now=at(0), limit=1, owner="host-1:/data")
    await repos.inbox.claim(now=at(0), limit=1, owner="host-2:/data")

    assert await repos.inbox.release_owned(owner="host-1:/data", now=at(1)) == 1

    assert await _statuses(sessions) == {"a": "pending", "b": "processing"}
    (again,) = await repos.inbox.claim(now=at(2), owner="host-3:/data")
    assert (again.dedup_key, again.attempts, again.locked_by) == ("a", 2, "host-3:/data")
    assert await repos.inbox.heartbeat(owner="host-1:/data", now=at(3)) == 0


async def test_completed_items_are_never_claimed_again(
    repos: Repositories, sessions: async_sessionmaker[AsyncSession]
) -> None:
    await repos.inbox.enqueue(item("a1"))
    (first,) = await repos.inbox.claim(now=at(1))
    assert first.item_id is not None
    await repos.inbox.complete(first.item_id)

    assert await repos.inbox.claim(now=at(100)) == []
    assert await _statuses(sessions) == {"a1": "done"}


async def test_finished_items_are_deleted_once_old_enough_and_nothing_else_is(
    repos: Repositories, sessions: async_sessionmaker[AsyncSession]
) -> None:
    for key, case_key in [("done", "A"), ("failed", "B"), ("working", "C"), ("waiting", "D")]:
        await repos.inbox.enqueue(item(key, case_key=case_key))
    claimed = {i.dedup_key: i.item_id for i in await repos.inbox.claim(now=at(1), limit=3)}
    await repos.inbox.complete(claimed["done"] or 0)
    await repos.inbox.fail(claimed["failed"] or 0, error="gave up", retry_at=None)

    assert await repos.inbox.purge_finished(before=utc_now() - timedelta(days=1)) == 0
    assert await repos.inbox.purge_finished(before=utc_now() + timedelta(seconds=1)) == 2

    assert await _statuses(sessions) == {"working": "processing", "waiting": "pending"}


async def test_a_claim_refused_by_the_one_per_key_index_still_takes_what_it_can(
    repos: Repositories, sessions: async_sessionmaker[AsyncSession]
) -> None:
    # As if another replica had claimed "a1" between this one's choice and its update: the
    # choice here also takes "a2", of the same case key, which the index then refuses.
    await repos.inbox.enqueue(item("a1", case_key="A"))
    await repos.inbox.enqueue(item("a2", case_key="A", minute=1))
    await repos.inbox.enqueue(item("b1", case_key="B", minute=2))
    everything = select(InboxRow).where(InboxRow.status == "pending").order_by(InboxRow.item_id)
    racing = SqlInboxRepository(sessions, candidates=everything)

    claimed = await racing.claim(now=at(10), owner="host-1:/data")

    assert [i.dedup_key for i in claimed] == ["a1", "b1"]
    assert {i.locked_by for i in claimed} == {"host-1:/data"}


async def test_concurrent_claims_never_share_an_item_or_a_case_key(repos: Repositories) -> None:
    for n in range(12):
        await repos.inbox.enqueue(item(f"e{n}", case_key=f"K{n % 4}", minute=n))

    batches = await asyncio.gather(*(repos.inbox.claim(now=at(60)) for _ in range(4)))

    claimed = [i for batch in batches for i in batch]
    assert len({i.item_id for i in claimed}) == len(claimed)
    assert sorted(i.case_key or "" for i in claimed) == ["K0", "K1", "K2", "K3"]


async def test_the_database_allows_one_processing_item_per_case_key(
    repos: Repositories, sessions: async_sessionmaker[AsyncSession]
) -> None:
    await repos.inbox.enqueue(item("a1", case_key="A"))
    await repos.inbox.enqueue(item("a2", case_key="A"))
    await repos.inbox.enqueue(item("n1", case_key=None))
    await repos.inbox.enqueue(item("n2", case_key=None))
    await _mark_processing(sessions, ["n1", "n2"])

    with pytest.raises(IntegrityError):
        await _mark_processing(sessions, ["a1", "a2"])


async def _mark_processing(sessions: async_sessionmaker[AsyncSession], keys: list[str]) -> None:
    async with sessions.begin() as session:
        await session.execute(
            update(InboxRow).where(InboxRow.dedup_key.in_(keys)).values(status="processing")
        )
