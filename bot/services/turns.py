"""Taking a turn for a case: the people's new messages and files → the engine → the thread.

Save, then show. The model is asked once; its reply is applied to the case and the case saved
with the version check. If someone else saved the case meanwhile, the same reply is applied to
the fresh case (the model is not asked again) and saved. Only then is anything shown, so no
message people have read is ever rewritten by a conflict. The reply is written down before it is
shown: work taken again after a restart shows it instead of asking the model twice.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TypedDict

from bot.inbox.work import ThreadMessage, ThreadRef
from bot.observability.turns import note_turn, observed_turn
from bot.services.cases import CaseStore
from bot.services.files.uploads import UploadService
from bot.services.memory import SeenBeforeService
from bot.services.ports import Responders
from bot.slack.errors import new_reference
from bot.slack.ids import RetryValue
from bot.thread.memory import Lead, ToolResults, ToolsRead
from bot.thread.presenter import ThreadPresenter
from domain.case import Case
from domain.engine.engine import TurnEngine, TurnResult
from domain.engine.inputs import InputFile, InputMessage, ToolRunResult, TurnInput
from domain.engine.schemas import EngineReply
from domain.engine.view import ReplyKind, TurnReply
from domain.ports import Clock, MessageRepository
from domain.records import ConversationMessage, MessageRole
from domain.tools.policy import ToolSpec

logger = logging.getLogger(__name__)

HISTORY_MESSAGES = 12
BOT_AUTHOR = "bot"
ANSWER_SUFFIX = "+answer"


@dataclass(frozen=True)
class ToolsRan:
    """Tool runs that finished, for the turn that reads them: the results, and which round."""

    results: Sequence[ToolRunResult]
    round: int


AfterTurn = Callable[[Case, int, ThreadMessage], Awaitable[None]]
"""What runs once a turn is shown (the tool runs it approved): the case, the round of tool
runs the turn was, and the message it answered."""


@dataclass(frozen=True)
class _Turn:
    """One turn's inputs, ready for the engine."""

    fresh: list[ThreadMessage]
    turn: TurnInput


