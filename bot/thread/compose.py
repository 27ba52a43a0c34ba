"""The bot's messages as the case has them now, drawn from what was kept of them.

A reply is kept (in `MessageRefs`, as a `ShownReply`) with what it said, what it opened with and
whether its questions sit at its foot; the first answer of a case is kept with the summary it
shares the thread's first message with. From those, and the case as it is now, each message can be
drawn again: a question answered shows the decision instead of its buttons, a request no longer
open loses its "Can't get this", the summary says what changed. Nothing here posts;
`ThreadPresenter` does.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence

from slack_sdk.models.blocks import Block

from bot.slack.render.case.header import case_header_message
from bot.slack.render.case.memory import seen_before_lead
from bot.slack.render.case.prompts import confirmation_message, decided_message, superseded_message
from bot.slack.render.case.reply import reply_message
from bot.slack.render.case.tools import results_lead
from bot.slack.render.case.uploads import image_lead, no_vision, upload_lead, upload_refused
from bot.slack.render.message import SlackMessage, divider, message
from bot.thread.memory import (
    EarlierBlocks,
    FileRead,
    FileRefused,
    ImageRead,
    Lead,
    NoVision,
    SeenBeforeLead,
    ShownReply,
    ToolResults,
)
from domain.budget import LLMSpend
from domain.case import Case
from domain.engine.present import tool_card
from domain.engine.view import ConfirmationPrompt, RequestCard, ToolRunCard, TurnReply
from domain.investigation.evidence_requests import OPEN_STATUSES, EvidenceStatus
from domain.lifecycle.confirmations import ConfirmationState, StatusChangePayload
from domain.lifecycle.status import TERMINAL_STATUSES
from domain.people import mention
from domain.tools.runs import ToolRunStatus


def digest(rendered: SlackMessage) -> str:
    """What a message shows, as a short fingerprint (an edit that changes nothing is skipped)."""
    shown = json.dumps(rendered.payload(), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(shown.encode()).hexdigest()[:32]


def kept(reply: TurnReply, lead: Sequence[Lead], *, questions: bool) -> ShownReply:
    """What to keep of a reply to draw it again later."""
    return ShownReply(reply=reply, lead=list(lead), questions=questions)


def redrawn(case: Case, body: ShownReply) -> SlackMessage:
    """A kept reply as the case has it now (its questions as they were decided)."""
    lead = lead_messages(body.lead, case_id=case.case_id)
    if body.questions:
        return with_questions(case, body.reply, body.notes, lead=lead)
    return led(lead, reply_message(current(case, body.reply), case_id=case.case_id))


def top(case: Case, opening: ShownReply | None, spend: LLMSpend | None = None) -> SlackMessage:
    """The thread's first message: the living summary (with what the model cost, ``spend``),
    then the case's first answer (if it was posted with it), as the case has it now."""
    summary = case_header_message(case, spend)
    if not opening:
        return summary
    answer = redrawn(case, opening)
    return message([*summary.blocks, divider(), *answer.blocks], text=answer.text)


def with_questions(
    case: Case,
    reply: TurnReply,
    notes: Mapping[str, str] | None = None,
    *,
    lead: Sequence[SlackMessage] = (),
) -> SlackMessage:
    """The reply with each of its questions as the case has it now: asked (buttons),
    answered (who decided what: ``notes`` by confirmation id, else a short default) or
    replaced by a newer one; after ``lead``."""
    shown = reply_message(current(case, reply), case_id=case.case_id)
    blocks = list(shown.blocks)
    for prompt in reply.confirmations:
        blocks += question(case, prompt, (notes or {}).get(prompt.confirmation_id)).blocks
    return led(lead, message(blocks, text=shown.text))


