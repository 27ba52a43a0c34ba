"""Case repository: round trips, optimistic versions, identity, confirmations and audit."""

from __future__ import annotations

import asyncio
import re

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from domain.case import Case
from domain.errors import DuplicateCaseError, NotFoundError, VersionConflictError
from domain.lifecycle.confirmations import (
    ConfirmationKind,
    ConfirmationState,
    Decision,
    StatusChangePayload,
)
from domain.lifecycle.decisions import answer
from domain.lifecycle.proposals import propose
from domain.lifecycle.status import CaseStatus
from domain.records import AuditEntry
from storage import Repositories, cases
from storage.schema.tables import CaseRow
from tests.integration.storage.builders import (
    HELPER,
    OPENER,
    at,
    full_case,
    new_case,
    start_investigating,
    triaged,
)

SHORT_ID = re.compile(r"^FM-[0-9ABCDEFGHJKMNPQRSTVWXYZ]{4}$")


async def test_a_fully_populated_case_reads_back_equal(repos: Repositories) -> None:
    case = full_case()
    assert {c.kind for c in case.confirmations} >= {
        ConfirmationKind.PROBLEM_STATEMENT,
        ConfirmationKind.PATH_CHOICE,
        ConfirmationKind.REFUTATION,
        ConfirmationKind.SOLUTION_APPLIED,
        ConfirmationKind.STATUS_CHANGE,
        ConfirmationKind.DELIVERABLES,
    }

    stored = await repos.cases.add(case)
    loaded = await repos.cases.get(case.case_id)

    assert loaded == stored
    assert loaded.model_dump(mode="json") == stored.model_dump(mode="json")
    assert list(loaded.hypotheses) == list(case.hypotheses), "hypothesis order is kept"
    assert loaded.created_at.tzinfo is not None
    assert stored.model_copy(update={"short_id": "", "version": 0}) == case


async def test_add_assigns_a_short_id_and_version_one(repos: Repositories) -> None:
    case = new_case()

    stored = await repos.cases.add(case)

    assert SHORT_ID.match(stored.short_id)
    assert stored.version == 1
    assert (case.short_id, case.version) == ("", 0), "the caller's object is left alone"
    assert await repos.cases.get_by_short_id("T1", stored.short_id.lower()) == stored
    assert await repos.cases.get_by_short_id("T2", stored.short_id) is None


