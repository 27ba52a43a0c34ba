"""The one composition root: settings → database → LLM → knowledge → engine → services → app.

Nothing is built at import time; `build_runtime` builds everything for one process, `Options`
lets tests and the console swap a port (a fake knowledge base, the terminal as the surface).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import aiohttp
from slack_bolt.app.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.adapters.catalog_files import CatalogError, load_catalog
from bot.adapters.executors import build_executor
from bot.adapters.object_store import lancedb_storage_options
from bot.adapters.stores import (
    KnowledgeStoreStats,
    RepositoryCaseAccess,
    SlackWorkspace,
    SystemClock,
    UnknownStats,
    UsergroupResponders,
)
from bot.alerts.endpoint import AlertEndpoint
from bot.inbox.router import Jobs
from bot.inbox.worker import Arrivals, Worker
from bot.listeners import register_all
from bot.llm.gateway import LiteLLMGateway, gateway_config
from bot.server.model_copy import make_copy_in_background
from bot.server.warmup import warm_up
from bot.services import Services
from bot.services.alerting.deferral import DELAYS_S
from bot.services.cases import CaseStore
from bot.services.clicks import ClickService
from bot.services.commands import CommandService
from bot.services.home import HomeService, RunbookService
from bot.services.intake import Intake
from bot.services.opening import CaseOpener
from bot.services.ports import CaseParticipants, ChatSurface, KnowledgeStats, Responders
from bot.services.presenter import ThreadPresenter
from bot.services.proposals import CloseRequests
from bot.services.refs import MessageRefs
from bot.services.scoring.service import ScoringService
from bot.services.scoring.view import ScoringThreadView
from bot.services.turns import TurnService
from bot.services.uploads import UploadService
from bot.settings import Settings
from bot.slack.surface import SlackSurface
from bot.wiring.alerts import AlertParts, Workflows, build_alert_features
from domain.engine.engine import TurnEngine
from domain.knowledge import KnowledgePort
from domain.llm import LLMCallRecorder, LLMPort
from domain.ports import Clock
from domain.scoring.job import RepositoryMaterial, ScoringJob, Sleep
from domain.workflows.catalog import Catalog
from domain.workflows.ports import WorkflowExecutor, WorkflowIndex
from rag.embeddings.embedder import SentenceTransformerEmbedder, warm_model
from rag.embeddings.model import resolve_model_path
from rag.service import open_knowledge_service
from rag.store.workflow_index import LanceWorkflowIndex
from storage import Repositories, build_repositories
from storage.db import create_engine, make_session_factory
from storage.migrate import upgrade

logger = logging.getLogger(__name__)

SLACK_TIMEOUT_S = 30
# Made once start-up traffic (resumed inbox items, a burst of events) has passed.
MODEL_COPY_AFTER_S = 60.0
"""Per Web API call (slack_sdk's own default)."""


class StartupError(Exception):
    """The bot cannot start with these settings; the message says what to change."""


@dataclass
class Options:
    """Ports to use instead of the configured ones, and worker tuning."""

    knowledge: KnowledgePort | None = None
    kb_stats: KnowledgeStats | None = None
    llm: LLMPort | None = None
    clock: Clock | None = None
    responders: Responders | None = None
    surface: ChatSurface | None = None
    """Given: no Slack client or app is built (the console)."""
    concurrency: int = 64
    """Cases worked on at once (turns mostly wait on the model, so this can be generous)."""
    poll_interval_s: float = 1.0
    confirmers_usergroup: str | None = None
    """A Slack user group whose members answer confirmations (default: case participants)."""
    sleep: Sleep | None = None
    """How scoring waits between judge attempts (tests record the waits instead)."""
    workflow_index: WorkflowIndex | None = None
    """The catalog search (default: LanceDB with the embedding model, when there is a catalog)."""
    executor: WorkflowExecutor | None = None
    retry_delays_s: tuple[float, ...] = DELAYS_S
    """Waits before retrying alert work that Slack being unavailable cut short."""


@dataclass
class Runtime:
    """Everything one process runs, and how to start and stop it."""

    settings: Settings
    database: AsyncEngine
    repositories: Repositories
    llm: LLMPort
    knowledge: KnowledgePort
    engine: TurnEngine
    services: Services
    worker: Worker
    surface: ChatSurface
    client: AsyncWebClient | None = None
    app: AsyncApp | None = None
    http: aiohttp.ClientSession | None = None
    alert_endpoint: AlertEndpoint | None = None
    background: list[asyncio.Task[None]] = field(default_factory=list)
    closers: list[Callable[[], None]] = field(default_factory=list)
    """Resources released last (the workflow index's LanceDB connection)."""

    async def start(self) -> None:
        """Fail scorings a crash left running, then process the inbox (resuming unfinished work)."""
        await self.services.scoring.fail_orphans(elsewhere=await self.worker.held_elsewhere())
        await self.worker.start()

    async def close(self, *, grace_s: float = 10.0) -> None:
        """Drain running turns within the grace period, then release everything."""
        await self.worker.stop(grace_s=grace_s)
        for task in self.background:
            task.cancel()
        await asyncio.gather(*self.background, return_exceptions=True)
        for close in self.closers:
            close()
        if self.http is not None:
            await self.http.close()
        await self.database.dispose()

    async def database_ok(self) -> bool:
        """Whether the database answers."""
        try:
            async with self.database.connect() as connection:
                await connection.execute(text("SELECT 1"))
        except Exception:
            logger.warning("database health check failed", exc_info=True)
            return False
        return True


def instance_name(settings: Settings) -> str:
    """This process's name in the inbox: the same after a restart, different for each replica."""
    return f"{socket.gethostname()}:{settings.data_dir.resolve()}"[:255]


async def build_runtime(settings: Settings, options: Options | None = None) -> Runtime:
    """Build the whole bot; migrations are applied first."""
    options = options or Options()
    clock = options.clock or SystemClock()
    catalog = load_workflow_catalog(settings)
    await asyncio.to_thread(upgrade, settings.database_url)
    database = create_engine(settings.database_url)
    repositories = build_repositories(make_session_factory(database))
    llm = options.llm or build_llm(settings, clock, repositories.llm_calls)
    knowledge, stats = await _knowledge(settings, options, repositories)
    engine = TurnEngine(llm=llm, knowledge=knowledge, clock=clock)
    client = None if options.surface else build_slack_client(settings, pooled=True)
    surface = options.surface or _slack_surface(settings, client)
    responders = options.responders or _responders(
        options.confirmers_usergroup or settings.confirmers_usergroup, client
    )
    workflows = Workflows(
        catalog,
        options.workflow_index or await _workflow_index(settings, options, catalog),
        options.executor or build_executor(settings, clock),
        SlackWorkspace(client) if client is not None else None,
        options.retry_delays_s,
    )
    ports = Ports(settings, repositories, engine, knowledge, surface, responders, stats, clock, llm)
    services, endpoint = build_services(ports, workflows, sleep=options.sleep or asyncio.sleep)
    jobs = Jobs(services)
    arrivals = Arrivals()
    worker = Worker(
        inbox=repositories.inbox,
        handle=jobs.handle,
        report=jobs.report,
        clock=clock,
        owner=instance_name(settings),
        concurrency=options.concurrency,
        poll_interval_s=options.poll_interval_s,
        stale_after=timedelta(seconds=settings.worker_stale_after_s),
        arrivals=arrivals,
    )
    services.intake.subscribe(worker.notify)
    app = build_app(settings, client, services, arrivals) if client is not None else None
    runtime = Runtime(
        settings, database, repositories, llm, knowledge, engine, services, worker, surface
    )
    runtime.client, runtime.app, runtime.alert_endpoint = client, app, endpoint
    runtime.http = client.session if client is not None else None
    if isinstance(workflows.index, LanceWorkflowIndex):
        runtime.closers.append(workflows.index.close)
    if options.knowledge is None:
        model_path = resolve_model_path(settings.embedding_model)
        gateway = llm if isinstance(llm, LiteLLMGateway) else None
        export_dir = settings.embedding_export_dir
        warm = functools.partial(warm_model, export_dir=export_dir)
        copy = functools.partial(
            make_copy_in_background, model_path, export_dir, after_s=MODEL_COPY_AFTER_S
        )
        warming = warm_up(model_path, gateway, load_model=warm, then=copy)
        runtime.background.append(asyncio.create_task(warming, name="fm-warm-up"))
    return runtime


def build_llm(settings: Settings, clock: Clock, recorder: LLMCallRecorder) -> LLMPort:
    """The litellm gateway (disabled when no model is configured); every call is recorded."""
    return LiteLLMGateway(gateway_config(settings), recorder=recorder, clock=clock)


def build_slack_client(settings: Settings, *, pooled: bool = False) -> AsyncWebClient:
    """The Web API client: FM_SLACK_API_URL, retries on connection errors and rate limits only.

    ``pooled`` (inside the event loop only) gives it one HTTP session whose connections are
    reused by every call; without it slack_sdk opens and closes a session per call.
    """
    if settings.slack_bot_token is None:
        raise StartupError("SLACK_BOT_TOKEN is not set; set it, or try `fm run --console`.")
    session = (
        aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=SLACK_TIMEOUT_S))
        if pooled
        else None
    )
    return AsyncWebClient(
        token=settings.slack_bot_token.get_secret_value(),
        base_url=settings.slack_api_url,
        session=session,
        timeout=SLACK_TIMEOUT_S,
        # Passing a list replaces the default one, so both handlers are named; 5xx is not
        # retried, since a retried post can appear twice.
        retry_handlers=[
            AsyncConnectionErrorRetryHandler(max_retry_count=2),
            AsyncRateLimitErrorRetryHandler(max_retry_count=3),
        ],
    )


