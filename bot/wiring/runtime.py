"""The one composition root: settings → database → LLM → knowledge → engine → services → app.

Nothing is built at import time; `build_runtime` builds everything for one process, `Options`
lets tests and the console swap a port (a fake knowledge base, the terminal as the surface).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import socket
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import aiohttp
from slack_bolt.app.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.adapters.executors import build_executor
from bot.adapters.stores import SlackWorkspace, SystemClock, UnknownStats
from bot.alerts.endpoint import AlertEndpoint
from bot.inbox.retry import WORK_RETRY
from bot.llm.budget import BudgetGate
from bot.llm.config import gateway_config
from bot.llm.gateway import LiteLLMGateway
from bot.mcp import McpHub, load_tools_config
from bot.observability.metrics import set_budget_spent_ratio
from bot.observability.tracing import traced_searches
from bot.services import Services
from bot.services.ports import KnowledgeStats, Responders
from bot.settings import Settings
from bot.settings.loading import variables
from bot.thread.surface import ChatSurface
from bot.wiring.alerts import Workflows
from bot.wiring.model_copy import make_copy_in_background
from bot.wiring.readiness import Readiness
from bot.wiring.services import Ports, build_services
from bot.wiring.slack_app import build_app, build_slack_client, slack_surface
from bot.wiring.slack_app import responders as responders_for
from bot.wiring.stores import knowledge_service, load_workflow_catalog, workflow_index
from bot.wiring.warmup import ModelWarmUp, parts, warm_up
from bot.worker.router import Jobs
from bot.worker.worker import Arrivals, Worker
from domain.budget import BudgetLimits
from domain.engine.engine import TurnEngine
from domain.knowledge import KnowledgePort
from domain.llm import LLMCallRecorder, LLMPort
from domain.memory import DEFAULT_RULE, MatchRule
from domain.ports import Clock
from domain.retry import RetryPolicy
from domain.scoring.job import Sleep
from domain.tools import ToolsPort
from domain.workflows.catalog import Catalog
from domain.workflows.ports import WorkflowExecutor, WorkflowIndex
from rag.embeddings.embedder import warm_model
from rag.embeddings.gate import ModelGate
from rag.embeddings.model import resolve_model_path
from rag.service import KnowledgeService
from rag.store.workflow_index import LanceWorkflowIndex
from storage import Repositories, build_repositories
from storage.database.engine import create_engine, make_session_factory
from storage.schema.migrate import upgrade

logger = logging.getLogger(__name__)


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
    work_retry: RetryPolicy = WORK_RETRY
    """When work that Slack being briefly unavailable cut short is taken again."""
    tools: ToolsPort | None = None
    """The team's tools (default: the MCP servers of FM_MCP_CONFIG, when set)."""
    seen_before: MatchRule = DEFAULT_RULE
    """When a past case is offered: threshold and margin (tests may set their own)."""


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
    readiness: Readiness = field(default_factory=Readiness)
    """What the warm-up still loads (nothing when tests give the knowledge)."""
    warming: Callable[[], Coroutine[Any, Any, None]] | None = None
    """The warm-up, for `start_warm_up`."""
    background: list[asyncio.Task[None]] = field(default_factory=list)
    closers: list[Callable[[], None]] = field(default_factory=list)
    """Resources released last (the workflow index's LanceDB connection)."""
    tools: McpHub | None = None
    """The team's MCP servers: started in the background at start, so the bot listens at once."""

    async def start(self) -> None:
        """Fail scorings a crash left running, then process the inbox (resuming unfinished work)."""
        await self.services.scoring.fail_orphans(elsewhere=await self.worker.held_elsewhere())
        if self.tools is not None:
            self.background.append(asyncio.create_task(self.tools.start(), name="fm-mcp-start"))
        if isinstance(self.knowledge, KnowledgeService):
            self.knowledge.resume()  # vectors a stopped process owed, in the background
        await self.worker.start()

    def start_warm_up(self) -> None:
        """Load the heavy libraries in the background, once the bot answers Slack.

        Started only then: nothing the warm-up does, and no mistake that would make it hold the
        event loop, can keep the bot from listening; turns that need a part wait for it.
        """
        if self.warming is not None:
            self.background.append(asyncio.create_task(self.warming(), name="fm-warm-up"))
            self.warming = None

    async def close(self, *, grace_s: float = 10.0) -> None:
        """Drain running turns within the grace period, then release everything."""
        await self.worker.stop(grace_s=grace_s)
        if isinstance(self.knowledge, KnowledgeService):
            await self.knowledge.aclose()  # vectors not written yet are finished at next start
        for task in self.background:
            task.cancel()
        await asyncio.gather(*self.background, return_exceptions=True)
        if self.tools is not None:
            await self.tools.aclose()
        for close in self.closers:
            close()
        if self.http is not None:
            await self.http.close()
        if isinstance(self.llm, LiteLLMGateway):
            await self.llm.aclose()
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
    budget = budget_gate(settings, repositories, clock)
    llm = options.llm or build_llm(settings, clock, repositories.llm_calls, budget)
    if options.llm is not None and isinstance(llm, LiteLLMGateway):
        llm.limit_by(budget)  # a gateway given (tests, the console) keeps the budgets too
    gate = ModelGate()
    knowledge, stats = await _knowledge(settings, options, repositories, gate)
    engine = TurnEngine(
        llm=llm, knowledge=traced_searches(knowledge), clock=clock, spending=repositories.llm_calls
    )
    client = None if options.surface else build_slack_client(settings, pooled=True)
    surface = options.surface or slack_surface(settings, client)
    responders = options.responders or responders_for(
        client,
        confirmers=options.confirmers_usergroup or settings.confirmers_usergroup,
        alert_group=settings.alert_responders,
    )
    workflows = Workflows(
        catalog,
        options.workflow_index or await _workflow_index(settings, options, catalog, gate),
        options.executor or build_executor(settings, clock),
        SlackWorkspace(client) if client is not None else None,
    )
    tools = options.tools or build_tools(settings)
    ports = Ports(
        settings,
        repositories,
        engine,
        knowledge,
        surface,
        responders,
        stats,
        clock,
        llm,
        budget,
        tools,
        memory=knowledge if isinstance(knowledge, KnowledgeService) else None,
        seen_before=options.seen_before,
    )
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
        retry=options.work_retry,
    )
    services.intake.subscribe(worker.notify)
    app = build_app(settings, client, services, arrivals) if client is not None else None
    runtime = Runtime(
        settings, database, repositories, llm, knowledge, engine, services, worker, surface
    )
    runtime.client, runtime.app, runtime.alert_endpoint = client, app, endpoint
    runtime.tools = tools if isinstance(tools, McpHub) else None
    runtime.http = client.session if client is not None else None
    if isinstance(workflows.index, LanceWorkflowIndex):
        runtime.closers.append(workflows.index.close)
    if options.knowledge is None:
        gateway = llm if isinstance(llm, LiteLLMGateway) else None
        model = model_warm_up(settings, gate)
        runtime.readiness = Readiness(parts(gateway, model))
        runtime.warming = functools.partial(warm_up, gateway, model, runtime.readiness)
    return runtime


