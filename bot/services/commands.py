"""`/fm` subcommands: help, cases, status, close, score, scores, calibration, kb search.

`kb add` opens a modal, from its listener.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from bot.inbox.work import ClickWork, CommandWork, ThreadRef
from bot.services.cases import CaseStore
from bot.services.outcomes import DEFAULT_LAST, OutcomeService
from bot.services.proposals import CloseRequests
from bot.services.scoring.service import ScoringService
from bot.slack.ids import CaseValue, Subcommand, load_value
from bot.thread.replies import (
    Calibration,
    CaseList,
    CaseStatus,
    CloseAsked,
    CommandAnswer,
    Costed,
    Help,
    KbHits,
    Note,
    Replies,
    ScoreList,
)
from domain.budget import LLMSpend
from domain.case import Case
from domain.knowledge import KnowledgePort
from domain.ports import LLMCallRepository

LIST_LIMIT = 20
HERE_LIMIT = 5
"""Open cases `/fm status` lists for a channel (a short list; `/fm cases` has them all)."""
NONE_HERE = (
    "No open case in this channel. `/fm status <case>` shows any case (e.g. "
    "`/fm status FM-7K3Q`); `/fm cases` lists the open ones."
)
KB_LIMIT = 5
KB_ADD_IN_SLACK = "`/fm kb add` opens a form in Slack; here, use `fm kb ingest --kb user:<id>`."
FORCE = "--force"
BELOW = "--below"
SCORE_USAGE = "Try `/fm score <case>`, or `/fm score <case> --force` to score it again."
SCORES_USAGE = "Try `/fm scores`, or `/fm scores --below 50` (a number from 1 to 100)."
LAST = "--last"
MAX_LAST = 1000
CALIBRATION_USAGE = (
    f"Try `/fm calibration`, or `/fm calibration --last 50` (a number from 1 to {MAX_LAST})."
)


@dataclass(frozen=True)
class ParsedCommand:
    """A subcommand and its arguments."""

    subcommand: Subcommand | None
    args: list[str]
    word: str
    """The subcommand as typed (for 'I don't know …')."""


def parse_command(text: str) -> ParsedCommand:
    """`kb search disk full` → (KB, ['search', 'disk', 'full'])."""
    words = text.split()
    if not words:
        return ParsedCommand(Subcommand.HELP, [], "")
    word = words[0].lower()
    known = {s.value: s for s in Subcommand}
    return ParsedCommand(known.get(word), words[1:], word)


class CommandService:
    """Answers each subcommand privately, unless it posts into a case thread."""

    def __init__(
        self,
        *,
        cases: CaseStore,
        closing: CloseRequests,
        knowledge: KnowledgePort,
        replies: Replies,
        scoring: ScoringService,
        outcomes: OutcomeService,
        spending: LLMCallRepository | None = None,
    ) -> None:
        self._cases = cases
        self._spending = spending
        self._closing = closing
        self._knowledge = knowledge
        self._replies = replies
        self._scoring = scoring
        self._outcomes = outcomes
        self._handlers: dict[
            Subcommand, Callable[[CommandWork, list[str]], Awaitable[CommandAnswer]]
        ]
        self._handlers = {
            Subcommand.HELP: self._help,
            Subcommand.CASES: self._list,
            Subcommand.STATUS: self._status,
            Subcommand.CLOSE: self._close,
            Subcommand.SCORE: self._score,
            Subcommand.SCORES: self._scores,
            Subcommand.KB: self._kb,
            Subcommand.CALIBRATION: self._calibration,
        }

    async def run(self, *, work: CommandWork) -> None:
        """Run the command and answer the person who typed it."""
        parsed = parse_command(work.text)
        answer: CommandAnswer
        if parsed.subcommand is None:
            answer = Help(f"I don't know `{parsed.word}`.")
        else:
            answer = await self._handlers[parsed.subcommand](work, parsed.args)
        await self._replies.answer(
            answer,
            channel=work.channel_id,
            user=work.user_id,
            response_url=work.response_url,
            thread_ts=work.thread_ts,
        )

    async def _help(self, work: CommandWork, args: list[str]) -> CommandAnswer:
        return Help()

    async def _list(self, work: CommandWork, args: list[str]) -> CommandAnswer:
        cases = await self._cases.repository.list_cases(work.team_id, limit=LIST_LIMIT)
        spent = await self._spent(cases)
        return CaseList([self._costed(case, spent.get(case.case_id)) for case in cases])

    async def _status(self, work: CommandWork, args: list[str]) -> CommandAnswer:
        if not args:
            return await self._here(work)
        case = await self._find(work, args)
        if case is None:
            return _which_case(args, "status")
        return await self._status_of(case)

    async def _here(self, work: CommandWork) -> CommandAnswer:
        """`/fm status` alone. Asked from a case's thread (the Case status shortcut), that case;
        else for the channel (Slack runs no slash command in a thread, nor says where one was
        typed): its one open case's status, or its open cases listed with a button each; with
        none, how to name a case."""
        if work.thread_ts:
            thread = ThreadRef(
                team_id=work.team_id, channel_id=work.channel_id, thread_ts=work.thread_ts
            )
            case = await self._cases.by_thread(thread)
            if case is not None:
                return await self._status_of(case)
        cases = await self._cases.repository.list_cases(
            work.team_id, channel_id=work.channel_id, limit=HERE_LIMIT + 1
        )
        if not cases:
            return Note(NONE_HERE)
        if len(cases) == 1:
            return await self._status_of(cases[0])
        spent = await self._spent(cases[:HERE_LIMIT])
        listed = [self._costed(case, spent.get(case.case_id)) for case in cases[:HERE_LIMIT]]
        return CaseList(listed, here=True, more=len(cases) > HERE_LIMIT)

    async def case_status(self, *, work: ClickWork) -> None:
        """A case's button in a channel's list of open cases: its status, privately."""
        value = load_value(CaseValue, work.value)
        case = await self._cases.clicked(value.case_id, work.team_id)
        await self._replies.answer(
            await self._status_of(case), channel=work.channel_id, user=work.user_id
        )

    async def _status_of(self, case: Case) -> CommandAnswer:
        spent = await self._spent([case])
        return CaseStatus(self._costed(case, spent.get(case.case_id, LLMSpend())))

    async def _close(self, work: CommandWork, args: list[str]) -> CommandAnswer:
        case = await self._find(work, args)
        if case is None:
            return _which_case(args, "close")
        return CloseAsked(case, await self._closing.ask(case=case, by=work.user_id))

    async def _score(self, work: CommandWork, args: list[str]) -> CommandAnswer:
        words = [a for a in args if not a.startswith("--")]
        flags = {a.lower() for a in args if a.startswith("--")}
        if flags - {FORCE} or len(words) > 1:
            return Help(SCORE_USAGE)
        case = await self._find(work, words)
        if case is None:
            return _which_case(words, "score")
        return await self._scoring.request(
            case=case, by=work.user_id, force=FORCE in flags, source="slack:command"
        )

    async def _scores(self, work: CommandWork, args: list[str]) -> CommandAnswer:
        try:
            below = parse_below(args)
        except ValueError:
            return Help(SCORES_USAGE)
        return ScoreList(await self._scoring.recent(work.team_id, below=below), below)

    async def _calibration(self, work: CommandWork, args: list[str]) -> CommandAnswer:
        try:
            last = parse_last(args)
        except ValueError:
            return Help(CALIBRATION_USAGE)
        return Calibration(await self._outcomes.summary(work.team_id, last=last), last)

    async def _kb(self, work: CommandWork, args: list[str]) -> CommandAnswer:
        action = args[0].lower() if args else ""
        if action == "add":
            return Note(KB_ADD_IN_SLACK)
        query = " ".join(args[1:]).strip()
        if action != "search" or not query:
            return Help("Try `/fm kb search <query>` or `/fm kb add`.")
        results = [
            await self._knowledge.search_personal_runbooks(
                team_id=work.team_id, user_id=work.user_id, query=query, limit=KB_LIMIT
            ),
            await self._knowledge.search_global(team_id=work.team_id, query=query, limit=KB_LIMIT),
        ]
        return KbHits(query, results)

    async def _find(self, work: CommandWork, args: list[str]) -> Case | None:
        if not args:
            return None
        return await self._cases.by_short_id(work.team_id, args[0])

    def _costed(self, case: Case, spend: LLMSpend | None) -> Costed:
        """The case with what the model cost it (not shown when spending is not kept)."""
        return Costed(case, spend if self._spending is not None else None)

    async def _spent(self, cases: Sequence[Case]) -> dict[str, LLMSpend]:
        """What the model cost each case (cases without calls left out)."""
        if self._spending is None or not cases:
            return {}
        return await self._spending.for_cases([case.case_id for case in cases])


def parse_below(args: list[str]) -> int | None:
    """`--below N` → N (1-100); no arguments → None; anything else is a ValueError."""
    if not args:
        return None
    if len(args) != 2 or args[0].lower() != BELOW or not args[1].isdigit():
        raise ValueError("expected --below N")
    below = int(args[1])
    if not 1 <= below <= 100:
        raise ValueError("N must be from 1 to 100")
    return below


def parse_last(args: list[str]) -> int:
    """`--last N` → N (1-1000); no arguments → the default; anything else is a ValueError."""
    if not args:
        return DEFAULT_LAST
    if len(args) != 2 or args[0].lower() != LAST or not args[1].isdigit():
        raise ValueError("expected --last N")
    last = int(args[1])
    if not 1 <= last <= MAX_LAST:
        raise ValueError(f"N must be from 1 to {MAX_LAST}")
    return last


def _which_case(args: list[str], verb: str) -> CommandAnswer:
    if not args:
        return Help(f"Which case? For example `/fm {verb} FM-7K3Q` (see `/fm cases`).")
    return Note(f"I can't find case `{args[0]}` in this workspace. `/fm cases` lists them.")
