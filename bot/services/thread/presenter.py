"""Showing a case in its thread: the summary, the signs of work, replies, prompts, documents.

Every message posted here is remembered in one place (`MessageRefs`), so it can be edited later:
a question rewritten once answered, the summary edited in place (only when what it shows
changed), a reply saved but not yet shown (a restart in between) posted when its work runs again.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any

from slack_sdk.models.blocks import Block

from bot.inbox.work import ThreadRef
from bot.services.ports import ChatSurface
from bot.services.thread.refs import MessageRefs
from bot.services.thread.waiting import WaitingSigns
from bot.slack.render.header import case_header_message
from bot.slack.render.limits import fit
from bot.slack.render.message import SlackMessage, divider, message
from bot.slack.render.prompts import confirmation_message, decided_message, superseded_message
from bot.slack.render.reply import reply_message
from domain.case import Case
from domain.engine.answers import decision_note
from domain.engine.view import ConfirmationPrompt, TurnReply
from domain.investigation.evidence_requests import OPEN_STATUSES, EvidenceStatus
from domain.lifecycle.confirmations import (
    ConfirmationState,
    PendingConfirmation,
    StatusChangePayload,
)
from domain.lifecycle.decisions import AnswerOutcome, AnswerResult
from domain.lifecycle.status import TERMINAL_STATUSES
from domain.people import mention
from domain.records import PostedKind

logger = logging.getLogger(__name__)


def thread_of(case: Case) -> ThreadRef:
    """The thread a case lives in."""
    return ThreadRef(team_id=case.team_id, channel_id=case.channel_id, thread_ts=case.thread_ts)


def _digest(rendered: SlackMessage) -> str:
    """What a message shows, as a short fingerprint (an edit that changes nothing is skipped)."""
    shown = json.dumps(rendered.payload(), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(shown.encode()).hexdigest()[:32]


def is_final(case: Case, confirmation_id: str) -> bool:
    """Whether accepting this confirmation makes the case final (resolve or close)."""
    confirmation = case.find_confirmation(confirmation_id)
    payload = confirmation.payload if confirmation else None
    return isinstance(payload, StatusChangePayload) and payload.to_status in TERMINAL_STATUSES


class ThreadPresenter:
    """Posts and edits the bot's messages in case threads."""

    def __init__(
        self, *, surface: ChatSurface, refs: MessageRefs, waiting: WaitingSigns | None = None
    ) -> None:
        self.surface = surface
        self._refs = refs
        self._waiting = waiting or WaitingSigns(surface)

    def working(
        self, case: Case, *, on: str | None = None, doing: str = "is looking at this…"
    ) -> AbstractAsyncContextManager[None]:
        """While the block runs, the thread shows the bot is working (see `WaitingSigns`).

        ``on`` is the person's message being answered (it gets the reaction, if reactions are
        how this workspace is told).
        """
        return self._waiting.working(
            channel=case.channel_id, thread_ts=case.thread_ts, message_ts=on, doing=doing
        )

    async def show_header(self, case: Case) -> None:
        """Post the living case summary, or edit it in place when what it shows changed."""
        rendered = case_header_message(case)
        digest = _digest(rendered)
        kept = await self._refs.find(case, PostedKind.HEADER)
        if kept is None or kept.ts is None:
            ts = await self.post(case, rendered)
        elif (kept.body or {}).get("digest") == digest:
            return
        else:
            ts = kept.ts
            await self.surface.update(channel=case.channel_id, ts=ts, message=rendered)
        await self._refs.set_header(case, ts, digest=digest)

    async def open_thread(self, case: Case, **detail: str) -> None:
        """A new case's summary, posted at once, before anything else is done.

        ``detail`` is what is worth auditing about the opening (who opened it, and how).
        """
        await self.show_header(case)
        await self._refs.opened(case, **detail)

    async def replace(self, case: Case, ts: str, rendered: SlackMessage) -> None:
        """Replace a message with ``rendered``; overflow follows in the thread."""
        first, *rest = fit(rendered)
        await self.surface.update(channel=case.channel_id, ts=ts, message=first)
        for part in rest:
            await self.surface.post(channel=case.channel_id, thread_ts=case.thread_ts, message=part)

    async def post(self, case: Case, rendered: SlackMessage) -> str:
        """Post into the case thread; return the first message's ts."""
        parts = fit(rendered)
        first = ""
        for part in parts:
            ts = await self.surface.post(
                channel=case.channel_id, thread_ts=case.thread_ts, message=part
            )
            first = first or ts
        return first

    async def keep_reply(self, case: Case, work_key: str, reply: TurnReply) -> None:
        """Write down the saved turn's reply before showing it, so a restart cannot lose it."""
        body = reply.model_dump(mode="json")
        await self._refs.remember(case, PostedKind.REPLY, None, work_key, body=body)

    async def show_kept_reply(self, case: Case, work_key: str) -> bool:
        """Show a reply that was saved and written down but never shown; False if there is none.

        Work taken again after a restart (or by another replica) finds its answer already made:
        it is shown now, without asking the model again.
        """
        kept = await self._refs.find(case, PostedKind.REPLY, work_key)
        if kept is None:
            return False
        if kept.ts is None and kept.body is not None:
            await self.show_reply(case, TurnReply.model_validate(kept.body), key=work_key)
        return True

    async def show_reply(
        self, case: Case, reply: TurnReply, *, key: str = "", lead: Sequence[SlackMessage] = ()
    ) -> str:
        """The reply as one new message (so its notification carries it), opening with ``lead``
        (what was found in the files it answers), its questions at its foot; then its documents.

        Where the reply was posted is remembered under ``key``, with what it said; each question
        is remembered at the same message, with the reply, so a click can redraw the message
        with the decision in place of the buttons. A reply too long to share one message with its
        questions has them posted after it.
        """
        if not key and not lead and _only_documents(reply):
            # A note handing over documents: the note and the files are one message.
            rendered = reply_message(reply, case_id=case.case_id)
            await self.surface.share(
                channel=case.channel_id,
                thread_ts=case.thread_ts,
                documents=reply.documents,
                comment=rendered.text,
            )
            return ""
        together = self._reply_with_questions(case, reply, lead=lead)
        alone = not reply.confirmations or len(fit(together)) > 1
        rendered = _led(lead, reply_message(reply, case_id=case.case_id)) if alone else together
        at = await self.post(case, rendered)
        body = reply.model_dump(mode="json")
        if key:
            await self._refs.remember(case, PostedKind.REPLY, at, key, body=body)
        kept = {
            "reply": body,
            "lead": [b for m in lead for b in m.block_dicts()],
            "questions": not alone,
        }
        if alone:
            await self.show_prompts(case, reply.confirmations)
        else:
            for prompt in reply.confirmations:
                await self._refs.remember(
                    case, PostedKind.PROMPT, at, prompt.confirmation_id, body=kept
                )
        for card in reply.evidence_requests:
            await self._refs.remember(case, PostedKind.REQUEST, at, card.request_id, body=kept)
        await self._rewrite_superseded(case, reply)
        for document in reply.documents:
            await self.surface.upload(
                channel=case.channel_id,
                thread_ts=case.thread_ts,
                filename=document.filename,
                title=document.title,
                content=document.markdown,
            )
        return at

    def _reply_with_questions(
        self,
        case: Case,
        reply: TurnReply,
        notes: dict[str, str] | None = None,
        *,
        lead: Sequence[SlackMessage] = (),
    ) -> SlackMessage:
        """The reply with each of its questions as the case has it now: asked (buttons),
        answered (who decided what: ``notes`` by confirmation id, else a short default) or
        replaced by a newer one; after ``lead``."""
        shown = reply_message(_current(case, reply), case_id=case.case_id)
        blocks = list(shown.blocks)
        for prompt in reply.confirmations:
            blocks += _question(case, prompt, (notes or {}).get(prompt.confirmation_id)).blocks
        return _led(lead, message(blocks, text=shown.text))

    async def show_prompts(self, case: Case, prompts: Sequence[ConfirmationPrompt]) -> None:
        """Each confirmation as its own message, so a click can rewrite just that one."""
        for prompt in prompts:
            final = is_final(case, prompt.confirmation_id)
            rendered = confirmation_message(prompt, case_id=case.case_id, final=final)
            ts = await self.post(case, rendered)
            await self._refs.remember(case, PostedKind.PROMPT, ts, prompt.confirmation_id)

    async def post_kept(
        self, case: Case, rendered: SlackMessage, kind: PostedKind, key: str
    ) -> str:
        """Post into the thread and remember where, under ``kind`` and ``key``."""
        ts = await self.post(case, rendered)
        await self._refs.remember(case, kind, ts, key)
        return ts

    async def ts_of(self, case: Case, kind: PostedKind, key: str) -> str | None:
        """Where the message of that kind and key was posted, if it was."""
        return await self._refs.ts(case, kind, key)

    async def prompt_ts(self, case: Case, confirmation_id: str) -> str | None:
        """Where a question was posted, if it was."""
        return await self._refs.ts(case, PostedKind.PROMPT, confirmation_id)

    async def show_decided(self, case: Case, decided: AnswerResult) -> None:
        """Rewrite a question answered by typing, as a click would: the decision, no buttons."""
        confirmation = decided.confirmation
        ts = await self.prompt_ts(case, confirmation.confirmation_id)
        if decided.outcome is AnswerOutcome.APPLIED and ts:
            await self.mark_decided(case, ts, confirmation, decision_note(decided))

    async def mark_decided(
        self, case: Case, ts: str, confirmation: PendingConfirmation, note: str
    ) -> None:
        """Rewrite the question at ``ts``: ``note`` on who decided what, no buttons any more.

        A question asked at the foot of a reply is redrawn there, the reply above it unchanged.
        """
        kept = await self._reply_of(case, confirmation.confirmation_id)
        if kept is not None:
            reply, lead = kept
            notes = {confirmation.confirmation_id: note}
            rendered = self._reply_with_questions(case, reply, notes, lead=lead)
            await self.surface.update(channel=case.channel_id, ts=ts, message=rendered)
            return
        accepted = confirmation.state is ConfirmationState.ACCEPTED
        await self.surface.update(
            channel=case.channel_id, ts=ts, message=decided_message(note, accepted=accepted)
        )

    async def redraw_request(self, case: Case, request_id: str) -> None:
        """Redraw the reply an evidence request was asked in, its cards as the case has them now
        (a request no longer open loses its "Can't get this" button)."""
        kept = await self._refs.find(case, PostedKind.REQUEST, request_id)
        body = (kept.body or {}) if kept is not None else {}
        if kept is None or kept.ts is None or body.get("reply") is None:
            return
        reply = TurnReply.model_validate(body["reply"])
        lead = _lead_of(body)
        rendered = (
            self._reply_with_questions(case, reply, lead=lead)
            if body.get("questions")
            else _led(lead, reply_message(_current(case, reply), case_id=case.case_id))
        )
        await self.surface.update(channel=case.channel_id, ts=kept.ts, message=rendered)

    async def redraw_closed(self, before: Case, after: Case, *, shown_at: str = "") -> None:
        """Redraw the earlier replies whose evidence requests closed (or changed how they
        closed) between ``before`` and ``after``: once a log has arrived its card says so and
        loses its "Can't get this" button. Each message is redrawn once; the reply just posted
        at ``shown_at`` already shows the requests as they are."""
        redrawn = {shown_at} if shown_at else set()
        for request in after.evidence_requests:
            earlier = before.find_request(request.request_id)
            if earlier is None or _looks(earlier.status) == _looks(request.status):
                continue
            ts = await self._refs.ts(after, PostedKind.REQUEST, request.request_id)
            if ts is None or ts in redrawn:
                continue
            redrawn.add(ts)
            await self.redraw_request(after, request.request_id)

    async def _reply_of(
        self, case: Case, confirmation_id: str
    ) -> tuple[TurnReply, list[SlackMessage]] | None:
        """The reply a question was asked in (and what it opened with), when they share a
        message."""
        kept = await self._refs.find(case, PostedKind.PROMPT, confirmation_id)
        body = (kept.body or {}) if kept is not None else {}
        if body.get("reply") is None:
            return None
        return TurnReply.model_validate(body["reply"]), _lead_of(body)

    async def _rewrite_superseded(self, case: Case, reply: TurnReply) -> None:
        for confirmation_id in reply.superseded_confirmation_ids:
            confirmation = case.find_confirmation(confirmation_id)
            ts = await self.prompt_ts(case, confirmation_id)
            if confirmation is None or ts is None:
                continue
            kept = await self._reply_of(case, confirmation_id)
            rendered = (
                superseded_message(confirmation.prompt)
                if kept is None
                else self._reply_with_questions(case, kept[0], lead=kept[1])
            )
            await self.surface.update(channel=case.channel_id, ts=ts, message=rendered)


