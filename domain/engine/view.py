"""The reply view model: what the Slack layer renders after a turn (never raw model output)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import ConfigDict, Field, field_validator

from domain.base import DomainModel
from domain.engine.summary import SummaryView
from domain.investigation.conclusions import ConfidenceLevel
from domain.investigation.evidence_requests import Criticality, EvidenceStatus, RequestCategory
from domain.investigation.hypotheses import HypothesisCategory, HypothesisStatus
from domain.knowledge import Citation
from domain.lifecycle.confirmations import ConfirmationKind, Decision
from domain.lifecycle.special_states import DegradedModeType, DocumentType, WayOut
from domain.lifecycle.status import CaseStatus
from domain.tools.audit import ToolOutcome
from domain.tools.runs import ToolRunStatus


class View(DomainModel):
    """Base of the view models: immutable."""

    model_config = ConfigDict(frozen=True)


class ReplyKind(StrEnum):
    """How the reply came about."""

    ANSWER = "answer"
    """The model answered and the system applied its reply."""
    NO_LLM = "no_llm"
    """No model (not configured or unreachable): a deterministic reply."""
    FAULT = "fault"
    """The model failed (timeout, rate limit, invalid reply): the case is unchanged."""
    DECISION = "decision"
    """A person answered a confirmation (button), nothing else happened."""


class ConfirmationPrompt(View):
    """A question for the people, with its buttons (typed yes/no works too)."""

    confirmation_id: str
    kind: ConfirmationKind
    prompt: str
    options: list[Decision]
    """The answers offered, in order (how each is worded is the renderer's business)."""
    to_status: CaseStatus | None = None
    """For a status change: the status a yes moves the case to."""
    quiet: bool = False
    """Asked quietly (no emphasis): a minor question while the mitigation is the call to action."""


class RequestCard(View):
    """An evidence request with how to obtain it (commands read-only, checked or judged by their
    verbs: the renderer labels the latter "not checked")."""

    request_id: str
    label: str
    description: str
    category: RequestCategory
    criticality: Criticality
    status: EvidenceStatus
    commands: list[str] = Field(default_factory=list)
    file_locations: list[str] = Field(default_factory=list)
    ui_locations: list[str] = Field(default_factory=list)
    alternatives: list[str] = Field(default_factory=list)
    prerequisites: list[str] = Field(default_factory=list)
    expected_output: str | None = None


class ToolRunCard(View):
    """A tool run the model asked for: the exact call, and where it stands."""

    run_id: str
    number: int
    server: str
    tool: str
    arguments: str
    """The arguments as JSON, exactly as they are sent."""
    reason: str = ""
    request_id: str | None = None
    """The evidence request it would answer, if any (its card is shown under that request)."""
    status: ToolRunStatus
    consented_by: str | None = None
    """A person's id, or `trust`."""
    outcome: ToolOutcome | None = None
    sentence: str = ""
    citation: str = ""


class HypothesisView(View):
    """A hypothesis with its likelihood."""

    hypothesis_id: str
    statement: str
    category: HypothesisCategory
    status: HypothesisStatus
    likelihood: float


class EvidenceView(View):
    """A piece of evidence, briefly."""

    evidence_id: str
    summary: str


class ConclusionView(View):
    """The working conclusion."""

    statement: str
    confidence: float


class RootCauseView(View):
    """The root cause with its confidence level and the evidence for and missing."""

    root_cause: str
    mechanism: str
    confidence_score: float
    confidence_level: ConfidenceLevel
    rubric: str
    """The confidence rubric's words for the score."""
    supporting_evidence: list[EvidenceView] = Field(default_factory=list)
    missing_evidence: list[str] = Field(default_factory=list)
    alternative_explanations: list[str] = Field(default_factory=list)
    caveats: list[str] = Field(default_factory=list)


class StepView(View):
    """A solution step a person's word recorded (applied, or it worked): who, when, and whether
    it can still be taken back (Undo)."""

    confirmation_id: str
    solution_id: str
    title: str
    verified: bool = False
    """It worked (verified); otherwise it was applied."""
    by: str
    at: datetime | None = None
    undoable: bool = False
    undone_by: str | None = None
    """Who took it back, once it was."""


class SolutionView(View):
    """A proposed, applied or verified solution (commands already judged: checks, actions that
    the renderer labels with what they change, and notes for withheld ones)."""

    solution_id: str
    title: str
    is_mitigation: bool
    state: str
    """proposed | applied | attested (people say it works) | verified (evidence shows it)."""
    immediate_action: str | None = None
    longterm_fix: str | None = None
    implementation_steps: list[str] = Field(default_factory=list)
    commands: list[str] = Field(default_factory=list)
    risks: list[str] = Field(default_factory=list)
    offered: bool = False
    """A mitigation not applied yet while the case runs: its card carries "I've applied it" (and
    "Not now", until someone said it)."""
    deferred_by: str | None = None
    """Who said "Not now" to applying it."""
    applied: StepView | None = None
    """Who said they applied it (with Undo while nothing depends on it)."""


EscalationOption = WayOut
"""Fallbacks offered in degraded mode, each a button that moves the case."""
_EARLIER_OPTIONS = {
    "Proceed with the best guess (lower confidence)": WayOut.BEST_GUESS,
    "Escalate to someone with more access or expertise": WayOut.ESCALATE,
    "Close the case": WayOut.CLOSE,
    "Try a different kind of explanation": WayOut.NEW_CATEGORY,
}
"""How replies kept before the options were buttons named them."""


class EscalationView(View):
    """Degraded mode: why, whether to escalate now, the ways out (buttons), what to share.

    Said once, in the reply of the turn that found the case stuck; a later reply while it is
    still stuck refers to it in one line (``said``)."""

    mode: DegradedModeType
    reason: str
    recommended: bool
    """True when critical evidence is blocked: someone with more access is needed."""
    options: list[WayOut]
    share: list[str] = Field(default_factory=list)
    """What to hand the person escalated to."""
    said: bool = False
    """An earlier reply said it with its ways out: this one refers to it in a line."""
    key: str = ""
    """What the message saying it is remembered under, so it can be redrawn."""
    open: bool = True
    """Its buttons are live: the case is still stuck and not finished."""
    chosen: str | None = None
    """The way out chosen last, who and when ("{@U1} chose to escalate")."""

    @field_validator("options", mode="before")
    @classmethod
    def _earlier_names(cls, value: object) -> object:
        if isinstance(value, list):
            return [_EARLIER_OPTIONS.get(v, v) if isinstance(v, str) else v for v in value]
        return value


class DocumentView(View):
    """A generated document, to post as a file in the thread."""

    document_type: DocumentType
    title: str
    filename: str
    markdown: str


class RemovedCommand(View):
    """A command the safety validator withheld (debug and audit only: never render it)."""

    command: str
    safety: str
    reason: str


class SecondLookNote(View):
    """What the second look did to a confident root cause (for audit and the evaluations)."""

    before: float = Field(ge=0.0, le=1.0)
    """The confidence the model stated."""
    after: float = Field(ge=0.0, le=1.0)
    """The confidence shown: never above ``before``."""
    unshown: list[str] = Field(default_factory=list)
    """The links of its causal chain that no evidence the case holds shows yet."""
    failed: bool = False
    """The check's model call failed: the root cause was shown as the model gave it."""


class DebugInfo(View):
    """What happened under the hood, for logs and audit."""

    template: str | None = None
    template_hash: str | None = None
    llm_outcome: str | None = None
    unsafe_commands_removed: int = 0
    removed_commands: list[RemovedCommand] = Field(default_factory=list)
    ignored: list[str] = Field(default_factory=list)
    second_look: SecondLookNote | None = None
    """The second look at this turn's root cause, when one was taken."""


class TurnReply(View):
    """Everything a turn says to the thread."""

    kind: ReplyKind
    text: str
    """The answer (Slack markdown); unsafe commands already withheld."""
    notices: list[str] = Field(default_factory=list)
    """Short system notes (withheld commands, requests that could not be asked yet)."""
    evidence_requests: list[RequestCard] = Field(default_factory=list)
    """Requests created this turn."""
    confirmations: list[ConfirmationPrompt] = Field(default_factory=list)
    """Questions proposed this turn and still pending."""
    tool_runs: list[ToolRunCard] = Field(default_factory=list)
    """Tool runs asked for this turn (waiting for Run or Skip, or trusted)."""
    superseded_confirmation_ids: list[str] = Field(default_factory=list)
    """Earlier questions that no longer apply (rewrite their messages)."""
    hypotheses: list[HypothesisView] = Field(default_factory=list)
    working_conclusion: ConclusionView | None = None
    root_cause: RootCauseView | None = None
    solutions: list[SolutionView] = Field(default_factory=list)
    """Solutions proposed this turn."""
    recorded: list[StepView] = Field(default_factory=list)
    """Solution steps the people's words recorded this turn (not asked: said)."""
    citations: list[Citation] = Field(default_factory=list)
    escalation: EscalationView | None = None
    documents: list[DocumentView] = Field(default_factory=list)
    suggestions: list[str] = Field(default_factory=list)
    """Short, safe things to try right away, suggested this turn (already checked)."""
    summary: SummaryView
    """The case's incident summary after the turn."""
    debug: DebugInfo = Field(default_factory=DebugInfo)
