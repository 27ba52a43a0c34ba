"""Showing a case in its thread: the summary, the signs of work, replies, prompts, documents.

Every message posted here is remembered in one place (`MessageRefs`), so it can be edited later:
a question rewritten once answered, the summary edited in place (only when what it shows
changed), a reply saved but not yet shown (a restart in between) posted when its work runs again.

A case's first answer shares the thread's first message with the living summary, so opening a
case brings one message: the summary on top, the answer (and its question) under it. That message
is drawn from the case and what was kept of the answer whenever either changes.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager

from bot.inbox.work import ThreadRef
from bot.services.ports import ChatSurface
from bot.services.thread.compose import (
    Kept,
    digest,
    is_final,
    kept,
    led,
    looks,
    only_documents,
    redrawn,
    top,
    with_questions,
)
from bot.services.thread.refs import MessageRefs
from bot.services.thread.waiting import WaitingSigns
from bot.slack.render.limits import fit, fits
from bot.slack.render.message import SlackMessage
from bot.slack.render.prompts import confirmation_message, decided_message, superseded_message
from bot.slack.render.reply import reply_message
from domain.budget import LLMSpend, SpendLedger
from domain.case import Case
from domain.engine.answers import decision_note
from domain.engine.view import ConfirmationPrompt, TurnReply
from domain.lifecycle.confirmations import ConfirmationState, PendingConfirmation
from domain.lifecycle.decisions import AnswerOutcome, AnswerResult
from domain.records import PostedKind

logger = logging.getLogger(__name__)

AT_THE_TOP = {"top": True}
"""What a question or request asked in the thread's first message is kept with: that message is
the summary's, and is redrawn as a whole."""


SUMMARY_GROWTH = 2_500
"""Characters of blocks left free when the first answer joins the summary: the summary grows as
the case goes on (a cause, a mitigation, an outcome; each line is capped)."""


def card_keys(reply: TurnReply) -> list[str]:
    """What a reply's cards are remembered under: its evidence requests and its tool runs, so
    a click on either redraws the message it is in."""
    return [card.request_id for card in reply.evidence_requests] + [
        run.run_id for run in reply.tool_runs
    ]


def thread_of(case: Case) -> ThreadRef:
    """The thread a case lives in."""
    return ThreadRef(team_id=case.team_id, channel_id=case.channel_id, thread_ts=case.thread_ts)


