"""Prompt contracts: one render function turns a case and its new inputs into chat messages.

Templates are markdown files in ``domain/engine/templates`` with ``{{name}}`` placeholders. The hash
covers the template sources used and the reply schema: it names the contract version, not the
case. Quoted material (uploads, retrieved excerpts) is fenced in ``<data>`` tags.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache

from pydantic import BaseModel

from domain.case import Case
from domain.engine.inputs import TurnInput
from domain.engine.prompting.briefing import EvidenceBrief, brief_evidence
from domain.engine.prompting.case_state import render_case_state
from domain.engine.prompting.screenshots import SCREENSHOTS_TEMPLATE, images_of, screenshot_lines
from domain.engine.prompting.tool_prompt import catalogue_text, results_lines
from domain.engine.schemas import (
    MAX_TOOL_REQUESTS,
    ConsultingResponse,
    InvestigationResponse,
    TerminalResponse,
)
from domain.investigation.progress import STAGE_FOCUS, InvestigationStage, StageFocus
from domain.investigation.verification import InvestigationStrategy
from domain.knowledge import RetrievedChunk
from domain.lifecycle.anchoring import anchoring_warnings
from domain.lifecycle.status import CaseStatus
from domain.lifecycle.transitions import current_strategy
from domain.llm import ChatMessage
from domain.people import mention
from domain.ports import Clock
from domain.prompt_files import contract_hash, load_prompt
from domain.records import ConversationMessage, MessageRole

MAX_HISTORY_MESSAGES = 12
STALL_WARNING_TURNS = 2
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


class PromptKind(StrEnum):
    """The prompt contracts: three per case status, two for deliverables."""

    CONSULTING = "consulting"
    INVESTIGATING = "investigating"
    TERMINAL = "terminal"
    CASE_REPORT = "case_report"
    RUNBOOK = "runbook"


SCHEMAS: dict[PromptKind, type[BaseModel] | None] = {
    PromptKind.CONSULTING: ConsultingResponse,
    PromptKind.INVESTIGATING: InvestigationResponse,
    PromptKind.TERMINAL: TerminalResponse,
    PromptKind.CASE_REPORT: None,
    PromptKind.RUNBOOK: None,
}
_FOCUS = {
    StageFocus.UNDERSTANDING: "focus_understanding",
    StageFocus.DIAGNOSING: "focus_diagnosing",
    StageFocus.RESOLVING: "focus_resolving",
}
_STRATEGY = {
    InvestigationStrategy.ACTIVE_INCIDENT: "strategy_active_incident",
    InvestigationStrategy.POST_MORTEM: "strategy_post_mortem",
}


@dataclass(frozen=True)
class PromptContext:
    """What a prompt is built from."""

    case: Case
    turn: TurnInput = field(default_factory=TurnInput)
    excerpts: Sequence[RetrievedChunk] = ()
    notes: Sequence[str] = ()
    """System notes for the model, e.g. which confirmation a person just answered."""
    brief: EvidenceBrief | None = None
    """The evidence quoted this turn; made from ``turn`` and ``excerpts`` when not given."""

    def evidence(self) -> EvidenceBrief:
        """The evidence quoted this turn, within the default budget unless given."""
        return self.brief or brief_evidence(self.case, self.turn, self.excerpts)


@dataclass(frozen=True)
class RenderedPrompt:
    """Messages to send, and the contract they belong to."""

    kind: PromptKind
    template_hash: str
    messages: tuple[ChatMessage, ...]
    schema: type[BaseModel] | None

    @property
    def template(self) -> str:
        """The main template's name."""
        return self.kind.value


def prompt_kind_for(case: Case) -> PromptKind:
    """The turn template for the case's status."""
    if case.status is CaseStatus.CONSULTING:
        return PromptKind.CONSULTING
    if case.status is CaseStatus.INVESTIGATING:
        return PromptKind.INVESTIGATING
    return PromptKind.TERMINAL


TEMPLATES = "domain.engine.templates"


def load_template(name: str) -> str:
    """A template file's text."""
    return load_prompt(TEMPLATES, name).text


def fill(template: str, values: dict[str, str]) -> str:
    """Replace every ``{{name}}``; a placeholder without a value is an error."""

    def value(match: re.Match[str]) -> str:
        return values[match.group(1)]

    return _PLACEHOLDER.sub(value, template)


def render_prompt(kind: PromptKind, context: PromptContext, *, clock: Clock) -> RenderedPrompt:
    """Render the contract ``kind`` for this case and turn; ``now`` comes from the clock."""
    used = [kind.value, "data_rules", "safety_rules"]
    values = {
        "now": clock.now().isoformat(timespec="seconds"),
        "turn": str(context.case.current_turn),
        "case_state": render_case_state(context.case),
        "data_rules": load_template("data_rules"),
        "safety_rules": load_template("safety_rules"),
    }
    values.update(_status_values(kind, context.case, used))
    if kind is PromptKind.INVESTIGATING:
        values["tools"] = _tools(context, used)
    system = fill(load_template(kind.value), values)
    brief = context.evidence()
    messages = (
        ChatMessage(role="system", content=system),
        *_history(context.turn.conversation),
        *_quoted(brief),
        _newest(kind, context, brief, used),
    )
    schema = SCHEMAS[kind]
    return RenderedPrompt(kind, _hash(tuple(used), schema), messages, schema)


