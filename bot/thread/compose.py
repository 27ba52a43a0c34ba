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
from slack_sdk.models.views import View

from bot.slack.ids import DetailsValue
from bot.slack.render.case.decided import decided_message, replaced_message
from bot.slack.render.case.details import details_modal
from bot.slack.render.case.header import case_header_message
from bot.slack.render.case.memory import seen_before_lead
from bot.slack.render.case.prompts import confirmation_message
from bot.slack.render.case.reply import reply_message
from bot.slack.render.case.tools import results_lead
from bot.slack.render.case.uploads import (
    image_lead,
    no_vision,
    shown_findings,
    upload_lead,
    upload_refused,
)
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
    WrittenDown,
)
from domain.budget import LLMSpend
from domain.case import Case
from domain.engine.present import solution_view, step_view, stuck_key, stuck_now, tool_card
from domain.engine.view import (
    ConfirmationPrompt,
    RequestCard,
    SolutionView,
    StepView,
    ToolRunCard,
    TurnReply,
)
from domain.investigation.evidence_requests import OPEN_STATUSES, EvidenceStatus
from domain.lifecycle.confirmations import (
    ConfirmationState,
    PendingConfirmation,
    StatusChangePayload,
)
from domain.lifecycle.status import TERMINAL_STATUSES
from domain.tools.runs import ToolRunStatus


