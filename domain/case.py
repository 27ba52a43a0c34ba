"""The case aggregate: one Slack thread, one investigation."""

from __future__ import annotations

from datetime import timedelta

from pydantic import AwareDatetime, Field

from domain.base import DomainModel, new_id, utc_now
from domain.investigation.conclusions import (
    DeadEnd,
    RootCauseConclusion,
    Solution,
    WorkingConclusion,
)
from domain.investigation.evidence import Evidence, UploadedFile
from domain.investigation.evidence_requests import EvidenceRequest
from domain.investigation.hypotheses import Hypothesis
from domain.investigation.progress import InvestigationProgress, InvestigationStage, compute_stage
from domain.investigation.turns import TurnProgress
from domain.investigation.verification import (
    ConsultingData,
    InvestigationPath,
    PathSelection,
    ProblemVerification,
)
from domain.lifecycle.confirmations import PendingConfirmation
from domain.lifecycle.special_states import DegradedMode, DocumentationData, EscalationState
from domain.lifecycle.status import TERMINAL_STATUSES, CaseStatus, CaseStatusTransition
from domain.past_cases import SeenBefore
from domain.tools.runs import ToolRun

STUCK_AFTER_TURNS = 3
ALERT_OPENER = "alertmanager"
"""The opener of a case an alert opened: no person opened it."""


class AlertFacts(DomainModel):
    """What the alert that opened a case says of itself (not what the bot noticed)."""

    firing_since: AwareDatetime
    """The alert's own start (Alertmanager's ``startsAt``), else when it first arrived."""
    severity: str | None = None
    """The alert's severity label, as its rule wrote it (critical, warning…)."""
    resolved_at: AwareDatetime | None = None
    """When the monitoring system said it stopped firing."""


class Case(DomainModel):
    """Everything known about one investigation. Status changes only through confirmations."""

    # Identity: the Slack thread is the case.
    case_id: str = Field(default_factory=lambda: new_id("case"))
    short_id: str = ""
    """Human case id shown in Slack, e.g. FM-7K3Q (assigned by storage)."""
    team_id: str
    """Slack workspace (the seed's organization_id)."""
    channel_id: str
    thread_ts: str
    user_id: str
    """Who opened the case."""
    title: str = Field(default="", max_length=300)
    participants: list[str] = Field(default_factory=list)
    """People who wrote in the thread; by default they may answer confirmations."""
    version: int = Field(default=0, ge=0)
    """Optimistic-concurrency token, maintained by storage."""

    # Status (primary, user-facing).
    status: CaseStatus = CaseStatus.CONSULTING
    status_history: list[CaseStatusTransition] = Field(default_factory=list)
    closure_reason: str | None = None
    confirmations: list[PendingConfirmation] = Field(default_factory=list)

    # Progress (secondary detail).
    progress: InvestigationProgress = Field(default_factory=InvestigationProgress)
    current_turn: int = Field(default=0, ge=0)
    turns_without_progress: int = Field(default=0, ge=0)
    turn_history: list[TurnProgress] = Field(default_factory=list)
    path_selection: PathSelection | None = None

    # Problem context.
    consulting: ConsultingData = Field(default_factory=ConsultingData)
    problem_verification: ProblemVerification | None = None

    # Investigation data.
    uploaded_files: list[UploadedFile] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    evidence_requests: list[EvidenceRequest] = Field(default_factory=list)
    hypotheses: dict[str, Hypothesis] = Field(default_factory=dict)
    solutions: list[Solution] = Field(default_factory=list)
    dead_ends: list[DeadEnd] = Field(default_factory=list)
    working_conclusion: WorkingConclusion | None = None
    root_cause_conclusion: RootCauseConclusion | None = None
    tool_runs: list[ToolRun] = Field(default_factory=list)
    """Runs of the team's read-only tools the model asked for: pending consent, run or skipped."""

    # Special states and documentation.
    degraded_mode: DegradedMode | None = None
    escalation_state: EscalationState | None = None
    documentation: DocumentationData = Field(default_factory=DocumentationData)
    seen_before: SeenBefore | None = None
    """The finished case of the workspace this one looks like, once its problem was searched."""
    alert: AlertFacts | None = None
    """For a case an alert opened: when it started firing, how severe, whether it still fires."""

    # Timestamps.
    created_at: AwareDatetime = Field(default_factory=utc_now)
    updated_at: AwareDatetime = Field(default_factory=utc_now)
    resolved_at: AwareDatetime | None = None
    closed_at: AwareDatetime | None = None

    @property
    def label(self) -> str:
        """The id people type: the short id, else the internal one."""
        return self.short_id or self.case_id

    @property
    def is_terminal(self) -> bool:
        """Resolved or closed: final."""
        return self.status in TERMINAL_STATUSES

    @property
    def opened_by_alert(self) -> bool:
        """An alert opened it: its people are the alert's on-call, not an opener."""
        return self.user_id == ALERT_OPENER

    @property
    def is_stuck(self) -> bool:
        """Three or more turns without progress."""
        return self.turns_without_progress >= STUCK_AFTER_TURNS

    @property
    def current_stage(self) -> InvestigationStage | None:
        """Investigation stage, only while investigating."""
        if self.status is not CaseStatus.INVESTIGATING:
            return None
        return compute_stage(
            self.progress,
            mitigation_first=self.path is InvestigationPath.MITIGATION_FIRST,
            has_hypotheses=bool(self.hypotheses),
        )

    @property
    def path(self) -> InvestigationPath | None:
        """The selected path, if any."""
        return self.path_selection.path if self.path_selection else None

    @property
    def time_to_resolution(self) -> timedelta | None:
        """Time from creation to the terminal state."""
        return self.closed_at - self.created_at if self.closed_at else None

    def pending_confirmations(self) -> list[PendingConfirmation]:
        """Confirmations still waiting for an answer."""
        return [c for c in self.confirmations if c.is_pending]

    def find_confirmation(self, confirmation_id: str) -> PendingConfirmation | None:
        """The confirmation with this id, in any state."""
        return next((c for c in self.confirmations if c.confirmation_id == confirmation_id), None)

    def find_solution(self, solution_id: str) -> Solution | None:
        """The solution with this id."""
        return next((s for s in self.solutions if s.solution_id == solution_id), None)

    def find_evidence(self, evidence_id: str) -> Evidence | None:
        """The evidence with this id."""
        return next((e for e in self.evidence if e.evidence_id == evidence_id), None)

    def find_tool_run(self, run_id: str) -> ToolRun | None:
        """The tool run with that id, if any."""
        return next((r for r in self.tool_runs if r.run_id == run_id), None)

    def find_request(self, request_id: str) -> EvidenceRequest | None:
        """The evidence request with this id."""
        return next((r for r in self.evidence_requests if r.request_id == request_id), None)

    def add_participant(self, user_id: str) -> None:
        """Remember someone who took part in the thread."""
        if user_id and user_id not in self.participants:
            self.participants.append(user_id)