def _status_values(kind: PromptKind, case: Case, used: list[str]) -> dict[str, str]:
    if kind is PromptKind.CONSULTING:
        return {"statement": _statement(case)}
    if kind is PromptKind.TERMINAL:
        return {"status": case.status.value.upper(), "closure_reason": case.closure_reason or "-"}
    if kind is PromptKind.INVESTIGATING:
        return _investigating_values(case, used)
    return {}


def _tools(context: PromptContext, used: list[str]) -> str:
    """The tools part, only when the team's tools are configured and answering."""
    if not context.turn.tools:
        return ""
    used.append("tools")
    catalogue = catalogue_text(context.turn.tools, context.case)
    values = {"catalogue": catalogue, "max_runs": str(MAX_TOOL_REQUESTS)}
    return fill(load_template("tools"), values) + "\n"


def _statement(case: Case) -> str:
    consulting = case.consulting
    if consulting.proposed_problem_statement is None:
        return "None yet."
    if consulting.problem_statement_confirmed:
        return f'"{consulting.proposed_problem_statement}" (confirmed by the people; final)'
    return (
        f'"{consulting.proposed_problem_statement}" (awaiting confirmation: they may accept it, '
        "correct it — then revise it — or ignore it — then keep asking)"
    )


def _investigating_values(case: Case, used: list[str]) -> dict[str, str]:
    stage = case.current_stage or InvestigationStage.SYMPTOM_VERIFICATION
    parts = {
        "strategy": _STRATEGY[current_strategy(case)],
        "focus": _FOCUS[STAGE_FOCUS[stage]],
        "evidence_requests": "evidence_requests",
        "classification": "classification",
        "confidence_rubric": "confidence_rubric",
    }
    used.extend(parts.values())
    values = {key: load_template(name) for key, name in parts.items()}
    values["path"] = case.path.value if case.path else "not selected yet"
    values["stage"] = stage.value
    values["warnings"] = _warnings(case, used)
    return values


def _warnings(case: Case, used: list[str]) -> str:
    blocks: list[str] = []
    degraded = case.degraded_mode if case.degraded_mode and case.degraded_mode.is_active else None
    if degraded is not None or case.turns_without_progress >= STALL_WARNING_TURNS:
        stall = (
            degraded.reason if degraded else f"No progress for {case.turns_without_progress} turns."
        )
        blocks.append(fill(load_template("degraded"), {"stall": stall}))
        used.append("degraded")
    found = anchoring_warnings(case)
    if found:
        blocks.append(fill(load_template("anchoring"), {"warnings": "\n".join(found)}))
        used.append("anchoring")
    return "\n\n".join(blocks) + "\n" if blocks else ""


def _history(conversation: Sequence[ConversationMessage]) -> list[ChatMessage]:
    messages: list[ChatMessage] = []
    for message in conversation[-MAX_HISTORY_MESSAGES:]:
        if message.role is MessageRole.ASSISTANT:
            messages.append(ChatMessage(role="assistant", content=message.text))
        elif message.role is MessageRole.USER:
            messages.append(
                ChatMessage(role="user", content=f"{mention(message.author)}: {message.text}")
            )
    return messages


def _quoted(brief: EvidenceBrief) -> list[ChatMessage]:
    """Quoted evidence, least decisive first: a model's window too small for all of it drops
    messages from the oldest on, so the lines around the top finding go last."""
    parts = [brief.excerpts, brief.earlier, *reversed(brief.contexts), *reversed(brief.tools)]
    return [ChatMessage(role="user", content=part) for part in parts if part]


def _newest(
    kind: PromptKind, context: PromptContext, brief: EvidenceBrief, used: list[str]
) -> ChatMessage:
    """The newest input, carrying this turn's screenshots (and the part saying how to read them)."""
    text = _new_input(kind, context, brief)
    images = images_of(context.turn.files) if SCHEMAS[kind] is not None else ()
    if images:
        used.append(SCREENSHOTS_TEMPLATE)
        lines = screenshot_lines(context.turn.files)
        text += "\n" + fill(load_template(SCREENSHOTS_TEMPLATE), {"screenshots": lines})
    return ChatMessage(role="user", content=text, images=images)


def _new_input(kind: PromptKind, context: PromptContext, brief: EvidenceBrief) -> str:
    if SCHEMAS[kind] is None:
        return "Write the document now."
    lines = [f"NEW INPUT (turn {context.case.current_turn})"]
    for message in context.turn.messages:
        files = f" [shared files: {', '.join(message.file_ids)}]" if message.file_ids else ""
        lines.append(f"{mention(message.author)} (ts {message.ts}){files}: {message.text}")
    if brief.uploads:
        lines.append(brief.uploads)
    lines.extend(results_lines(context.turn.tool_results))
    lines.extend(f"System note: {note}" for note in context.notes)
    if brief.left_out:
        lines.append(f"System note: {brief.note()}")
    if len(lines) == 1:
        lines.append("(nothing new: review the case and say what is needed next)")
    return "\n".join(lines)


@cache
def _hash(used: tuple[str, ...], schema: type[BaseModel] | None) -> str:
    """Templates and reply schema never change while the process runs: hashed once each."""
    return contract_hash([load_prompt(TEMPLATES, name) for name in used], schema)