def build_tools(settings: Settings) -> McpHub | None:
    """The MCP servers of FM_MCP_CONFIG (not started yet); None when it is not set."""
    if settings.mcp_config is None:
        return None
    return McpHub(load_tools_config(settings.mcp_config, variables()))


def model_warm_up(settings: Settings, gate: ModelGate) -> ModelWarmUp:
    """Make the model's ONNX copy apart if there is none, then load and run it, then open."""
    model_path = resolve_model_path(settings.embedding_model)
    export_dir = settings.embedding_export_dir
    return ModelWarmUp(
        load=functools.partial(warm_model, model_path, export_dir),
        gate=gate,
        copy=functools.partial(make_copy_in_background, model_path, export_dir),
    )


async def _knowledge(
    settings: Settings, options: Options, repositories: Repositories, gate: ModelGate
) -> tuple[KnowledgePort, KnowledgeStats]:
    if options.knowledge is not None:
        return options.knowledge, options.kb_stats or UnknownStats()
    return await knowledge_service(settings, repositories, gate)


async def _workflow_index(
    settings: Settings, options: Options, catalog: Catalog, gate: ModelGate
) -> WorkflowIndex | None:
    # With a knowledge base given (tests, the console), no embedding model is loaded for it.
    if options.knowledge is not None:
        return None
    return await workflow_index(settings, catalog, gate)


def build_llm(
    settings: Settings, clock: Clock, recorder: LLMCallRecorder, budget: BudgetGate | None = None
) -> LLMPort:
    """The litellm gateway (disabled when no model is configured); every call is recorded, and
    stopped once a budget is reached."""
    return LiteLLMGateway(gateway_config(settings), recorder=recorder, clock=clock, gate=budget)


def budget_gate(settings: Settings, repositories: Repositories, clock: Clock) -> BudgetGate:
    """The daily and per-case model budgets, summed from the call records."""
    limits = BudgetLimits(
        day_usd=settings.llm_daily_budget_usd,
        day_tokens=settings.llm_daily_budget_tokens,
        case_usd=settings.llm_case_budget_usd,
        case_tokens=settings.llm_case_budget_tokens,
    )
    calls = repositories.llm_calls
    return BudgetGate(
        limits, ledger=calls, teams=calls, clock=clock, on_day_ratio=set_budget_spent_ratio
    )