def digest(rendered: SlackMessage) -> str:
    """What a message shows, as a short fingerprint (an edit that changes nothing is skipped)."""
    shown = json.dumps(rendered.payload(), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(shown.encode()).hexdigest()[:32]


def kept(reply: TurnReply, lead: Sequence[Lead], *, questions: bool, key: str = "") -> ShownReply:
    """What to keep of a reply to draw it again later (``key``: the work key it is kept under,
    which its Details button names)."""
    return ShownReply(reply=reply, lead=list(lead), questions=questions, key=key)


def redrawn(case: Case, body: ShownReply) -> SlackMessage:
    """A kept reply as the case has it now (its questions as they were decided)."""
    if body.questions:
        return with_questions(case, body.reply, body.notes, lead=body.lead, key=body.key)
    return answer_message(case, body.reply, lead=body.lead, key=body.key)


def answer_message(
    case: Case, reply: TurnReply, *, lead: Sequence[Lead] = (), key: str = ""
) -> SlackMessage:
    """A reply as the case has it now, without its questions: the answer, then ``lead`` (what
    the files or tool runs it read show), then the rest, short; with a Details button when it is
    kept under ``key`` and says more than it shows."""
    details = DetailsValue(case_id=case.case_id, key=key) if key else None
    return reply_message(
        current(case, reply),
        case_id=case.case_id,
        lead=lead_messages(lead, case_id=case.case_id),
        details=details,
        more=any(_more_findings(item) for item in lead),
    )


def _more_findings(item: Lead) -> bool:
    """Whether a file's findings are more than its lines in the answer show."""
    return isinstance(item, FileRead) and len(item.report.findings) > len(
        shown_findings(item.report.findings)
    )


def details_of(case: Case, body: WrittenDown | ShownReply) -> View:
    """The modal an answer's Details button opens: the reply in full, as the case has it now
    (a mitigation applied since says so), with every finding of the files it read."""
    lead = body.lead if isinstance(body, ShownReply) else []
    reports = [item.report for item in lead if isinstance(item, FileRead)]
    return details_modal(current(case, body.reply), reports)


def top(
    case: Case,
    opening: ShownReply | None,
    spend: LLMSpend | None = None,
    below: SlackMessage | None = None,
) -> SlackMessage:
    """The thread's first message: the living summary (with what the model cost, ``spend``),
    then the case's first answer (if it was posted with it), as the case has it now, or what
    else shares it (``below``: an alert's analysis)."""
    summary = case_header_message(case, spend)
    if below is not None:
        return message([*summary.blocks, divider(), *below.blocks], text=summary.text)
    if not opening:
        return summary
    answer = redrawn(case, opening)
    return message([*summary.blocks, divider(), *answer.blocks], text=answer.text)


def with_questions(
    case: Case,
    reply: TurnReply,
    notes: Mapping[str, str] | None = None,
    *,
    lead: Sequence[Lead] = (),
    key: str = "",
) -> SlackMessage:
    """The reply with each of its questions as the case has it now: asked (buttons),
    answered (one line: who decided what, when) or replaced by a newer one; ``lead`` after
    its answer."""
    del notes  # kept with the reply, but a decided question is drawn from the case
    shown = answer_message(case, reply, lead=lead, key=key)
    blocks = list(shown.blocks)
    for prompt in reply.confirmations:
        blocks += question(case, prompt).blocks
    return message(blocks, text=shown.text)


def question(case: Case, prompt: ConfirmationPrompt) -> SlackMessage:
    """One question of a reply as it stands in ``case``: asked (buttons), decided (one line)
    or replaced (one line)."""
    confirmation = case.find_confirmation(prompt.confirmation_id)
    if confirmation is None or confirmation.state is ConfirmationState.PENDING:
        final = is_final(case, prompt.confirmation_id)
        return confirmation_message(prompt, case_id=case.case_id, final=final)
    return settled(confirmation)


def settled(confirmation: PendingConfirmation) -> SlackMessage:
    """A question no longer asked, in one line: who decided what and when, or that a newer
    question replaced it."""
    if confirmation.state is ConfirmationState.SUPERSEDED:
        return replaced_message(confirmation.prompt)
    return decided_message(confirmation)


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
    """Whether ``reply`` is a short note and documents, and nothing else to show but notices
    (what was withheld from them, said with the note)."""
    shown = (
        reply.confirmations,
        reply.evidence_requests,
        reply.solutions,
        reply.hypotheses,
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
    needed, a run still waiting as skipped, the ways out of a stuck case lose their buttons,
    so no card keeps a button.
    """
    cards = []
    for card in reply.evidence_requests:
        request = case.find_request(card.request_id)
        cards.append(card.model_copy(update={"status": request.status}) if request else card)
    runs = [_run_now(case, card) for card in reply.tool_runs]
    if case.status in TERMINAL_STATUSES:
        cards = [_finished(card) for card in cards]
        runs = [_finished_run(card) for card in runs]
    solutions = [_solution_now(case, view) for view in reply.solutions]
    recorded = [_step_now(case, view) for view in reply.recorded]
    stuck = reply.escalation
    return reply.model_copy(
        update={
            "evidence_requests": cards,
            "tool_runs": runs,
            "solutions": solutions,
            "recorded": recorded,
            # The ways out: buttons only while still stuck, and the way chosen since.
            "escalation": stuck_now(case, stuck) if stuck is not None else None,
        }
    )


def _solution_now(case: Case, view: SolutionView) -> SolutionView:
    """A solution's card as the case has it now: offered (buttons), applied (Undo), verified."""
    solution = case.find_solution(view.solution_id)
    return solution_view(solution, case) if solution is not None else view


def _step_now(case: Case, view: StepView) -> StepView:
    """A recorded step as it stands: Undo only while nothing depends on it."""
    confirmation = case.find_confirmation(view.confirmation_id)
    now = step_view(case, confirmation) if confirmation is not None else None
    return now or view


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


def stuck_ended(before: Case, after: Case) -> list[str]:
    """The key of the message that said ``before`` was stuck, when its ways out no longer
    apply in ``after`` (it moves again, or it is finished): its buttons go."""
    was = before.degraded_mode
    if was is None or not was.is_active or was.said_at is None:
        return []
    now = after.degraded_mode
    still = now is not None and now.is_active and stuck_key(now) == stuck_key(was)
    return [] if still and not after.is_terminal else [stuck_key(was)]
