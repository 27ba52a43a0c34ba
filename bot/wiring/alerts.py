"""Wiring of the alert and remediation services (a part of the composition root).

Builds, from ports the root already has: the alert service (only with a Slack workspace and an
alert channel), the analysis that runs for each alert case, the Approve / Reject handling with the
configured executor, and the alert endpoint.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.alerts.endpoint import AlertEndpoint
from bot.llm.budget import BudgetGate
from bot.services.alerting.alerts import AlertPorts, AlertService
from bot.services.alerting.analysis import AnalysisPorts, AnalysisService
from bot.services.alerting.budget import BudgetNotices
from bot.services.alerting.looking import AlertLooks
from bot.services.alerting.remediation import RemediationPorts, RemediationService
from bot.services.alerting.slots import InvestigationSlots
from bot.services.cases import CaseStore
from bot.services.intake import Intake
from bot.services.memory import SeenBeforeService
from bot.services.ports import Responders, Workspace
from bot.settings import Settings
from bot.thread.alerts import AlertThread
from bot.thread.presenter import ThreadPresenter
from bot.thread.remediation import RemediationThread
from domain.knowledge import KnowledgePort
from domain.llm import LLMPort
from domain.ports import Clock
from domain.tools import ToolsPort
from domain.workflows.catalog import Catalog
from domain.workflows.planner import RcaPlanner
from domain.workflows.ports import WorkflowExecutor, WorkflowIndex
from storage import Repositories


@dataclass(frozen=True)
class Workflows:
    """The remediation catalog, its search, the executor, and the workspace alerts belong to."""

    catalog: Catalog
    index: WorkflowIndex | None
    executor: WorkflowExecutor
    workspace: Workspace | None


@dataclass(frozen=True)
class AlertParts:
    """The services and ports the alert features are built from."""

    settings: Settings
    repositories: Repositories
    cases: CaseStore
    presenter: ThreadPresenter
    intake: Intake
    llm: LLMPort
    responders: Responders
    clock: Clock
    budget: BudgetGate | None = None
    tools: ToolsPort | None = None
    knowledge: KnowledgePort | None = None
    memory: SeenBeforeService | None = None


@dataclass(frozen=True)
class AlertFeatures:
    """The built services and endpoint."""

    alerts: AlertService | None
    analysis: AnalysisService
    remediation: RemediationService
    endpoint: AlertEndpoint


def build_alert_features(parts: AlertParts, workflows: Workflows) -> AlertFeatures:
    """Every alert and remediation service, wired to its ports."""
    settings, repositories, clock = parts.settings, parts.repositories, parts.clock
    catalog = workflows.catalog
    shown = RemediationThread(parts.presenter)
    planner = RcaPlanner(llm=parts.llm, index=workflows.index, catalog=catalog, clock=clock)
    analysis = AnalysisService(
        AnalysisPorts(
            planner=planner,
            catalog=catalog,
            catalog_configured=settings.workflow_catalog_dir is not None,
            groups=repositories.alert_groups,
            remediations=repositories.remediations,
            cases=parts.cases,
            presenter=parts.presenter,
            shown=shown,
            messages=repositories.messages,
            audit=repositories.audit,
            clock=clock,
            intake=parts.intake,
            budget=parts.budget,
            looks=_looks(parts),
            memory=parts.memory,
        ),
        slots=InvestigationSlots(settings.max_alert_investigations),
    )
    remediation = RemediationService(
        RemediationPorts(
            remediations=repositories.remediations,
            catalog=catalog,
            executor=workflows.executor,
            cases=parts.cases,
            presenter=parts.presenter,
            shown=shown,
            responders=parts.responders,
            messages=repositories.messages,
            audit=repositories.audit,
            clock=clock,
        )
    )
    secret = settings.alert_token
    token = secret.get_secret_value() if secret is not None and settings.alerts_enabled else None
    endpoint = AlertEndpoint(token=token, intake=parts.intake, clock=clock)
    alerts = _alerts(parts, workflows.workspace)
    return AlertFeatures(alerts, analysis, remediation, endpoint)


def _looks(parts: AlertParts) -> AlertLooks | None:
    """The trusted tools an alert's analysis reads first, when tools are configured."""
    if parts.tools is None or parts.knowledge is None:
        return None
    return AlertLooks(
        tools=parts.tools,
        knowledge=parts.knowledge,
        cases=parts.cases,
        audit=parts.repositories.audit,
        clock=parts.clock,
    )


def _alerts(parts: AlertParts, workspace: Workspace | None) -> AlertService | None:
    channel = parts.settings.alert_channel
    if workspace is None or not channel:
        return None
    shown = AlertThread(parts.presenter)
    ports = AlertPorts(
        groups=parts.repositories.alert_groups,
        cases=parts.cases,
        presenter=parts.presenter,
        shown=shown,
        messages=parts.repositories.messages,
        audit=parts.repositories.audit,
        intake=parts.intake,
        workspace=workspace,
        clock=parts.clock,
    )
    if parts.budget is not None:
        notices = BudgetNotices(
            shown=shown,
            channel=channel,
            cases=parts.cases,
            audit=parts.repositories.audit,
            clock=parts.clock,
        )
        parts.budget.subscribe(notices.tell)
    return AlertService(ports=ports, channel=channel, debounce_s=parts.settings.alert_debounce_s)
