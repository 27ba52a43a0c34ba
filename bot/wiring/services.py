"""The use-case services, each wired to its ports, and the alert endpoint."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from bot.alerts.endpoint import AlertEndpoint
from bot.llm.budget import BudgetGate
from bot.llm.gateway import LiteLLMGateway
from bot.services import Services
from bot.services.cases import CaseStore
from bot.services.clicks import ClickService
from bot.services.commands import CommandService
from bot.services.feedback import FeedbackService
from bot.services.files.images import ImageReader
from bot.services.files.uploads import UploadService
from bot.services.home import HomeService, RunbookService
from bot.services.intake import Intake
from bot.services.memory import SeenBeforeService
from bot.services.opening import CaseOpener
from bot.services.outcomes import FinishedCases, OutcomeService
from bot.services.ports import KnowledgeStats, Responders
from bot.services.proposals import CloseRequests, MitigationSteps, StuckOptions
from bot.services.retries import RetryService
from bot.services.scoring.service import ScoringService
from bot.services.tools import ToolService
from bot.services.turns import TurnService
from bot.settings import Settings
from bot.thread.home import HomeTab
from bot.thread.presenter import ThreadPresenter
from bot.thread.refs import MessageRefs
from bot.thread.replies import Replies
from bot.thread.scoring import ScoringThreadView
from bot.thread.surface import ChatSurface
from bot.wiring.alerts import AlertParts, Workflows, build_alert_features
from domain.engine.engine import TurnEngine
from domain.knowledge import KnowledgePort
from domain.llm import LLMPort
from domain.memory import DEFAULT_RULE, CaseDocumentIndex, MatchRule
from domain.ports import Clock
from domain.scoring.job import RepositoryMaterial, ScoringJob, Sleep
from domain.tools import ToolsPort
from storage import Repositories


@dataclass(frozen=True)
class Ports:
    """What the services are built from."""

    settings: Settings
    repositories: Repositories
    engine: TurnEngine
    knowledge: KnowledgePort
    surface: ChatSurface
    responders: Responders
    stats: KnowledgeStats
    clock: Clock
    llm: LLMPort
    budget: BudgetGate | None = None
    tools: ToolsPort | None = None
    """The team's read-only tools, when configured."""
    memory: CaseDocumentIndex | None = None
    """Finished cases' reports and runbooks, searched for "seen before" (None: never looked)."""
    seen_before: MatchRule = DEFAULT_RULE
    """When a past case is offered: threshold and margin (tests may set their own)."""


def build_services(
    ports: Ports, workflows: Workflows, *, sleep: Sleep = asyncio.sleep
) -> tuple[Services, AlertEndpoint]:
    """Every use-case service, wired to its ports, and the alert endpoint."""
    repositories, clock, surface = ports.repositories, ports.clock, ports.surface
    outcomes = OutcomeService(
        outcomes=repositories.outcomes,
        feedback=repositories.feedback,
        llm_calls=repositories.llm_calls,
        clock=clock,
    )
    cases, presenter, turns = _thread_services(ports, outcomes)
    memory = _memory(ports, cases, presenter)
    turns.memory = memory
    intake = Intake(inbox=repositories.inbox, cases=cases)
    alerting = build_alert_features(
        AlertParts(
            ports.settings,
            repositories,
            cases,
            presenter,
            intake,
            ports.llm,
            ports.responders,
            clock,
            ports.budget,
            tools=ports.tools,
            knowledge=ports.knowledge,
            memory=memory,
        ),
        workflows,
    )
    if cases.finished is not None:  # a finished case's workflows are no longer to approve
        cases.finished.offers = alerting.remediation.finished
    closing = CloseRequests(cases=cases, presenter=presenter, clock=clock)
    scoring = _scoring(ports, cases, intake, sleep)
    replies = Replies(surface)
    clicks = ClickService(
        engine=ports.engine,
        cases=cases,
        presenter=presenter,
        closing=closing,
        responders=ports.responders,
        clock=clock,
        scoring=scoring,
        turns=turns,
    )
    services = Services(
        intake=intake,
        cases=cases,
        presenter=presenter,
        opening=CaseOpener(cases=cases, presenter=presenter, turns=turns, clock=clock),
        turns=turns,
        clicks=clicks,
        steps=MitigationSteps(
            engine=ports.engine,
            cases=cases,
            presenter=presenter,
            responders=ports.responders,
            clock=clock,
        ),
        stuck=StuckOptions(
            cases=cases,
            presenter=presenter,
            closing=closing,
            responders=ports.responders,
            clock=clock,
            turns=turns,
        ),
        commands=CommandService(
            cases=cases,
            closing=closing,
            knowledge=ports.knowledge,
            replies=replies,
            scoring=scoring,
            outcomes=outcomes,
            spending=repositories.llm_calls,
        ),
        home=HomeService(
            cases=cases,
            scoring=scoring,
            outcomes=outcomes,
            stats=ports.stats,
            tab=HomeTab(surface),
            spending=repositories.llm_calls,
            clock=clock,
        ),
        runbooks=RunbookService(knowledge=ports.knowledge, replies=replies),
        scoring=scoring,
        analysis=alerting.analysis,
        remediation=alerting.remediation,
        retries=RetryService(
            inbox=repositories.inbox,
            intake=intake,
            replies=replies,
            cases=cases,
            messages=repositories.messages,
        ),
        feedback=FeedbackService(
            cases=cases,
            feedback=repositories.feedback,
            outcomes=outcomes,
            replies=replies,
            clock=clock,
        ),
        outcomes=outcomes,
        alerts=alerting.alerts,
        tools=_tools(ports, cases, presenter, turns),
        memory=memory,
    )
    return services, alerting.endpoint