class _UnusedTokenNotice(logging.Filter):
    """Bolt reads SLACK_BOT_TOKEN itself even when given a client, then warns at every start
    that the token is unused; the client, built from the same token, is what we meant."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "`token` will be unused" not in record.getMessage()


def build_app(
    settings: Settings, client: AsyncWebClient, services: Services, arrivals: Arrivals
) -> AsyncApp:
    """The Bolt app with every listener registered; requests are tracked until acknowledged."""
    secret = settings.slack_signing_secret
    bolt_logger = logging.getLogger("slack_bolt.AsyncApp")
    if not any(isinstance(f, _UnusedTokenNotice) for f in bolt_logger.filters):
        bolt_logger.addFilter(_UnusedTokenNotice())
    app = _TrackedApp(
        arrivals,
        name="faultmaven",
        client=client,
        signing_secret=secret.get_secret_value() if secret else "",
        # Acknowledge only once the listener has recorded the work in the inbox: if recording
        # fails, Slack gets a 500 and delivers the event again instead of it being lost.
        process_before_response=True,
    )
    register_all(app, services)
    return app


class _TrackedApp(AsyncApp):
    """Bolt's app, telling the worker which requests are still owed an acknowledgement.

    Every request passes through `async_dispatch`, over HTTP and over Socket Mode alike (a Bolt
    middleware would not do: its ``next`` returns before the listener has run).
    """

    def __init__(self, arrivals: Arrivals, **options: Any) -> None:
        super().__init__(**options)
        self._arrivals = arrivals

    async def async_dispatch(self, req: AsyncBoltRequest) -> BoltResponse:
        with self._arrivals.receiving():
            return await super().async_dispatch(req)


def load_workflow_catalog(settings: Settings) -> Catalog:
    """The catalog in FM_WORKFLOW_CATALOG_DIR (empty if unset); any problem stops start-up."""
    directory = settings.workflow_catalog_dir
    if directory is None:
        return Catalog()
    try:
        return load_catalog(directory)
    except CatalogError as error:
        problems = "\n".join(f"  {problem}" for problem in error.problems)
        raise StartupError(
            f"FM_WORKFLOW_CATALOG_DIR: the workflow catalog in {directory} cannot be used "
            f"(check it with `fm catalog validate {directory}`):\n{problems}"
        ) from None


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


def build_services(
    ports: Ports, workflows: Workflows, *, sleep: Sleep = asyncio.sleep
) -> tuple[Services, AlertEndpoint]:
    """Every use-case service, wired to its ports, and the alert endpoint."""
    repositories, clock, surface = ports.repositories, ports.clock, ports.surface
    cases, presenter, turns = _thread_services(ports)
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
        ),
        workflows,
    )
    closing = CloseRequests(cases=cases, presenter=presenter, clock=clock)
    scoring = _scoring(ports, cases, intake, sleep)
    clicks = ClickService(
        engine=ports.engine,
        cases=cases,
        presenter=presenter,
        closing=closing,
        responders=ports.responders,
        audit=repositories.audit,
        clock=clock,
        scoring=scoring,
    )
    services = Services(
        intake=intake,
        cases=cases,
        presenter=presenter,
        opening=CaseOpener(cases=cases, presenter=presenter, turns=turns, clock=clock),
        turns=turns,
        clicks=clicks,
        commands=CommandService(
            cases=cases,
            closing=closing,
            knowledge=ports.knowledge,
            surface=surface,
            scoring=scoring,
        ),
        home=HomeService(cases=cases, scoring=scoring, stats=ports.stats, surface=surface),
        runbooks=RunbookService(knowledge=ports.knowledge, surface=surface),
        scoring=scoring,
        analysis=alerting.analysis,
        remediation=alerting.remediation,
        alerts=alerting.alerts,
    )
    return services, alerting.endpoint


def _scoring(ports: Ports, cases: CaseStore, intake: Intake, sleep: Sleep) -> ScoringService:
    """Scoring: the judge job (its progress shown in the case thread) and its requests."""
    repositories, clock = ports.repositories, ports.clock
    view = ScoringThreadView(surface=ports.surface, audit=repositories.audit, clock=clock)
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
        surface=ports.surface,
        intake=intake,
        audit=repositories.audit,
        clock=clock,
        judge_enabled=ports.llm.enabled,
    )


def _thread_services(ports: Ports) -> tuple[CaseStore, ThreadPresenter, TurnService]:
    """What works in case threads: cases, the presenter, uploads and turns."""
    repositories, clock = ports.repositories, ports.clock
    cases = CaseStore(repositories.cases)
    refs = MessageRefs(audit=repositories.audit, clock=clock)
    presenter = ThreadPresenter(surface=ports.surface, refs=refs)
    uploads = UploadService(
        files=repositories.files,
        knowledge=ports.knowledge,
        presenter=presenter,
        clock=clock,
        max_bytes=ports.settings.max_upload_bytes,
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


async def _workflow_index(
    settings: Settings, options: Options, catalog: Catalog
) -> WorkflowIndex | None:
    """The catalog indexed in LanceDB next to the knowledge tables (none without a catalog)."""
    if not len(catalog) or options.knowledge is not None:
        return None
    embedder = SentenceTransformerEmbedder(
        resolve_model_path(settings.embedding_model), export_dir=settings.embedding_export_dir
    )
    return await LanceWorkflowIndex.open(
        settings.lancedb_uri, embedder, catalog, lancedb_storage_options(settings)
    )


async def _knowledge(
    settings: Settings, options: Options, repositories: Repositories
) -> tuple[KnowledgePort, KnowledgeStats]:
    if options.knowledge is not None:
        return options.knowledge, options.kb_stats or UnknownStats()
    # Without an LLM here: the turn engine reasons over the excerpts itself, so synthesising an
    # answer for every search of every turn would only add model calls.
    service = await open_knowledge_service(
        lancedb_uri=settings.lancedb_uri,
        storage_options=lancedb_storage_options(settings),
        embedding_model=settings.embedding_model,
        export_dir=settings.embedding_export_dir,
        llm=None,
        max_upload_bytes=settings.max_upload_bytes,
        case_access=RepositoryCaseAccess(repositories.cases),
    )
    return service, options.kb_stats or KnowledgeStoreStats(service)


def _slack_surface(settings: Settings, client: AsyncWebClient | None) -> ChatSurface:
    assert client is not None
    assert settings.slack_bot_token is not None
    return SlackSurface(
        client,
        bot_token=settings.slack_bot_token.get_secret_value(),
        api_url=settings.slack_api_url,
    )


def _responders(usergroup: str | None, client: AsyncWebClient | None) -> Responders:
    if usergroup and client is not None:
        return UsergroupResponders(client, usergroup)
    return CaseParticipants()
