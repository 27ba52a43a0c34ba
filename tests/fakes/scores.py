"""In-memory scoring ports: a ScoreRepository with the SQL one's rules, material and an observer."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from domain.case import Case
from domain.errors import NotFoundError, ScoringInProgressError
from domain.records import AuditEntry, ConversationMessage
from domain.scoring.model import ScoringStatus, SessionScore
from domain.scoring.transcript import CaseMaterial


@dataclass
class MemoryScores:
    """ScoreRepository in memory: one active scoring per case, every scoring kept."""

    rows: dict[str, SessionScore] = field(default_factory=dict)
    team_of: dict[str, str] = field(default_factory=dict)
    """case id → team id (the SQL repository joins the cases table)."""

    async def create(self, score: SessionScore) -> SessionScore:
        if await self.active_for_case(score.case_id) is not None:
            raise ScoringInProgressError(f"case {score.case_id} already has an active scoring")
        self.rows[score.score_id] = score
        return score

    async def get(self, score_id: str) -> SessionScore:
        if score_id not in self.rows:
            raise NotFoundError(f"no scoring {score_id}")
        return self.rows[score_id]

    async def active_for_case(self, case_id: str) -> SessionScore | None:
        active = ScoringStatus.active_values()
        return next(
            (s for s in self.rows.values() if s.case_id == case_id and s.status in active), None
        )

    async def latest_for_case(self, case_id: str) -> SessionScore | None:
        mine = [s for s in self.rows.values() if s.case_id == case_id]
        return max(mine, key=lambda s: (s.scored_at_us, s.started_at_us), default=None)

    async def update(self, score: SessionScore) -> None:
        if score.score_id not in self.rows:
            raise NotFoundError(f"no scoring {score.score_id}")
        self.rows[score.score_id] = score

    async def list_recent(
        self, team_id: str, *, below: int | None = None, limit: int = 20
    ) -> list[SessionScore]:
        done = [
            s
            for s in self.rows.values()
            if s.status is ScoringStatus.COMPLETED
            and self.team_of.get(s.case_id) == team_id
            and (below is None or (s.total_score is not None and s.total_score < below))
        ]
        done.sort(key=lambda s: (s.completed_at_us or 0, s.scored_at_us), reverse=True)
        return done[:limit]

    async def fail_orphans(self, *, reason: str, now_us: int, spare: Collection[str] = ()) -> int:
        orphans = [
            s
            for s in self.rows.values()
            if s.status in ScoringStatus.active_values() and s.score_id not in spare
        ]
        for score in orphans:
            self.rows[score.score_id] = score.model_copy(
                update={
                    "status": ScoringStatus.FAILED,
                    "error_message": reason,
                    "completed_at_us": now_us,
                }
            )
        return len(orphans)

    async def count_by_status(self, case_id: str) -> dict[ScoringStatus, int]:
        counts = dict.fromkeys(ScoringStatus, 0)
        for score in self.rows.values():
            if score.case_id == case_id:
                counts[score.status] += 1
        return counts


@dataclass
class FixedMaterial:
    """MaterialSource for one case."""

    case: Case
    conversation: Sequence[ConversationMessage] = ()
    audit: Sequence[AuditEntry] = ()

    async def load(self, case_id: str) -> CaseMaterial:
        if case_id != self.case.case_id:
            raise NotFoundError(f"no case {case_id}")
        return CaseMaterial(self.case, self.conversation, self.audit)


@dataclass
class RecordingObserver:
    """ScoringObserver that remembers every state it was shown."""

    shown: list[SessionScore] = field(default_factory=list)

    async def show(self, score: SessionScore, case: Case) -> None:
        self.shown.append(score)

    @property
    def statuses(self) -> list[tuple[ScoringStatus, str | None]]:
        """(status, phase) of each state shown, in order."""
        return [(s.status, s.phase.value if s.phase else None) for s in self.shown]