def question(case: Case, prompt: ConfirmationPrompt, note: str | None) -> SlackMessage:
    """One question of a reply as it stands in ``case``."""
    confirmation = case.find_confirmation(prompt.confirmation_id)
    if confirmation is None or confirmation.state is ConfirmationState.PENDING:
        final = is_final(case, prompt.confirmation_id)
        return confirmation_message(prompt, case_id=case.case_id, final=final)
    if confirmation.state is ConfirmationState.SUPERSEDED:
        return superseded_message(prompt.prompt)
    decision = confirmation.decision.value if confirmation.decision else "answered"
    who = mention(confirmation.answered_by) if confirmation.answered_by else "Someone"
    said = note or f"{who} answered {decision}."
    return decided_message(said, accepted=confirmation.state is ConfirmationState.ACCEPTED)


def is_final(case: Case, confirmation_id: str) -> bool:
    """Whether accepting this confirmation makes the case final (resolve or close)."""
    confirmation = case.find_confirmation(confirmation_id)
    payload = confirmation.payload if confirmation else None
    return isinstance(payload, StatusChangePayload) and payload.to_status in TERMINAL_STATUSES


def looks(status: EvidenceStatus) -> str:
    """How a request card shows ``status``: open ones alike (they carry the button)."""
    return "open" if status in OPEN_STATUSES else status.value


def led(lead: Sequence[SlackMessage], shown: SlackMessage) -> SlackMessage:
    """``shown`` opening with ``lead``'s blocks (its fallback text stays the answer's)."""
    if not lead:
        return shown
    blocks = [block for part in lead for block in part.blocks]
    return message([*blocks, divider(), *shown.blocks], text=shown.text)


def only_documents(reply: TurnReply) -> bool:
    """Whether ``reply`` is a short note and documents, and nothing else to show."""
    shown = (
        reply.confirmations,
        reply.evidence_requests,
        reply.solutions,
        reply.hypotheses,
        reply.notices,
        reply.citations,
        reply.superseded_confirmation_ids,
    )
    nothing_else = not any(shown) and reply.root_cause is None and reply.escalation is None
    return bool(reply.documents) and nothing_else and reply.working_conclusion is None


def lead_messages(lead: Sequence[Lead], *, case_id: str) -> list[SlackMessage]:
    """What an answer opens with, drawn."""
    return [lead_message(item, case_id=case_id) for item in lead]


def lead_message(item: Lead, *, case_id: str) -> SlackMessage:
    """One part of what an answer opens with, drawn."""
    match item:
        case FileRead(report=report):
            return upload_lead(report)
        case FileRefused(filename=filename, reason=reason):
            return upload_refused(filename, reason)
        case ImageRead(filename=filename):
            return image_lead(filename)
        case NoVision():
            return no_vision()
        case ToolResults(results=results, kept_bytes=sizes):
            return results_lead(results, sizes=sizes)
        case SeenBeforeLead(match=past, link=link):
            return seen_before_lead(past, case_id=case_id, link=link)
        case EarlierBlocks(blocks=blocks):
            parsed = [Block.parse(b) for b in blocks]
            return message(b for b in parsed if b is not None)


def current(case: Case, reply: TurnReply) -> TurnReply:
    """``reply`` with its evidence request cards as the case has them now (open or not).

    In a finished case nothing is open any more: a request still open shows as no longer
    needed, a run still waiting as skipped, so no card keeps a button.
    """
    cards = []
    for card in reply.evidence_requests:
        request = case.find_request(card.request_id)
        cards.append(card.model_copy(update={"status": request.status}) if request else card)
    runs = [_run_now(case, card) for card in reply.tool_runs]
    if case.status in TERMINAL_STATUSES:
        cards = [_finished(card) for card in cards]
        runs = [_finished_run(card) for card in runs]
    return reply.model_copy(update={"evidence_requests": cards, "tool_runs": runs})


def _finished(card: RequestCard) -> RequestCard:
    if card.status not in OPEN_STATUSES:
        return card
    return card.model_copy(update={"status": EvidenceStatus.OBSOLETE})


def _finished_run(card: ToolRunCard) -> ToolRunCard:
    if card.status is not ToolRunStatus.PENDING:
        return card
    return card.model_copy(update={"status": ToolRunStatus.SKIPPED})


def _run_now(case: Case, card: ToolRunCard) -> ToolRunCard:
    run = case.find_tool_run(card.run_id)
    return tool_card(run) if run is not None else card
