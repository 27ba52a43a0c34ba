"""Showing a case in its thread: the summary, the signs of work, replies, prompts, documents.

Every message posted here is remembered in one place (`MessageRefs`), so it can be edited later:
a question rewritten once answered, the summary edited in place (only when what it shows
changed), a reply saved but not yet shown (a restart in between) posted when its work runs again.

A case's first answer shares the thread's first message with the living summary, so opening a
case brings one message: the summary on top, the answer (and its question) under it. That message
is drawn from the case and what was kept of the answer whenever either changes.
"""

from __future__ import annotations

from collections.abc import Sequence

from slack_sdk.models.views import View

from bot.inbox.work import ThreadRef
from bot.slack.ids import RetryValue
from bot.slack.render.case.prompts import confirmation_message
from bot.slack.render.case.reply import reply_message
from bot.slack.render.case.stuck import handover_message
from bot.slack.render.errors import with_retry
from bot.slack.render.limits import fit
from bot.slack.render.remediation import ran_and_ask_message
from bot.thread.compose import (
    answer_message,
    details_of,
    digest,
    is_final,
    kept,
    looks,
    only_documents,
    redrawn,
    settled,
    stuck_ended,
    top,
    with_questions,
)
from bot.thread.header import SummaryVoice, roomy
from bot.thread.memory import AtTheTop, Lead, RanAndAsked, ShownReply, WrittenDown
from domain.case import Case
from domain.engine.answers import decision_note
from domain.engine.present import request_card as card_of
from domain.engine.view import ConfirmationPrompt, EscalationView, ReplyKind, TurnReply
from domain.investigation.conclusions import Solution
from domain.lifecycle.confirmations import PendingConfirmation
from domain.lifecycle.decisions import AnswerOutcome, AnswerResult
from domain.records import PostedKind


def card_keys(reply: TurnReply) -> list[str]:
    """What a reply's cards are remembered under: its evidence requests, its tool runs, its
    mitigations, the steps it recorded and the ways out of a stuck case, so a click on any
    redraws the message it is in."""
    return (
        [card.request_id for card in reply.evidence_requests]
        + [run.run_id for run in reply.tool_runs]
        + [s.solution_id for s in reply.solutions if s.is_mitigation]
        + [step.confirmation_id for step in reply.recorded]
        + ([reply.escalation.key] if reply.escalation and not reply.escalation.said else [])
    )


def thread_of(case: Case) -> ThreadRef:
    """The thread a case lives in."""
    return ThreadRef(team_id=case.team_id, channel_id=case.channel_id, thread_ts=case.thread_ts)