def _question(case: Case, prompt: ConfirmationPrompt, note: str | None) -> SlackMessage:
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


def _looks(status: EvidenceStatus) -> str:
    """How a request card shows ``status``: open ones alike (they carry the button)."""
    return "open" if status in OPEN_STATUSES else status.value


def _led(lead: Sequence[SlackMessage], shown: SlackMessage) -> SlackMessage:
    """``shown`` opening with ``lead``'s blocks (its fallback text stays the answer's)."""
    if not lead:
        return shown
    blocks = [block for part in lead for block in part.blocks]
    return message([*blocks, divider(), *shown.blocks], text=shown.text)


def _only_documents(reply: TurnReply) -> bool:
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


def _lead_of(body: dict[str, Any]) -> list[SlackMessage]:
    """What a kept reply opened with (its blocks as Slack JSON), as messages again."""
    blocks = [Block.parse(b) for b in body.get("lead") or []]
    return [message(b for b in blocks if b is not None)] if blocks else []


def _current(case: Case, reply: TurnReply) -> TurnReply:
    """``reply`` with its evidence request cards as the case has them now (open or not)."""
    cards = []
    for card in reply.evidence_requests:
        request = case.find_request(card.request_id)
        cards.append(card.model_copy(update={"status": request.status}) if request else card)
    return reply.model_copy(update={"evidence_requests": cards})