class ThreadPresenter:
    """Posts and edits the bot's messages in case threads."""

    def __init__(
        self,
        *,
        surface: ChatSurface,
        refs: MessageRefs,
        waiting: WaitingSigns | None = None,
        spending: SpendLedger | None = None,
    ) -> None:
        self.surface = surface
        self._refs = refs
        self._waiting = waiting or WaitingSigns(surface)
        self._spending = spending

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

    async def show_header(self, case: Case, notes: Mapping[str, str] | None = None) -> None:
        """Post the living case summary, or edit it in place when what it shows changed.

        Where the case's first answer shares its message, the answer is drawn again with it
        (``notes``: how its questions were just decided, by confirmation id).
        """
        kept_top = await self._refs.find(case, PostedKind.HEADER)
        body = (kept_top.body or {}) if kept_top is not None else {}
        opening: Kept | None = body.get("opening")
        if opening is not None and notes:
            opening = {**opening, "notes": {**(opening.get("notes") or {}), **notes}}
        spend = await self._spend(case)
        rendered = top(case, opening, spend)
        if opening is not None and not fits(rendered):
            # Grown past Slack's limit despite the room left for it: first without the file
            # findings the answer opened with, else the summary alone.
            logger.warning("the first answer no longer fits with the summary")
            opening = {**opening, "lead": []}
            rendered = top(case, opening, spend)
            if not fits(rendered):
                opening, rendered = None, top(case, None, spend)
        shows = digest(rendered)
        if kept_top is None or kept_top.ts is None:
            ts = await self.post(case, rendered)
        elif body.get("digest") == shows:
            return
        else:
            ts = kept_top.ts
            await self.surface.update(channel=case.channel_id, ts=ts, message=rendered)
        await self._refs.set_header(case, ts, digest=shows, opening=opening)

    async def open_thread(self, case: Case, **detail: str) -> None:
        """A new case: its opening audited (``detail``: who opened it, and how).

        Nothing is posted yet: the summary comes with the first answer, in one message, while
        the thread's status line says the bot is at work.
        """
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
        questions has them posted after it. A case's first answer comes under its summary, in
        the thread's first message.
        """
        if not key and not lead and only_documents(reply):
            # A note handing over documents: the note and the files are one message.
            rendered = reply_message(reply, case_id=case.case_id)
            await self.surface.share(
                channel=case.channel_id,
                thread_ts=case.thread_ts,
                documents=reply.documents,
                comment=rendered.text,
            )
            return ""
        if key and await self._refs.ts(case, PostedKind.HEADER) is None:
            at = await self._open_with(case, reply, key=key, lead=lead)
            if at:
                return at
            await self.show_header(case)  # too long to share a message: the summary first
        together = with_questions(case, reply, lead=lead)
        alone = not reply.confirmations or len(fit(together)) > 1
        rendered = led(lead, reply_message(reply, case_id=case.case_id)) if alone else together
        at = await self.post(case, rendered)
        if key:
            body = reply.model_dump(mode="json")
            await self._refs.remember(case, PostedKind.REPLY, at, key, body=body)
        shown = kept(reply, lead, questions=not alone)
        if alone:
            await self.show_prompts(case, reply.confirmations)
        else:
            for prompt in reply.confirmations:
                await self._refs.remember(
                    case, PostedKind.PROMPT, at, prompt.confirmation_id, body=shown
                )
        for key in card_keys(reply):
            await self._refs.remember(case, PostedKind.REQUEST, at, key, body=shown)
        await self._rewrite_superseded(case, reply)
        await self._upload_documents(case, reply)
        return at

    async def _open_with(
        self, case: Case, reply: TurnReply, *, key: str, lead: Sequence[SlackMessage]
    ) -> str:
        """The case's summary and first answer as the thread's first message; "" (nothing
        posted) when together they would not fit one message."""
        opening = kept(reply, lead, questions=True)
        rendered = top(case, opening, await self._spend(case))
        if not fits(rendered, room=SUMMARY_GROWTH):
            return ""
        at = await self.surface.post(
            channel=case.channel_id, thread_ts=case.thread_ts, message=rendered
        )
        await self._refs.set_header(case, at, digest=digest(rendered), opening=opening)
        await self._refs.remember(
            case, PostedKind.REPLY, at, key, body=reply.model_dump(mode="json")
        )
        for prompt in reply.confirmations:
            await self._refs.remember(
                case, PostedKind.PROMPT, at, prompt.confirmation_id, body=AT_THE_TOP
            )
        for key in card_keys(reply):
            await self._refs.remember(case, PostedKind.REQUEST, at, key, body=AT_THE_TOP)
        await self._upload_documents(case, reply)
        return at

    async def _spend(self, case: Case) -> LLMSpend | None:
        """What the model cost the case so far, for the summary's footer."""
        if self._spending is None:
            return None
        return await self._spending.for_case(case.case_id)

    async def _upload_documents(self, case: Case, reply: TurnReply) -> None:
        for document in reply.documents:
            await self.surface.upload(
                channel=case.channel_id,
                thread_ts=case.thread_ts,
                filename=document.filename,
                title=document.title,
                content=document.markdown,
            )

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
        cid = confirmation.confirmation_id
        body = await self._kept(case, PostedKind.PROMPT, cid)
        if body.get("top"):
            await self.show_header(case, {cid: note})
        elif body.get("reply") is not None:
            body = {**body, "notes": {**(body.get("notes") or {}), cid: note}}
            await self.surface.update(channel=case.channel_id, ts=ts, message=redrawn(case, body))
            await self._keep_notes(case, ts, body)
        else:
            accepted = confirmation.state is ConfirmationState.ACCEPTED
            rendered = decided_message(note, accepted=accepted)
            await self.surface.update(channel=case.channel_id, ts=ts, message=rendered)

    async def _keep_notes(self, case: Case, ts: str, body: Kept) -> None:
        """Keep how a reply's questions were decided with each of its questions and cards, so
        any later redraw of the message says it the same way."""
        reply = TurnReply.model_validate(body["reply"])
        for prompt in reply.confirmations:
            await self._refs.remember(
                case, PostedKind.PROMPT, ts, prompt.confirmation_id, body=body
            )
        for key in card_keys(reply):
            await self._refs.remember(case, PostedKind.REQUEST, ts, key, body=body)

    async def redraw_request(self, case: Case, request_id: str) -> None:
        """Redraw the reply an evidence request was asked in, its cards as the case has them now
        (a request no longer open loses its "Can't get this" button)."""
        body = await self._kept(case, PostedKind.REQUEST, request_id)
        ts = await self._refs.ts(case, PostedKind.REQUEST, request_id)
        if body.get("top"):
            await self.show_header(case)
        elif ts is not None and body.get("reply") is not None:
            rendered = redrawn(case, body)
            await self.surface.update(channel=case.channel_id, ts=ts, message=rendered)

    async def redraw_closed(self, before: Case, after: Case, *, shown_at: str = "") -> None:
        """Redraw the earlier replies whose evidence requests closed (or changed how they
        closed) between ``before`` and ``after``: once a log has arrived its card says so and
        loses its "Can't get this" button. Each message is redrawn once; the reply just posted
        at ``shown_at`` already shows the requests as they are."""
        redrawn_at = {shown_at} if shown_at else set()
        for request in after.evidence_requests:
            earlier = before.find_request(request.request_id)
            if earlier is None or looks(earlier.status) == looks(request.status):
                continue
            ts = await self._refs.ts(after, PostedKind.REQUEST, request.request_id)
            if ts is None or ts in redrawn_at:
                continue
            redrawn_at.add(ts)
            await self.redraw_request(after, request.request_id)

    async def _kept(self, case: Case, kind: PostedKind, key: str) -> Kept:
        """What was kept with a message of that kind and key ({} when nothing was)."""
        found = await self._refs.find(case, kind, key)
        return dict(found.body or {}) if found is not None else {}

    async def _rewrite_superseded(self, case: Case, reply: TurnReply) -> None:
        for confirmation_id in reply.superseded_confirmation_ids:
            confirmation = case.find_confirmation(confirmation_id)
            ts = await self.prompt_ts(case, confirmation_id)
            if confirmation is None or ts is None:
                continue
            body = await self._kept(case, PostedKind.PROMPT, confirmation_id)
            if body.get("top"):
                await self.show_header(case)
                continue
            rendered = (
                redrawn(case, body)
                if body.get("reply") is not None
                else superseded_message(confirmation.prompt)
            )
            await self.surface.update(channel=case.channel_id, ts=ts, message=rendered)
