"""Every SQL repository, built from one session factory for the composition root."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from domain.ports import (
    AuditRepository,
    CaseRepository,
    FeedbackRepository,
    FileRepository,
    LLMCallRepository,
    MessageRepository,
    OutcomeRepository,
    PostedMessageRepository,
    ScoreRepository,
)
from domain.queue import InboxRepository
from domain.workflows.ports import AlertGroupRepository, RemediationRepository
from storage.alerts import SqlAlertGroupRepository
from storage.audit import SqlAuditRepository
from storage.cases import SqlCaseRepository
from storage.conversation import SqlMessageRepository
from storage.files import SqlFileRepository
from storage.inbox import SqlInboxRepository
from storage.llm_calls import SqlLLMCallRepository
from storage.outcomes import SqlFeedbackRepository, SqlOutcomeRepository
from storage.posted import SqlPostedMessageRepository
from storage.remediation import SqlRemediationRepository
from storage.scores import SqlScoreRepository


@dataclass(frozen=True)
class Repositories:
    """Every repository the services need, typed by their domain ports."""

    cases: CaseRepository
    messages: MessageRepository
    files: FileRepository
    inbox: InboxRepository
    audit: AuditRepository
    scores: ScoreRepository
    llm_calls: LLMCallRepository
    alert_groups: AlertGroupRepository
    remediations: RemediationRepository
    posted: PostedMessageRepository
    feedback: FeedbackRepository
    outcomes: OutcomeRepository


def build_repositories(session_factory: async_sessionmaker[AsyncSession]) -> Repositories:
    """The SQL implementation of each port, sharing one session factory."""
    return Repositories(
        cases=SqlCaseRepository(session_factory),
        messages=SqlMessageRepository(session_factory),
        files=SqlFileRepository(session_factory),
        inbox=SqlInboxRepository(session_factory),
        audit=SqlAuditRepository(session_factory),
        scores=SqlScoreRepository(session_factory),
        llm_calls=SqlLLMCallRepository(session_factory),
        alert_groups=SqlAlertGroupRepository(session_factory),
        remediations=SqlRemediationRepository(session_factory),
        posted=SqlPostedMessageRepository(session_factory),
        feedback=SqlFeedbackRepository(session_factory),
        outcomes=SqlOutcomeRepository(session_factory),
    )