async def test_short_ids_are_unique_and_a_collision_is_retried(
    repos: Repositories, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = await repos.cases.add(new_case(thread_ts="1.1"))
    proposals = iter([first.short_id, first.short_id, "FM-ZZZZ"])
    monkeypatch.setattr(cases, "new_short_id", lambda: next(proposals))

    second = await repos.cases.add(new_case(thread_ts="1.2"))

    assert second.short_id == "FM-ZZZZ"
    assert (await repos.cases.get(second.case_id)).short_id == "FM-ZZZZ"


async def test_many_cases_get_distinct_well_formed_short_ids(repos: Repositories) -> None:
    stored = [await repos.cases.add(new_case(thread_ts=f"2.{n}")) for n in range(30)]
    short_ids = [case.short_id for case in stored]
    assert len(set(short_ids)) == len(short_ids)
    assert all(SHORT_ID.match(short_id) for short_id in short_ids)


async def test_a_second_case_for_the_same_thread_is_refused(
    repos: Repositories, sessions: async_sessionmaker[AsyncSession]
) -> None:
    await repos.cases.add(new_case())

    with pytest.raises(DuplicateCaseError):
        await repos.cases.add(new_case())
    async with sessions() as session:
        assert await session.scalar(select(func.count()).select_from(CaseRow)) == 1

    other_thread = await repos.cases.add(new_case(thread_ts="1700000000.999999"))
    assert other_thread.short_id


async def test_unknown_cases_are_not_found(repos: Repositories) -> None:
    with pytest.raises(NotFoundError):
        await repos.cases.get("case_missing")
    with pytest.raises(NotFoundError):
        await repos.cases.save(new_case())
    assert await repos.cases.get_by_thread("T1", "C1", "nope") is None


async def test_get_by_thread_finds_the_case(repos: Repositories) -> None:
    stored = await repos.cases.add(new_case(channel_id="C9", thread_ts="9.9"))
    assert await repos.cases.get_by_thread("T1", "C9", "9.9") == stored
    assert await repos.cases.get_by_thread("T2", "C9", "9.9") is None


async def test_save_bumps_the_version(repos: Repositories) -> None:
    stored = await repos.cases.add(new_case())
    stored.title = "payments 500s after release 3"

    saved = await repos.cases.save(stored)

    assert saved.version == 2
    assert await repos.cases.get(stored.case_id) == saved


async def test_a_stale_save_is_refused_and_writes_nothing(repos: Repositories) -> None:
    case_id = (await repos.cases.add(triaged(new_case()))).case_id
    mine = await repos.cases.get(case_id)
    theirs = await repos.cases.get(case_id)
    mine.title = "first writer"
    first = await repos.cases.save(mine)

    theirs.title = "second writer"
    start_investigating(theirs)
    with pytest.raises(VersionConflictError):
        await repos.cases.save(theirs)

    assert await repos.cases.get(case_id) == first
    assert await repos.audit.list_for_case(case_id) == []
    assert (
        await repos.cases.find_confirmation("T1", theirs.confirmations[0].confirmation_id) is None
    )


async def test_confirmations_are_mirrored_and_found_by_id(repos: Repositories) -> None:
    case = await repos.cases.add(full_case())

    for confirmation in case.confirmations:
        found = await repos.cases.find_confirmation("T1", confirmation.confirmation_id)
        assert found == (case.case_id, confirmation)
    some_id = case.confirmations[0].confirmation_id
    assert await repos.cases.find_confirmation("T_OTHER", some_id) is None
    assert await repos.cases.find_confirmation("T1", "cf_missing") is None


async def test_answering_a_confirmation_updates_its_mirror(repos: Repositories) -> None:
    case = await repos.cases.add(triaged(new_case()))
    confirmation = start_investigating(case)
    case = await repos.cases.save(case)
    found = await repos.cases.find_confirmation("T1", confirmation.confirmation_id)
    assert found is not None
    assert found[1].state is ConfirmationState.ACCEPTED
    assert found[1].answered_by == OPENER
    assert found[1].decision is Decision.YES


async def test_status_transitions_are_audited_once(repos: Repositories) -> None:
    case = await repos.cases.add(triaged(new_case()))
    confirmation = start_investigating(case, minute=5)
    case = await repos.cases.save(case)
    case.title = "no status change in this save"
    case = await repos.cases.save(case)

    entries = await repos.audit.list_for_case(case.case_id)

    assert len(entries) == 1
    entry = entries[0]
    assert entry.action == "status_change"
    assert entry.actor == OPENER
    assert entry.source == "system"
    assert entry.team_id == "T1"
    assert entry.at == at(5)
    assert entry.detail == {
        "from": "consulting",
        "to": "investigating",
        "reason": case.status_history[0].reason,
        "confirmation_id": confirmation.confirmation_id,
    }


def answered_entry(case: Case, confirmation_id: str) -> AuditEntry:
    """What a click's answer writes down with the case it changed."""
    return AuditEntry(
        team_id=case.team_id,
        case_id=case.case_id,
        actor=OPENER,
        action="confirmation.answered",
        detail={"confirmation_id": confirmation_id, "decision": "yes"},
        source="slack:button",
        at=at(6),
    )


async def test_a_change_s_audit_entries_are_saved_with_it_after_its_transitions(
    repos: Repositories,
) -> None:
    case = await repos.cases.add(triaged(new_case()))
    confirmation = start_investigating(case, minute=5)

    await repos.cases.save(case, audit=[answered_entry(case, confirmation.confirmation_id)])

    entries = await repos.audit.list_for_case(case.case_id)
    assert [(e.action, e.actor, e.source) for e in entries] == [
        ("status_change", OPENER, "system"),
        ("confirmation.answered", OPENER, "slack:button"),
    ]
    assert entries[1].detail == {
        "confirmation_id": confirmation.confirmation_id,
        "decision": "yes",
    }
    assert entries[1].at == at(6)


async def test_a_stale_save_writes_none_of_its_audit_entries(repos: Repositories) -> None:
    case_id = (await repos.cases.add(triaged(new_case()))).case_id
    mine = await repos.cases.get(case_id)
    theirs = await repos.cases.get(case_id)
    mine.title = "first writer"
    await repos.cases.save(mine)

    confirmation = start_investigating(theirs)
    with pytest.raises(VersionConflictError):
        await repos.cases.save(theirs, audit=[answered_entry(theirs, confirmation.confirmation_id)])

    assert await repos.audit.list_for_case(case_id) == []


async def test_a_case_added_with_history_is_audited(repos: Repositories) -> None:
    case = await repos.cases.add(full_case())
    entries = await repos.audit.list_for_case(case.case_id)
    assert [(e.detail["from"], e.detail["to"]) for e in entries] == [
        ("consulting", "investigating"),
        ("investigating", "resolved"),
    ]


async def test_list_cases_filters_and_orders_newest_first(repos: Repositories) -> None:
    oldest = new_case(thread_ts="3.1")
    oldest.created_at = at(-10)
    helped = new_case(thread_ts="3.2")
    helped.user_id = "U_SOMEONE"
    helped.participants = [HELPER]
    closed = triaged(new_case(thread_ts="3.3"))
    closed.created_at = at(10)
    other_team = new_case(team_id="T2", thread_ts="3.4")
    for case in (oldest, helped, closed, other_team):
        await repos.cases.add(case)
    closed = await repos.cases.get(closed.case_id)
    close = propose(closed, StatusChangePayload(to_status=CaseStatus.CLOSED), now=at(11))
    answer(closed, close.confirmation_id, by=OPENER, decision=Decision.YES, now=at(11))
    await repos.cases.save(closed)

    def ids(found: list[Case]) -> list[str]:
        return [case.case_id for case in found]

    assert ids(await repos.cases.list_cases("T1")) == [helped.case_id, oldest.case_id]
    everything = await repos.cases.list_cases("T1", open_only=False)
    assert ids(everything) == [closed.case_id, helped.case_id, oldest.case_id]
    assert ids(await repos.cases.list_cases("T1", user_id=HELPER)) == [helped.case_id]
    assert ids(await repos.cases.list_cases("T1", user_id=OPENER)) == [oldest.case_id]
    assert ids(await repos.cases.list_cases("T1", open_only=False, limit=1)) == [closed.case_id]
    assert ids(await repos.cases.list_cases("T2")) == [other_team.case_id]


async def test_answering_through_the_domain_then_saving_round_trips(repos: Repositories) -> None:
    case = await repos.cases.add(full_case())
    deliverables = case.pending_confirmations()[0]
    answer(case, deliverables.confirmation_id, by=OPENER, decision=Decision.NO, now=at(70))

    saved = await repos.cases.save(case)

    assert await repos.cases.get(case.case_id) == saved
    found = await repos.cases.find_confirmation("T1", deliverables.confirmation_id)
    assert found is not None
    assert found[1].state is ConfirmationState.REJECTED


async def test_of_two_concurrent_saves_exactly_one_wins(repos: Repositories) -> None:
    case_id = (await repos.cases.add(new_case())).case_id
    copies = [await repos.cases.get(case_id) for _ in range(2)]
    for n, copy in enumerate(copies):
        copy.title = f"writer {n}"

    outcomes = await asyncio.gather(
        *(repos.cases.save(copy) for copy in copies), return_exceptions=True
    )

    winners = [o for o in outcomes if isinstance(o, Case)]
    assert len(winners) == 1
    assert sum(isinstance(o, VersionConflictError) for o in outcomes) == 1
    assert await repos.cases.get(case_id) == winners[0]
