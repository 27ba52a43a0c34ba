"""Finished cases are graded once when saved, and a grading that fails never fails the save."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from bot.services.cases import CaseStore
from bot.services.outcomes import FinishedCases, OutcomeService
from domain.case import Case
from domain.errors import VersionConflictError
from domain.lifecycle.confirmations import PendingConfirmation, StatusChangePayload
from domain.lifecycle.proposals import propose
from domain.lifecycle.status import CaseStatus, ClosureReason
from domain.llm import LLMCallRecord
from domain.outcomes import ConclusionFeedback, Outcome, Verdict
from domain.records import AuditEntry
from tests.fakes.clock import FakeClock
from tests.fakes.knowledge import FakeKnowledge
from tests.unit.domain.builders import NOW, answer_yes, investigating_case


@dataclass
class MemoryCases:
    """Cases by id; ``save`` keeps the latest, with the audit entries saved alongside it;
    ``conflicts`` saves fail with a version conflict first."""

    saved: dict[str, Case] = field(default_factory=dict)
    audited: list[AuditEntry] = field(default_factory=list)
    conflicts: int = 0

    async def add(self, case: Case) -> Case:
        self.saved[case.case_id] = case
        return case

    async def get(self, case_id: str) -> Case:
        return self.saved[case_id]

    async def get_by_thread(self, team_id: str, channel_id: str, thread_ts: str) -> Case | None:
        return None

    async def get_by_short_id(self, team_id: str, short_id: str) -> Case | None:
        return None

    async def save(self, case: Case, *, audit: Sequence[AuditEntry] = ()) -> Case:
        if self.conflicts:
            self.conflicts -= 1
            raise VersionConflictError("someone saved first")
        self.saved[case.case_id] = case
        self.audited.extend(audit)
        return case

    async def list_cases(
        self,
        team_id: str,
        *,
        open_only: bool = True,
        user_id: str | None = None,
        channel_id: str | None = None,
        limit: int = 20,
    ) -> list[Case]:
        return list(self.saved.values())[:limit]

    async def find_confirmation(
        self, team_id: str, confirmation_id: str
    ) -> tuple[str, PendingConfirmation] | None:
        return None


@dataclass
class MemoryOutcomes:
    """Outcomes by case; ``broken`` makes every write fail like a database that is down."""

    kept: dict[str, Outcome] = field(default_factory=dict)
    writes: int = 0
    broken: bool = False

    async def record(self, outcome: Outcome) -> None:
        if self.broken:
            raise ConnectionError("database unreachable")
        self.writes += 1
        self.kept[outcome.case_id] = outcome

    async def get(self, case_id: str) -> Outcome | None:
        return self.kept.get(case_id)

    async def list_recent(self, team_id: str, *, limit: int) -> list[Outcome]:
        return sorted(self.kept.values(), key=lambda o: o.finished_at, reverse=True)[:limit]


class NoFeedback:
    async def record(self, feedback: ConclusionFeedback) -> None:
        raise AssertionError("not rated here")

    async def list_for_case(self, case_id: str) -> list[ConclusionFeedback]:
        return []


class NoCalls:
    async def record(self, record: LLMCallRecord) -> None:
        raise AssertionError("no calls here")

    async def list_for_case(self, case_id: str) -> list[LLMCallRecord]:
        return []


def wired(
    outcomes: MemoryOutcomes, knowledge: FakeKnowledge | None = None
) -> tuple[MemoryCases, CaseStore]:
    service = OutcomeService(
        outcomes=outcomes, feedback=NoFeedback(), llm_calls=NoCalls(), clock=FakeClock()
    )
    inner = MemoryCases()
    return inner, CaseStore(inner, finished=FinishedCases(service, knowledge))


class BrokenKnowledge(FakeKnowledge):
    async def delete_case_evidence(self, *, team_id: str, case_id: str) -> int:
        raise OSError("object store unreachable")


async def closed_copy(case: Case) -> tuple[Case, None]:
    """A step closing a copy of the case (the case itself stays as it was)."""
    return closed(case.model_copy(deep=True)), None


def closed(case: Case) -> Case:
    payload = StatusChangePayload(to_status=CaseStatus.CLOSED, closure_reason=ClosureReason.OTHER)
    answer_yes(case, propose(case, payload, now=NOW))
    return case


async def test_a_case_saved_finished_is_graded_once() -> None:
    outcomes = MemoryOutcomes()
    inner, cases = wired(outcomes)
    case = investigating_case()

    await cases.save(case)
    assert outcomes.kept == {}

    await cases.save(closed(case))
    await cases.save(case)

    assert outcomes.writes == 1
    assert outcomes.kept[case.case_id].verdict is Verdict.NO_OUTCOME
    assert inner.saved[case.case_id].status is CaseStatus.CLOSED


async def test_a_grading_that_fails_leaves_the_save_done() -> None:
    outcomes = MemoryOutcomes(broken=True)
    inner, cases = wired(outcomes)
    case = closed(investigating_case())

    saved = await cases.save(case)

    assert saved.status is CaseStatus.CLOSED
    assert inner.saved[case.case_id] is case
    assert outcomes.kept == {}


async def test_the_summary_covers_only_the_last_outcomes() -> None:
    outcomes = MemoryOutcomes()
    service = OutcomeService(
        outcomes=outcomes, feedback=NoFeedback(), llm_calls=NoCalls(), clock=FakeClock()
    )
    for case in (closed(investigating_case()), closed(investigating_case())):
        await service.grade(case)

    summary = await service.summary("T1", last=1)

    assert summary.considered == 1
    assert summary.verdicts[Verdict.NO_OUTCOME] == 1


async def test_a_finished_case_forgets_its_uploaded_evidence_and_an_open_one_keeps_it() -> None:
    knowledge = FakeKnowledge()
    _, cases = wired(MemoryOutcomes(), knowledge)
    case = investigating_case()
    knowledge.case[(case.team_id, case.case_id)] = ["pool exhausted at 14:05"]

    await cases.save(case)
    kept = dict(knowledge.case)
    await cases.save(closed(case))

    assert kept == {(case.team_id, case.case_id): ["pool exhausted at 14:05"]}
    assert knowledge.case == {}


async def test_evidence_that_cannot_be_deleted_leaves_the_save_and_the_grade_done() -> None:
    outcomes = MemoryOutcomes()
    inner, cases = wired(outcomes, BrokenKnowledge())
    case = closed(investigating_case())

    saved = await cases.save(case)

    assert saved.status is CaseStatus.CLOSED
    assert inner.saved[case.case_id] is case
    assert outcomes.writes == 1


async def test_a_case_finished_after_a_version_conflict_is_graded_once_the_save_succeeds() -> None:
    outcomes, knowledge = MemoryOutcomes(), FakeKnowledge()
    inner, cases = wired(outcomes, knowledge)
    case = investigating_case()
    knowledge.case[(case.team_id, case.case_id)] = []
    inner.conflicts = 1
    inner.saved[case.case_id] = case.model_copy(deep=True)

    saved, _ = await cases.update(case, closed_copy)

    assert saved.status is CaseStatus.CLOSED
    assert outcomes.writes == 1
    assert knowledge.case == {}


async def test_a_case_saved_open_is_neither_graded_nor_forgets_its_evidence() -> None:
    outcomes, knowledge = MemoryOutcomes(), FakeKnowledge()
    _, cases = wired(outcomes, knowledge)
    case = investigating_case()
    knowledge.case[(case.team_id, case.case_id)] = []

    await cases.change(case, lambda _: None)

    assert outcomes.kept == {}
    assert (case.team_id, case.case_id) in knowledge.case


async def test_a_change_s_audit_entries_are_saved_with_it_made_from_the_saved_case() -> None:
    inner, cases = wired(MemoryOutcomes())
    case = investigating_case()
    inner.saved[case.case_id] = case
    inner.conflicts = 1

    def entry(changed: Case) -> list[AuditEntry]:
        return [
            AuditEntry(
                team_id=changed.team_id,
                case_id=changed.case_id,
                actor="U1",
                action="case.noted",
                detail={"status": changed.status.value},
                source="slack:button",
                at=NOW,
            )
        ]

    await cases.update(case, closed_copy, audit=entry)

    (audited,) = inner.audited
    assert audited.detail == {"status": CaseStatus.CLOSED.value}


async def test_a_conflict_on_every_attempt_fails_the_change_and_settles_nothing() -> None:
    outcomes = MemoryOutcomes()
    inner, cases = wired(outcomes)
    case = investigating_case()
    inner.saved[case.case_id] = case
    inner.conflicts = 99

    with pytest.raises(VersionConflictError):
        await cases.update(case, closed_copy, audit=lambda _: [])

    assert outcomes.kept == {}
    assert inner.audited == []