def _tools(
    ports: Ports, cases: CaseStore, presenter: ThreadPresenter, turns: TurnService
) -> ToolService | None:
    """The tool runs of cases, when the team's tools are configured; turns offer them."""
    if ports.tools is None:
        return None
    service = ToolService(
        tools=ports.tools,
        cases=cases,
        presenter=presenter,
        knowledge=ports.knowledge,
        responders=ports.responders,
        audit=ports.repositories.audit,
        clock=ports.clock,
        turns=turns,
    )
    turns.tools, turns.after_turn = service.catalogue, service.after_turn
    return service


def _scoring(ports: Ports, cases: CaseStore, intake: Intake, sleep: Sleep) -> ScoringService:
    """Scoring: the judge job (its progress shown in the case thread) and its requests."""
    repositories, clock = ports.repositories, ports.clock
    view = ScoringThreadView(surface=ports.surface, posted=repositories.posted, clock=clock)
    material = RepositoryMaterial(
        cases=repositories.cases, messages=repositories.messages, audit=repositories.audit
    )
    job = ScoringJob(
        llm=ports.llm,
        scores=repositories.scores,
        material=material,
        observer=view,
        clock=clock,
        sleep=sleep,
    )
    return ScoringService(
        cases=cases,
        scores=repositories.scores,
        job=job,
        view=view,
        intake=intake,
        audit=repositories.audit,
        clock=clock,
        judge_enabled=ports.llm.enabled,
    )


def _memory(ports: Ports, cases: CaseStore, presenter: ThreadPresenter) -> SeenBeforeService | None:
    """Seen before: past cases offered when their documents match, if the knowledge base can."""
    if ports.memory is None:
        return None
    return SeenBeforeService(
        index=ports.memory,
        cases=cases,
        outcomes=ports.repositories.outcomes,
        presenter=presenter,
        clock=ports.clock,
        rule=ports.seen_before,
    )


def _sees_images(llm: LLMPort) -> Callable[[], bool]:
    """Whether the main model takes images (litellm's table says; any other port does not)."""
    if isinstance(llm, LiteLLMGateway):
        return llm.sees_images
    return lambda: False


def _thread_services(
    ports: Ports, outcomes: OutcomeService
) -> tuple[CaseStore, ThreadPresenter, TurnService]:
    """What works in case threads: cases (graded, their evidence forgotten, when they finish),
    presenter, uploads, turns."""
    repositories, clock = ports.repositories, ports.clock
    cases = CaseStore(repositories.cases, finished=FinishedCases(outcomes, ports.knowledge))
    refs = MessageRefs(posted=repositories.posted, audit=repositories.audit, clock=clock)
    presenter = ThreadPresenter(surface=ports.surface, refs=refs, spending=repositories.llm_calls)
    uploads = UploadService(
        files=repositories.files,
        knowledge=ports.knowledge,
        shared=ports.surface,
        clock=clock,
        max_bytes=ports.settings.max_upload_bytes,
        images=ImageReader(
            files=repositories.files,
            shared=ports.surface,
            clock=clock,
            sees_images=_sees_images(ports.llm),
        ),
    )
    turns = TurnService(
        engine=ports.engine,
        cases=cases,
        messages=repositories.messages,
        uploads=uploads,
        presenter=presenter,
        responders=ports.responders,
        clock=clock,
    )
    return cases, presenter, turns