class ThreadPresenter(SummaryVoice):
    """Posts and edits the bot's messages in case threads: the facade the services call."""

    async def open_thread(self, case: Case, **detail: str) -> None:
        """A new case: its opening audited (``detail``: who opened it, and how).

        Nothing is posted yet: the summary comes with the first answer, in one message, while
        the thread's status line says the bot is at work.
        """
        await self._refs.opened(case, **detail)

    async def keep_reply(self, case: Case, work_key: str, reply: TurnReply) -> None:
        """Write down the saved turn's reply before showing it, so a restart cannot lose it."""
        body = WrittenDown(reply=reply)
        await self._refs.remember(case, PostedKind.REPLY, None, work_key, body=body)

    async def faulted(self, case: Case, work_key: str) -> bool:
        """Whether the reply kept for ``work_key`` said the model failed (so a retry asks again)."""
        body = await self._refs.kept(case, PostedKind.REPLY, work_key)
        return isinstance(body, WrittenDown | ShownReply) and body.reply.kind is ReplyKind.FAULT

    async def show_kept_reply(self, case: Case, work_key: str) -> bool:
        """Show a reply that was saved and written down but never shown; False if there is none.

        Work taken again after a restart (or by another replica) finds its answer already made:
        it is shown now, without asking the model again.
        """
        found = await self._refs.find(case, PostedKind.REPLY, work_key)
        if found is None:
            return False
        body = await self._refs.kept(case, PostedKind.REPLY, work_key)
        if found.ts is None and isinstance(body, WrittenDown):
            await self.show_reply(case, body.reply, key=work_key)
        return True

    async def details(self, case: Case, key: str) -> View | None:
        """The modal an answer's Details button opens: the reply kept under ``key`` in full
        (None when nothing is kept there)."""
        body = await self._refs.kept(case, PostedKind.REPLY, key)
        return details_of(case, body) if isinstance(body, WrittenDown | ShownReply) else None

    async def show_reply(
        self,
        case: Case,
        reply: TurnReply,
        *,
        key: str = "",
        lead: Sequence[Lead] = (),
        reference: str = "",
        retry: RetryValue | None = None,
    ) -> str:
        """The reply as one new message (so its notification carries it), opening with ``lead``
        (what was found in the files it answers), its questions at its foot; then its documents.

        Where the reply was posted is remembered under ``key``, with what it said; each question
        is remembered at the same message, with the reply, so a click can redraw the message
        with the decision in place of the buttons. A reply too long to share one message with its
        questions has them posted after it. A case's first answer comes under its summary, in
        the thread's first message. A reply saying the model failed (``reference``) is a message
        of its own, with the reference and **Retry** (``retry``) at its foot.
        """
        if not key and not lead and only_documents(reply):
            # A note handing over documents: the note (and any notice) and the files are one
            # message.
            rendered = reply_message(reply, case_id=case.case_id)
            notices = [f"ℹ️ {note}" for note in reply.notices]
            await self.surface.share(
                channel=case.channel_id,
                thread_ts=case.thread_ts,
                documents=reply.documents,
                comment="\n".join([rendered.text, *notices]),
            )
            return ""
        if key and await self._refs.ts(case, PostedKind.HEADER) is None:
            at = "" if reference else await self._open_with(case, reply, key=key, lead=lead)
            if at:
                return at
            await self.show_header(case)  # too long to share a message: the summary first
        together = with_questions(case, reply, lead=lead, key=key)
        alone = not reply.confirmations or len(fit(together)) > 1
        rendered = answer_message(case, reply, lead=lead, key=key) if alone else together
        if reference:
            rendered = with_retry(rendered, reference=reference, retry=retry)
        at = await self.post(case, rendered)
        shown = kept(reply, lead, questions=not alone, key=key)
        if key:  # kept as shown: a redraw, and its Details, find what it opened with
            await self._refs.remember(case, PostedKind.REPLY, at, key, body=shown)
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
        self, case: Case, reply: TurnReply, *, key: str, lead: Sequence[Lead]
    ) -> str:
        """The case's summary and first answer as the thread's first message; "" (nothing
        posted) when together they would not fit one message."""
        opening = kept(reply, lead, questions=True, key=key)
        rendered = top(case, opening, await self._spend(case))
        if not roomy(rendered):
            return ""
        at = await self.surface.post(
            channel=case.channel_id, thread_ts=case.thread_ts, message=rendered
        )
        await self._refs.set_header(case, at, digest=digest(rendered), opening=opening)
        await self._refs.remember(case, PostedKind.REPLY, at, key, body=opening)
        for prompt in reply.confirmations:
            await self._refs.remember(
                case, PostedKind.PROMPT, at, prompt.confirmation_id, body=AtTheTop()
            )
        for key in card_keys(reply):
            await self._refs.remember(case, PostedKind.REQUEST, at, key, body=AtTheTop())
        await self._upload_documents(case, reply)
        return at

    async def _upload_documents(self, case: Case, reply: TurnReply) -> None:
        for document in reply.documents:
            await self.surface.upload(
                channel=case.channel_id,
                thread_ts=case.thread_ts,
                filename=document.filename,
                title=document.title,
                content=document.markdown,
            )

    async def share_handover(self, case: Case, escalation: EscalationView, *, by: str) -> str:
        """Escalating a stuck case: what to hand over, as one message to forward."""
        rendered = handover_message(escalation, by=by, case_label=case.label)
        return await self.post(case, rendered)

    async def show_prompts(self, case: Case, prompts: Sequence[ConfirmationPrompt]) -> None:
        """Each confirmation as its own message, so a click can rewrite just that one."""
        for prompt in prompts:
            final = is_final(case, prompt.confirmation_id)
            rendered = confirmation_message(prompt, case_id=case.case_id, final=final)
            ts = await self.post(case, rendered)
            await self._refs.remember(case, PostedKind.PROMPT, ts, prompt.confirmation_id)

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
        body = await self._refs.kept(case, PostedKind.PROMPT, cid)
        if isinstance(body, AtTheTop):
            await self.show_header(case, {cid: note})
        elif isinstance(body, ShownReply):
            body = body.decided({cid: note})
            await self.surface.update(channel=case.channel_id, ts=ts, message=redrawn(case, body))
            await self._keep_notes(case, ts, body)
        else:  # a question posted on its own: one line now
            rendered = settled(confirmation)
            await self.surface.update(channel=case.channel_id, ts=ts, message=rendered)

    async def _keep_notes(self, case: Case, ts: str, body: ShownReply) -> None:
        """Keep how a reply's questions were decided with each of its questions and cards, so
        any later redraw of the message says it the same way."""
        reply = body.reply
        for prompt in reply.confirmations:
            await self._refs.remember(
                case, PostedKind.PROMPT, ts, prompt.confirmation_id, body=body
            )
        for key in card_keys(reply):
            await self._refs.remember(case, PostedKind.REQUEST, ts, key, body=body)

    async def redraw_request(self, case: Case, request_id: str) -> None:
        """Redraw the reply an evidence request was asked in, its cards as the case has them now
        (a request no longer open loses its "Can't get this" button)."""
        body = await self._refs.kept(case, PostedKind.REQUEST, request_id)
        ts = await self._refs.ts(case, PostedKind.REQUEST, request_id)
        if isinstance(body, AtTheTop):
            await self.show_header(case)
        elif ts is not None and isinstance(body, ShownReply):
            rendered = redrawn(case, body)
            await self.surface.update(channel=case.channel_id, ts=ts, message=rendered)
        elif ts is not None and isinstance(body, RanAndAsked):
            request = case.find_request(body.request_id)
            if request is not None:  # the did-it-work card under what the workflow did
                card = card_of(request)
                rendered = ran_and_ask_message(
                    body.result, body.workflow, card, case_id=case.case_id
                )
                await self.surface.update(channel=case.channel_id, ts=ts, message=rendered)

    async def redraw_closed(self, before: Case, after: Case, *, shown_at: str = "") -> None:
        """Redraw the earlier replies whose evidence requests closed (or changed how they
        closed) between ``before`` and ``after``: once a log has arrived its card says so and
        loses its "Can't get this" button; a mitigation applied, verified or put off since says
        so. A case just resolved or closed redraws every card still open (requests, tool runs,
        mitigations), so no button is left live in a finished case. Each
        message is redrawn once; the reply just posted at ``shown_at`` already shows the
        requests as they are."""
        redrawn_at = {shown_at} if shown_at else set()
        finished = after.is_terminal and not before.is_terminal
        keys = [
            request.request_id
            for request in after.evidence_requests
            if (earlier := before.find_request(request.request_id)) is not None
            and (looks(earlier.status) != looks(request.status) or (finished and earlier.is_open))
        ]
        keys += [run.run_id for run in after.tool_runs if finished and run.is_open]
        keys += [
            solution.solution_id
            for solution in after.solutions
            if solution.is_mitigation
            and (
                _moved(before.find_solution(solution.solution_id), solution)
                or (finished and solution.verified_at is None)  # its buttons go
            )
        ]
        keys += stuck_ended(before, after)  # moving again, or finished: no ways out to click
        for key in keys:
            ts = await self._refs.ts(after, PostedKind.REQUEST, key)
            if ts is None or ts in redrawn_at:
                continue
            redrawn_at.add(ts)
            await self.redraw_request(after, key)

    async def redraw_cards(self, case: Case, keys: Sequence[str]) -> None:
        """Redraw each message holding one of these cards (by their keys), each message once."""
        drawn: set[str] = set()
        for key in keys:
            ts = await self._refs.ts(case, PostedKind.REQUEST, key)
            if ts is not None and ts not in drawn:
                drawn.add(ts)
                await self.redraw_request(case, key)

    async def withdraw(self, case: Case, reply: TurnReply) -> None:
        """Rewrite the questions ``reply`` says no longer apply (an Undo withdrew them)."""
        await self._rewrite_superseded(case, reply)

    async def _rewrite_superseded(self, case: Case, reply: TurnReply) -> None:
        for confirmation_id in reply.superseded_confirmation_ids:
            confirmation = case.find_confirmation(confirmation_id)
            ts = await self.prompt_ts(case, confirmation_id)
            if confirmation is None or ts is None:
                continue
            body = await self._refs.kept(case, PostedKind.PROMPT, confirmation_id)
            if isinstance(body, AtTheTop):
                await self.show_header(case)
                continue
            rendered = (
                redrawn(case, body) if isinstance(body, ShownReply) else settled(confirmation)
            )
            await self.surface.update(channel=case.channel_id, ts=ts, message=rendered)


def _moved(before: Solution | None, after: Solution) -> bool:
    """Whether a mitigation's card shows something else now: applied, verified or put off."""
    if before is None:
        return False
    shows = ("applied_by", "verified_at", "deferred_by")
    return any(getattr(before, name) != getattr(after, name) for name in shows)
