"""Turns without a model: record evidence, answer from the knowledge base, take requests."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from domain.engine.apply.evidence import new_evidence
from domain.engine.apply.reply import propose_statement, request_status_change
from domain.engine.context import TurnContext
from domain.engine.inputs import InputFile
from domain.engine.intents import StatusIntent, parse_status_intent
from domain.engine.schemas import StatusChangeRequest
from domain.knowledge import KnowledgeBaseKind, RetrievedChunk
from domain.lifecycle.status import CaseStatus
from domain.people import mention

MAX_EXCERPTS_SHOWN = 3
EXCERPT_CHARS = 300
HOW_TO = (
    "You can still share files and findings, ask me to search the knowledge base, or say "
    "`investigate: <the problem>`, `resolved: <what fixed it>` or `close this`."
)


def no_llm_text(*, unreachable: bool, how_to: bool = True) -> str:
    """Say plainly that the model is not there (and what works without it, when `how_to`)."""
    if unreachable:
        opening = "The language model is unreachable right now, so this is a plain answer."
    else:
        opening = "No language model is configured, so this is a plain answer."
    return f"{opening} {HOW_TO}" if how_to else opening


@dataclass(frozen=True)
class PlainAnswer:
    """What a turn without a model says after its opening line."""

    lines: list[str]
    quoted: list[RetrievedChunk]
    """The excerpts it quotes: its sources are these, not everything retrieved."""
    asked: bool
    """A request (`investigate:`, `resolved:`, `close this`) became a question or a hint."""


def no_llm_turn(
    ctx: TurnContext, excerpts: Sequence[RetrievedChunk], *, consumed: Collection[str] = ()
) -> PlainAnswer:
    """Apply the turn deterministically."""
    last = ctx.turn.messages[-1] if ctx.turn.messages else None
    intent = parse_status_intent(last.text) if last and last.ts not in consumed else None
    if intent is not None:
        propose_intent(ctx, intent)
        return PlainAnswer([], [], asked=True)
    lines: list[str] = []
    recorded = record_inputs(ctx, consumed=consumed)
    if recorded:
        lines.append(f"Recorded {recorded} piece(s) of evidence.")
    shown = list(excerpts[:MAX_EXCERPTS_SHOWN])
    if shown:
        lines.append(_heading(shown))
    for chunk in shown:
        text = " ".join(chunk.text.split())[:EXCERPT_CHARS]
        lines.append(f"> {text}\n— _{chunk.citation.label()}_")
    return PlainAnswer(lines, shown, asked=False)


def _heading(shown: Sequence[RetrievedChunk]) -> str:
    """Where the quotes come from: the case's own files, the knowledge bases, or both."""
    from_case = {chunk.citation.kb is KnowledgeBaseKind.CASE for chunk in shown}
    if from_case == {True}:
        return "What this case's files show on this:"
    if from_case == {False}:
        return "What the knowledge base has on this:"
    return "What this case's files and the knowledge base have on this:"


def propose_intent(ctx: TurnContext, intent: StatusIntent) -> None:
    """An explicit request becomes a question for the people (never applied directly)."""
    case = ctx.case
    if intent.to_status is CaseStatus.INVESTIGATING and case.status is CaseStatus.CONSULTING:
        statement = intent.detail or case.consulting.proposed_problem_statement or case.title
        if not statement.strip():
            ctx.log.notes.append("Tell me the problem first: `investigate: <one-line problem>`.")
            return
        propose_statement(ctx, statement.strip())
        return
    request_status_change(
        ctx,
        StatusChangeRequest(
            to_status=intent.to_status,
            reason=f"asked by {mention(ctx.actor)}",
            resolution_summary=intent.detail if intent.to_status is CaseStatus.RESOLVED else None,
        ),
    )


def record_inputs(ctx: TurnContext, *, consumed: Collection[str] = ()) -> int:
    """Uploads and statements become evidence (questions and answers to confirmations do not)."""
    if ctx.case.is_terminal:
        return 0
    progress = ctx.case.progress
    count = 0
    for upload in ctx.turn.files:
        new_evidence(
            ctx, summary=_file_summary(upload), source_ref=upload.file.file_id, progress=progress
        )
        count += 1
    for message in ctx.turn.messages:
        text = message.text.strip()
        if not text or message.ts in consumed or text.endswith("?"):
            continue
        new_evidence(ctx, summary=text, source_ref=message.ts, progress=progress)
        count += 1
    return count


def _file_summary(upload: InputFile) -> str:
    report = upload.report
    name = upload.file.filename
    if report is None:
        return f"Uploaded {name}"
    summary = f"Uploaded {name}: {report.lines} lines, {report.error_count} errors"
    if report.first_timestamp and report.last_timestamp:
        first = report.first_timestamp.isoformat(timespec="seconds")
        last = report.last_timestamp.isoformat(timespec="seconds")
        summary += f", {first} to {last}"
    return summary
