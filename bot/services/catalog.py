"""Every use-case service, as listeners, the worker and the alert edge receive them."""

from __future__ import annotations

from dataclasses import dataclass

from bot.services.alerting.alerts import AlertService
from bot.services.alerting.analysis import AnalysisService
from bot.services.alerting.remediation import RemediationService
from bot.services.cases import CaseStore
from bot.services.clicks import ClickService
from bot.services.commands import CommandService
from bot.services.feedback import FeedbackService
from bot.services.home import HomeService, RunbookService
from bot.services.intake import Intake
from bot.services.memory import SeenBeforeService
from bot.services.opening import CaseOpener
from bot.services.outcomes import OutcomeService
from bot.services.proposals import MitigationSteps, StuckOptions
from bot.services.retries import RetryService
from bot.services.scoring.service import ScoringService
from bot.services.tools import ToolService
from bot.services.turns import TurnService
from bot.thread.presenter import ThreadPresenter


@dataclass(frozen=True)
class Services:
    """Everything listeners and the worker call."""

    intake: Intake
    cases: CaseStore
    presenter: ThreadPresenter
    opening: CaseOpener
    turns: TurnService
    clicks: ClickService
    commands: CommandService
    home: HomeService
    runbooks: RunbookService
    scoring: ScoringService
    analysis: AnalysisService
    remediation: RemediationService
    retries: RetryService
    feedback: FeedbackService
    outcomes: OutcomeService
    alerts: AlertService | None = None
    """None without a Slack workspace or FM_ALERT_CHANNEL (the console)."""
    tools: ToolService | None = None
    """None without FM_MCP_CONFIG: the model is offered no tools."""
    memory: SeenBeforeService | None = None
    """None when the knowledge base cannot search finished cases' documents."""
    steps: MitigationSteps | None = None
    """The mitigation card's buttons and Undo (None only where a test builds a few services)."""
    stuck: StuckOptions | None = None
    """The ways out of a stuck case (None only where a test builds a few services)."""
