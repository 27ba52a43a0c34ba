"""The case as the judge reads it: the conversation and everything the investigation recorded.

The seed's "session conversation" is the case transcript: messages, uploads, evidence requests and
what came back, knowledge searches, the bot's replies, status changes and who confirmed them. The
"alert data" is what opened the case. Long texts are shortened so one chatty thread cannot crowd
out the rest; the gateway trims the middle further if the whole prompt still does not fit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from domain.case import Case
from domain.investigation.conclusions import RootCauseConclusion
from domain.investigation.evidence import Evidence, UploadedFile
from domain.investigation.evidence_requests import EvidenceRequest, EvidenceStatus
from domain.investigation.hypotheses import Hypothesis
from domain.investigation.turns import TurnProgress
from domain.people import mention
from domain.records import AuditEntry, ConversationMessage, MessageRole

MESSAGE_CHARS = 1500
ITEM_CHARS = 600
BOT_NAME = "FaultMaven"
# Earlier scorings are not part of the investigation they grade.
BOOKKEEPING_PREFIXES = ("scoring.",)
NONE = "(none)"


@dataclass(frozen=True)
class CaseMaterial:
    """Everything recorded about a case that the transcript is built from."""

    case: Case
    conversation: Sequence[ConversationMessage]
    audit: Sequence[AuditEntry]


def build_transcript(material: CaseMaterial) -> str:
    """The whole investigation as plain text, section by section."""
    case = material.case
    sections = [
        _overview(case),
        _section("Conversation in the thread (oldest first)", _conversation(material)),
        _section("Files uploaded into the thread", [_upload(f) for f in case.uploaded_files]),
        _section("Evidence requests the bot made, and what came back", _requests(case)),
        _section("Evidence collected", [_evidence(e) for e in case.evidence]),
        _section("Hypotheses", [_hypothesis(h) for h in case.hypotheses.values()]),
        _section("Turn log (what each bot turn did, knowledge searches included)", _turns(case)),
        _section("Conclusions, solutions and dead ends", _conclusions(case)),
        _section("Status changes and confirmations (who decided)", _decisions(material)),
    ]
    return "\n\n".join(sections)


def alert_data(material: CaseMaterial) -> str:
    """What opened the case: how, by whom, and the first message (the alert or report)."""
    case = material.case
    lines = [f"Opened {_when(case.created_at)} by {mention(case.user_id)}."]
    opening = next((e for e in material.audit if "opened_by" in e.detail), None)
    if opening is not None:
        extra = {k: v for k, v in opening.detail.items() if k not in ("ts", "opened_by")}
        lines.extend(f"{key}: {_short(str(value), ITEM_CHARS)}" for key, value in extra.items())
    first = next((m for m in material.conversation if m.role is MessageRole.USER), None)
    if first is not None:
        lines.append(
            f"First message, from {mention(first.author)}:\n{_short(first.text, MESSAGE_CHARS)}"
        )
    else:
        lines.append(f"Title: {case.title or 'untitled'}")
    return "\n".join(lines)


# ------------------------------------------------------------------ sections


def _section(title: str, lines: Sequence[str]) -> str:
    return f"### {title}\n" + ("\n".join(lines) if lines else NONE)


def _overview(case: Case) -> str:
    finished = case.closed_at or case.resolved_at or case.updated_at
    statement = case.consulting.proposed_problem_statement
    confirmed = (
        "confirmed by the people"
        if case.consulting.problem_statement_confirmed
        else "not confirmed"
    )
    lines = [
        f"Case {case.short_id or case.case_id}: {case.title or 'untitled'}",
        f"Status: {case.status.value} (closure reason: {case.closure_reason or '-'})",
        f"Opened {_when(case.created_at)}; finished {_when(finished)}; turns: {case.current_turn}",
        f"Investigation path: {case.path.value if case.path else 'none chosen'}",
        f"Problem statement: {statement} ({confirmed})"
        if statement
        else "Problem statement: none was formalised",
    ]
    return "### Overview\n" + "\n".join(lines)


def _conversation(material: CaseMaterial) -> list[str]:
    lines = []
    for message in material.conversation:
        if message.role is MessageRole.SYSTEM:
            who = "System note"
        elif message.role is MessageRole.ASSISTANT:
            who = BOT_NAME
        else:
            who = f"{mention(message.author)}"
        files = f" [shared files: {', '.join(message.files)}]" if message.files else ""
        text = _short(message.text, MESSAGE_CHARS)
        lines.append(f"[{_when(message.created_at)}] {who}{files}: {text}")
    return lines


def _upload(file: UploadedFile) -> str:
    facts = [f"{file.size_bytes:,} bytes"]
    if file.line_count is not None:
        facts.append(f"{file.line_count:,} lines")
    if file.redactions:
        facts.append(f"{file.redactions} secrets redacted")
    return (
        f"- {file.filename} ({file.file_id}; {', '.join(facts)}) uploaded by "
        f"{mention(file.uploaded_by)} at {_when(file.uploaded_at)}"
    )


def _requests(case: Case) -> list[str]:
    return [_request(r) for r in case.evidence_requests]


def _request(request: EvidenceRequest) -> str:
    guidance = request.guidance
    lines = [
        f"- {request.request_id} [{request.criticality.value}, {request.category.value}] "
        f'"{request.label}" (asked in turn {request.created_at_turn}): '
        f"{_short(request.description, ITEM_CHARS)}"
    ]
    if guidance.commands:
        lines.append("  Suggested commands: " + "; ".join(f"`{c}`" for c in guidance.commands))
    places = [*guidance.file_locations, *guidance.ui_locations, *guidance.alternatives]
    if places:
        lines.append("  Where else to look: " + "; ".join(places))
    lines.append(f"  Outcome: {_request_outcome(request)}")
    return "\n".join(lines)


def _request_outcome(request: EvidenceRequest) -> str:
    turn = f", turn {request.updated_at_turn}" if request.updated_at_turn is not None else ""
    if request.status is EvidenceStatus.BLOCKED:
        reason = request.metadata.get("blocked_reason") or "no reason given"
        return f"blocked ({reason}{turn})"
    if request.status is EvidenceStatus.PENDING:
        return "never answered"
    return f"{request.status.value} ({round(request.completeness * 100)}% complete{turn})"


def _evidence(evidence: Evidence) -> str:
    line = (
        f"- {evidence.evidence_id} (turn {evidence.collected_at_turn}, "
        f"{evidence.source_type.value}, from {mention(evidence.collected_by)}): "
        f"{_end(_short(evidence.summary, ITEM_CHARS))}"
    )
    if evidence.key_findings:
        line += " Findings: " + _end("; ".join(evidence.key_findings))
    answered = evidence.fulfills_request_id or ", ".join(evidence.addresses_requests)
    if answered:
        line += f" Answers: {answered}."
    if evidence.tests_hypothesis_id and evidence.stance:
        line += f" Tests {evidence.tests_hypothesis_id}: {evidence.stance.value}."
    if evidence.disputed:
        line += " (disputed by a person)"
    return line


def _hypothesis(hypothesis: Hypothesis) -> str:
    supported = ", ".join(hypothesis.supporting_evidence) or "-"
    refuted = ", ".join(hypothesis.refuting_evidence) or "-"
    return (
        f"- {hypothesis.hypothesis_id} ({hypothesis.status.value}, likelihood "
        f"{round(hypothesis.likelihood * 100)}%, from turn {hypothesis.generated_at_turn}): "
        f"{_end(_short(hypothesis.statement, ITEM_CHARS))} Supported by: {supported}; "
        f"contradicted by: {refuted}"
    )


def _turns(case: Case) -> list[str]:
    return [_turn(t) for t in case.turn_history]


def _turn(turn: TurnProgress) -> str:
    done = [
        ("milestones", turn.milestones_completed),
        ("evidence added", turn.evidence_added),
        ("hypotheses new", turn.hypotheses_generated),
        ("hypotheses validated", turn.hypotheses_validated),
        ("solutions proposed", turn.solutions_proposed),
    ]
    parts = [f"{name}: {', '.join(items)}" for name, items in done if items]
    parts.extend(turn.actions_taken)
    said = (
        f' People: "{_short(turn.user_message_summary, 200)}".' if turn.user_message_summary else ""
    )
    return (
        f"- Turn {turn.turn_number + 1} ({turn.outcome.value}, "
        f"{'progress' if turn.progress_made else 'no progress'}): "
        f"{'; '.join(parts) or 'nothing recorded'}.{said}"
    )


def _conclusions(case: Case) -> list[str]:
    lines = []
    working = case.working_conclusion
    if working is not None:
        lines.append(
            f"Working conclusion ({round(working.confidence * 100)}%): "
            f"{_short(working.statement, ITEM_CHARS)}"
        )
    if case.root_cause_conclusion is not None:
        lines.append(_root_cause(case.root_cause_conclusion))
    for solution in case.solutions:
        kind = "mitigation" if solution.is_mitigation else solution.solution_type.value
        applied = f", applied by {mention(solution.applied_by)}" if solution.applied_by else ""
        verified = f", verified by {mention(solution.verified_by)}" if solution.verified_by else ""
        commands = "; ".join(f"`{c}`" for c in solution.commands)
        lines.append(
            f"Solution ({kind}{applied}{verified}): {_end(solution.title)}"
            + (f" Commands: {commands}" if commands else "")
        )
    for dead_end in case.dead_ends:
        lines.append(
            f"Ruled out in turn {dead_end.turn_number + 1}: {dead_end.hypothesis} "
            f"({_short(dead_end.why_ruled_out, ITEM_CHARS)})"
        )
    return lines


def _root_cause(root: RootCauseConclusion) -> str:
    alternatives = "; ".join(
        f"{a.hypothesis} ({round(a.confidence * 100)}%)" for a in root.alternative_explanations
    )
    return (
        f"Root cause ({round(root.confidence_score * 100)}%, {root.confidence_level.value}, "
        f"by {root.determined_by}): {_end(_short(root.root_cause, ITEM_CHARS))} "
        f"Mechanism: {_end(_short(root.mechanism, ITEM_CHARS))} "
        f"Evidence basis: {', '.join(root.evidence_basis) or 'none'}. "
        f"Missing evidence: {'; '.join(root.missing_evidence) or 'none stated'}. "
        f"Alternatives: {alternatives or 'none stated'}. "
        f"Caveats: {'; '.join(root.caveats) or 'none stated'}."
    )


def _decisions(material: CaseMaterial) -> list[str]:
    """Questions, status changes and recorded actions, in the order they happened."""
    case = material.case
    events: list[tuple[datetime, str]] = []
    # Questions first: at the same moment, a status change follows the question that allowed it.
    for confirmation in case.confirmations:
        answer = (
            f"{confirmation.decision.value} by {mention(confirmation.answered_by)}"
            if confirmation.decision is not None
            else confirmation.state.value
        )
        asked = f' "{_short(confirmation.prompt, ITEM_CHARS)}"' if confirmation.prompt else ""
        events.append(
            (confirmation.proposed_at, f"Asked ({confirmation.kind.value}){asked} → {answer}")
        )
    events.extend(
        (
            t.triggered_at,
            f"Status {t.from_status.value} → {t.to_status.value}, confirmed by "
            f"{mention(t.triggered_by)}: {_short(t.reason, ITEM_CHARS)}",
        )
        for t in case.status_history
    )
    events.extend((entry.at, _audit_line(entry)) for entry in material.audit if _told(entry))
    events.sort(key=lambda event: event[0])
    return [f"[{_when(at)}] {line}" for at, line in events]


def _told(entry: AuditEntry) -> bool:
    return not entry.action.startswith(BOOKKEEPING_PREFIXES)


def _audit_line(entry: AuditEntry) -> str:
    detail = ", ".join(f"{k}={v}" for k, v in entry.detail.items())
    return f"{mention(entry.actor)} {entry.action} via {entry.source}" + (
        f" ({detail})" if detail else ""
    )


# ------------------------------------------------------------------ helpers


def _when(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def _end(text: str) -> str:
    """The text as a sentence: ending with punctuation, so the next one does not run into it."""
    text = text.strip()
    return text if not text or text[-1] in ".!?…)" else f"{text}."


def _short(text: str | None, limit: int) -> str:
    """At most ``limit`` characters, cut between words, marked when cut."""
    flat = (text or "").strip()
    if len(flat) <= limit:
        return flat
    cut = flat[:limit].rsplit(" ", 1)[0]
    return f"{cut} …[shortened]"