class TurnService:
    """One turn at a time per case (the worker guarantees it); saved with a version check."""

    def __init__(
        self,
        *,
        engine: TurnEngine,
        cases: CaseStore,
        messages: MessageRepository,
        uploads: UploadService,
        presenter: ThreadPresenter,
        responders: Responders,
        clock: Clock,
    ) -> None:
        self._engine = engine
        self._cases = cases
        self._messages = messages
        self._uploads = uploads
        self._presenter = presenter
        self._responders = responders
        self._clock = clock
        self.tools: Callable[[], Sequence[ToolSpec]] | None = None
        """The team's tools the model may ask for now (set when tools are configured)."""
        self.after_turn: AfterTurn | None = None
        self.memory: SeenBeforeService | None = None
        """Looks for the finished case this one repeats (set when the knowledge base can)."""

    async def take_turn(
        self,
        *,
        thread: ThreadRef,
        messages: Sequence[ThreadMessage],
        work_key: str,
        case: Case | None = None,
        ran: ToolsRan | None = None,
        tried: str = "",
        clicked: bool = False,
    ) -> None:
        """Answer the messages (coalesced by the worker) in the case thread.

        ``case`` is the thread's case if the caller has just loaded or created it; ``ran``, the
        tool runs this turn reads; ``tried``, the inbox item's own key when the turn is one (a
        retry's differs from ``work_key``). While the turn runs the thread shows the bot is
        working; the answer is one new message. An answer saying the model failed carries a
        reference and **Retry**, which runs this turn again: an inbox item's (``tried``), or,
        ``clicked``, a click's or a tool run's, whose said message is answered again (with the
        tool runs it read, kept for that).
        """
        with observed_turn(team_id=thread.team_id, turn_id=work_key):
            await self._take_turn(
                thread=thread,
                messages=messages,
                work_key=work_key,
                case=case,
                ran=ran,
                tried=tried,
                clicked=clicked,
            )

    async def _take_turn(
        self,
        *,
        thread: ThreadRef,
        messages: Sequence[ThreadMessage],
        work_key: str,
        case: Case | None,
        ran: ToolsRan | None = None,
        tried: str = "",
        clicked: bool = False,
    ) -> None:
        case = case or await self._cases.by_thread(thread)
        if case is None:
            note_turn(outcome="ignored")
            logger.info("message outside any case ignored", extra={"work": work_key})
            return
        note_turn(case_id=case.case_id)
        history = await self._messages.list_for_case(case.case_id)
        seen = {m.ts for m in history}
        fresh = [m for m in messages if m.ts not in seen]
        if (
            not fresh
            and tried not in ("", work_key)
            and await self._presenter.faulted(case, work_key)
        ):
            # Retry on a reply saying the model failed: the same messages (and tool runs), asked
            # again.
            fresh = list(messages)
            history = [m for m in history if m.ts not in {f.ts for f in fresh}]
            read = None if ran else await self._presenter.tools_read(case, work_key)
            ran = ToolsRan(read.results, read.round) if read else ran
        if not fresh:
            # Saved and recorded before a restart cut the rest short: show what was made.
            note_turn(outcome="replayed")
            await self._presenter.show_kept_reply(case, work_key)
            return
        async with self._presenter.working(case, on=fresh[-1].ts):
            case, recalled = await self._recall(case)
            ingested = await self._uploads.ingest(case=case, messages=fresh)
            prepared = await self._prepare(case, fresh, ingested.files, history, ran)
            saved, result = await self._run_and_save(case, prepared)
            if not recalled:  # a problem confirmed by a typed "yes" in this very turn
                saved, recalled = await self._recall(saved)
            await self._presenter.keep_reply(saved, work_key, result.reply)
            if ran and ran.results and result.reply.kind is ReplyKind.FAULT:
                read = ToolsRead(results=list(ran.results), round=ran.round)
                await self._presenter.keep_tools_read(saved, work_key, read)
            await self._remember(saved, fresh, result.reply)
            lead: list[Lead] = [ToolResults.of(list(ran.results))] if ran and ran.results else []
            at = await self._presenter.show_reply(
                saved,
                result.reply,
                key=work_key,
                lead=[*lead, *ingested.said, *recalled],
                **_fault(result.reply, work_key, tried, said=fresh[-1].ts if clicked else ""),
            )
        await self._presenter.redraw_closed(case, saved, shown_at=at)
        if result.decided is not None:
            await self._presenter.show_decided(saved, result.decided)
        await self._presenter.show_header(saved)
        if self.after_turn is not None:
            await self.after_turn(saved, prepared.turn.tool_round, fresh[-1])

    async def _recall(self, case: Case) -> tuple[Case, list[Lead]]:
        """The case after its look for a past case it repeats, and the block to show if found."""
        if self.memory is None:
            return case, []
        return await self.memory.look(case)

    async def _prepare(
        self,
        case: Case,
        fresh: list[ThreadMessage],
        files: list[InputFile],
        history: list[ConversationMessage],
        ran: ToolsRan | None = None,
    ) -> _Turn:
        recent = [m for m in history if m.role is not MessageRole.SYSTEM][-HISTORY_MESSAGES:]
        turn = TurnInput(
            messages=[
                InputMessage(
                    ts=m.ts, author=m.author, text=m.text, file_ids=[f.file_id for f in m.files]
                )
                for m in fresh
            ],
            files=files,
            conversation=recent,
            responders=await self._responders.for_team(case.team_id),
            tools=list(self.tools()) if self.tools else [],
            tool_results=list(ran.results) if ran else [],
            tool_round=ran.round if ran else 0,
        )
        return _Turn(fresh, turn)

    async def _run_and_save(self, case: Case, prepared: _Turn) -> tuple[Case, TurnResult]:
        """The engine's turn, saved; after a conflict, the same reply on the fresh case."""
        asked: list[EngineReply] = []

        async def step(current: Case) -> tuple[Case, TurnResult]:
            answered = asked[0] if asked else None
            result = await self._engine.take_turn(
                case=current, turn=prepared.turn, answered=answered
            )
            if result.answer is not None and not asked:
                asked.append(result.answer)
            elif asked:
                logger.info(
                    "case changed during the turn; reply applied again",
                    extra={"case": case.case_id},
                )
            return result.case, result

        return await self._cases.update(case, step)

    async def _remember(self, case: Case, fresh: list[ThreadMessage], reply: TurnReply) -> None:
        """The thread as the next turn sees it (and the mark that these messages were answered)."""
        now = self._clock.now()
        said = [
            ConversationMessage(
                case_id=case.case_id,
                ts=m.ts,
                author=m.author,
                role=MessageRole.USER,
                text=m.text,
                files=[f.file_id for f in m.files],
                created_at=now,
            )
            for m in fresh
        ]
        if reply.kind is ReplyKind.FAULT:
            # The people's messages count; the failure is not an answer (a retry gives one).
            await self._messages.add_many(said)
            return
        answer = ConversationMessage(
            case_id=case.case_id,
            # Written before the answer is posted: named after what it answers, sorting after it.
            ts=f"{fresh[-1].ts}{ANSWER_SUFFIX}",
            author=BOT_AUTHOR,
            role=MessageRole.ASSISTANT,
            text=reply.text,
            created_at=now,
        )
        await self._messages.add_many([*said, answer])


class _Fault(TypedDict, total=False):
    reference: str
    retry: RetryValue


def _fault(reply: TurnReply, work_key: str, tried: str, *, said: str = "") -> _Fault:
    """How a reply saying the model failed is shown: with a reference (logged with the work),
    and **Retry**: the inbox item ``tried`` runs again, or a click's turn answers what the click
    ``said`` again."""
    if reply.kind is not ReplyKind.FAULT:
        return {}
    reference = new_reference()
    logger.info(
        "model failure told",
        extra={"reference": reference, "work": work_key, "error": reply.debug.llm_outcome},
    )
    if said:
        retry = RetryValue(work_key=work_key, reference=reference, turn=True, said=said)
        return {"reference": reference, "retry": retry}
    if not tried:
        return {"reference": reference}
    return {
        "reference": reference,
        "retry": RetryValue(work_key=tried, reference=reference, turn=True),
    }
