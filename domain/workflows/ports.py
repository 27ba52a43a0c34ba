"""Ports of the alert and remediation use cases: catalog search, executors, groups, strategies."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from domain.base import DomainModel
from domain.workflows.alert_groups import AlertGroupRecord, GroupTouch
from domain.workflows.catalog import LabelFilters
from domain.workflows.remediation import (
    ExecutionRequest,
    ExecutionResult,
    RemediationStrategy,
    StrategyStatus,
)
from domain.workflows.signals import SignalGroup


class WorkflowMatch(DomainModel):
    """A catalog search hit."""

    workflow_id: str
    version: str
    score: float


class WorkflowIndex(Protocol):
    """The catalog as indexed in the knowledge store (seed, phase 4: search_workflow_catalog)."""

    async def search(self, *, query: str, filters: LabelFilters, limit: int) -> list[WorkflowMatch]:
        """Workflows for ``query`` ("<signal type> <severity>") among those the filters allow."""
        ...


class WorkflowExecutor(Protocol):
    """Carries out an approved workflow (or hands it to a person)."""

    @property
    def name(self) -> str:
        """``none`` or ``webhook``."""
        ...

    async def execute(self, request: ExecutionRequest) -> ExecutionResult:
        """Run or hand over the request; failures are reported in the result, not raised."""
        ...


class AlertGroupRepository(Protocol):
    """Active alert groups by identity: one group, one case, however often it is notified."""

    async def touch(
        self, *, team_id: str, channel_id: str, group: SignalGroup, now: datetime
    ) -> GroupTouch:
        """Record a notification: create the active group, or count a repeat of it."""
        ...

    async def find_active(self, team_id: str, group_hash: str) -> AlertGroupRecord | None:
        """The active group with this identity."""
        ...

    async def for_case(self, case_id: str) -> AlertGroupRecord | None:
        """The group that opened a case."""
        ...

    async def set_thread(self, group_id: str, *, alert_ts: str) -> None:
        """Remember the alert's message (the thread's parent)."""
        ...

    async def set_case(self, group_id: str, *, case_id: str) -> None:
        """Remember the case the group opened."""
        ...

    async def retire(self, group_id: str, *, now: datetime) -> None:
        """The group's case is finished: the next notification opens a new case."""
        ...


class RemediationRepository(Protocol):
    """Strategies proposed in case threads, and their decisions."""

    async def add_all(self, strategies: list[RemediationStrategy]) -> None:
        """Store newly proposed strategies."""
        ...

    async def get(self, strategy_id: str) -> RemediationStrategy:
        """A strategy (NotFoundError)."""
        ...

    async def list_for_case(self, case_id: str) -> list[RemediationStrategy]:
        """A case's strategies, oldest analysis first, by rank."""
        ...

    async def decide(
        self, strategy_id: str, *, status: StrategyStatus, by: str, at: datetime
    ) -> bool:
        """Approve or reject a proposed strategy; False if it was no longer proposed."""
        ...

    async def supersede_others(
        self, batch_id: str, *, keep: str, at: datetime
    ) -> list[RemediationStrategy]:
        """Withdraw the batch's other proposed strategies; return them."""
        ...

    async def record_execution(
        self, strategy_id: str, *, status: StrategyStatus, result: ExecutionResult
    ) -> None:
        """Store the executor's report."""
        ...
