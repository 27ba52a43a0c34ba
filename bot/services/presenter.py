"""Showing a case in its thread: header, placeholder, reply, prompts, documents, corrections."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from bot.inbox.work import ThreadRef
from bot.services.ports import ChatSurface
from bot.services.refs import MessageRefs
from bot.slack.render.header import case_header_message
from bot.slack.render.limits import fit
from bot.slack.render.message import SlackMessage
from bot.slack.render.prompts import confirmation_message, decided_message, superseded_message
from bot.slack.render.reply import placeholder, reply_message
from domain.case import Case
from domain.engine.answers import decision_note
from domain.engine.view import ConfirmationPrompt, TurnReply
from domain.lifecycle.confirmations import (
    ConfirmationState,
    PendingConfirmation,
    StatusChangePayload,
)
from domain.lifecycle.decisions import AnswerOutcome, AnswerResult
from domain.lifecycle.status import TERMINAL_STATUSES

logger = logging.getLogger(__name__)


def thread_of(case: Case) -> ThreadRef:
    """The thread a case lives in."""
    return ThreadRef(team_id=case.team_id, channel_id=case.channel_id, thread_ts=case.thread_ts)


def is_final(case: Case, confirmation_id: str) -> bool:
    """Whether accepting this confirmation makes the case final (resolve or close)."""
    confirmation = case.find_confirmation(confirmation_id)
    payload = confirmation.payload if confirmation else None
    return isinstance(payload, StatusChangePayload) and payload.to_status in TERMINAL_STATUSES


class ThreadPresenter:
    """Posts and edits the bot's messages in case threads."""

    def __init__(self, *, surface: ChatSurface, refs: MessageRefs) -> None:
        self.surface = surface
        self._refs = refs

    async def show_header(self, case: Case) -> None:
        """Post the living case header, or edit it in place."""
        ts = await self._refs.header(case.case_id)
        if ts is None:
            await self.remember_header(case, await self.post_header(case))
        else:
            await self.surface.update(
                channel=case.channel_id, ts=ts, message=case_header_message(case)
            )

    async def post_header(self, case: Case) -> str:
        """Post a new case's header (the first bot message of the thread); return its ts."""
        return await self.surface.post(
            channel=case.channel_id, thread_ts=case.thread_ts, message=case_header_message(case)
        )

    async def open_thread(self, case: Case, work_key: str, **detail: str) -> str:
        """A new case's header, then "Looking at this…" for its first work; return the latter.

        Both are posted before anything is written, so people see them at once, and both are
        remembered in one write (with ``detail``, what is worth auditing about the opening).
        """
        header = await self.post_header(case)
        ts = await self.post(case, placeholder())
        await self._refs.set_opening(
            case, header=header, work_key=work_key, placeholder=ts, **detail
        )
        return ts

    async def remember_header(self, case: Case, ts: str, **detail: str) -> None:
        """Remember where the header is, so it can be edited in place from now on."""
        await self._refs.set_header(case, ts, **detail)

    async def start_placeholder(self, case: Case, work_key: str) -> str:
        """ "Looking at this…", or the one an interrupted run of this work left behind."""
        left = await self._refs.open_placeholder(case.case_id, work_key)
        if left is not None:
            await self.surface.update(
                channel=case.channel_id, ts=left, message=placeholder(resumed=True)
            )
            return left
        return await self.new_placeholder(case, work_key)

    async def new_placeholder(self, case: Case, work_key: str) -> str:
        """Post "Looking at this…" at the bottom of the thread for this work."""
        ts = await self.post(case, placeholder())
        await self._refs.set_placeholder(case, work_key, ts)
        return ts

    async def replace(self, case: Case, ts: str, rendered: SlackMessage) -> None:
        """Replace a message (the placeholder) with ``rendered``; overflow follows in the thread."""
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

    async def show_reply(self, case: Case, reply: TurnReply, *, at: str | None) -> dict[str, str]:
        """The reply (in place of ``at`` when given), its prompts and documents.

        Returns where each new confirmation prompt was posted (confirmation id → ts).
        """
        rendered = reply_message(reply, case_id=case.case_id)
        if at is None:
            await self.post(case, rendered)
        else:
            await self.replace(case, at, rendered)
        posted = await self.show_prompts(case, reply.confirmations)
        await self._rewrite_superseded(case, reply)
        for document in reply.documents:
            await self.surface.upload(
                channel=case.channel_id,
                thread_ts=case.thread_ts,
                filename=document.filename,
                title=document.title,
                content=document.markdown,
            )
        return posted

    async def show_prompts(
        self, case: Case, prompts: Sequence[ConfirmationPrompt]
    ) -> dict[str, str]:
        """Each confirmation as its own message, so a click can rewrite just that one."""
        posted: dict[str, str] = {}
        for prompt in prompts:
            final = is_final(case, prompt.confirmation_id)
            rendered = confirmation_message(prompt, case_id=case.case_id, final=final)
            posted[prompt.confirmation_id] = await self.post(case, rendered)
        return posted

    async def show_decided(self, case: Case, decided: AnswerResult) -> None:
        """Rewrite a question answered by typing, as a click would: the decision, no buttons."""
        confirmation = decided.confirmation
        if decided.outcome is AnswerOutcome.APPLIED and confirmation.surface_ref:
            await self.mark_decided(
                case, confirmation.surface_ref, confirmation, decision_note(decided)
            )

    async def mark_decided(
        self, case: Case, ts: str, confirmation: PendingConfirmation, note: str
    ) -> None:
        """Rewrite the question at ``ts``: ``note`` on who decided what, no buttons any more."""
        accepted = confirmation.state is ConfirmationState.ACCEPTED
        await self.surface.update(
            channel=case.channel_id, ts=ts, message=decided_message(note, accepted=accepted)
        )

    async def withdraw_prompts(self, case: Case, posted: dict[str, str]) -> None:
        """Questions shown by a turn that was not saved: mark them as no longer applying."""
        for confirmation_id, ts in posted.items():
            confirmation = case.find_confirmation(confirmation_id)
            prompt = confirmation.prompt if confirmation else "This question"
            await self.surface.update(
                channel=case.channel_id, ts=ts, message=superseded_message(prompt)
            )

    async def _rewrite_superseded(self, case: Case, reply: TurnReply) -> None:
        for confirmation_id in reply.superseded_confirmation_ids:
            confirmation = case.find_confirmation(confirmation_id)
            if confirmation is None or confirmation.surface_ref is None:
                continue
            await self.surface.update(
                channel=case.channel_id,
                ts=confirmation.surface_ref,
                message=superseded_message(confirmation.prompt),
            )
