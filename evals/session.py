"""One scenario's thread: the simulated engineer's actions go through the real turn engine."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from domain.case import Case
from domain.engine.engine import TurnEngine
from domain.engine.inputs import InputFile, InputMessage, ToolRunResult, TurnInput
from domain.engine.view import TurnReply
from domain.investigation.evidence import UploadedFile
from domain.knowledge import KnowledgePort
from domain.lifecycle.confirmations import Decision
from domain.llm import LLMPort
from domain.records import ConversationMessage, MessageRole
from domain.tools import ToolsPort
from evals.scenario import Scenario, SharedItem
from evals.tool_rounds import results_turn, tool_rounds

ENGINEER = "U_EVAL_ENGINEER"
TEAM = "T_EVAL"
HISTORY = 12
STEP = timedelta(minutes=3)
"""Simulated time between two actions in the thread (a person reads, runs a command, answers)."""


class SimClock:
    """Simulated time: starts when the scenario says the incident was reported, moves per step."""

    def __init__(self, start: datetime) -> None:
        self._now = start

    def now(self) -> datetime:
        """The simulated present."""
        return self._now

    def advance(self) -> None:
        """One step later."""
        self._now += STEP


@dataclass(frozen=True)
class Step:
    """One action in the thread and the bot's reply to it."""

    action: str
    """say, click or unavailable."""
    turn: int
    """The engineer's message count when it happened (clicks belong to the last message)."""
    detail: str
    reply: TurnReply
    claim: tuple[str, float] | None
    """The case's root cause and confidence after the step."""


@dataclass
class Session:
    """The case, the engine and everything shown in the thread, step by step."""

    scenario: Scenario
    llm: LLMPort
    knowledge: KnowledgePort
    clock: SimClock
    tools: ToolsPort | None = None
    """The scenario's evidence served as tools (evaluations with tools), else None."""
    case: Case = field(init=False)
    steps: list[Step] = field(default_factory=list)
    history: list[ConversationMessage] = field(default_factory=list)
    turns: int = 0
    round_trips: int = 0
    """Times the bot waited for the engineer to bring something (each move after the opening)."""
    _ts: int = 0

    def __post_init__(self) -> None:
        now = self.clock.now()
        self.case = Case(
            case_id=f"case_eval_{self.scenario.id.replace('-', '_')}",
            team_id=TEAM,
            channel_id="C_EVAL",
            thread_ts=self._next_ts(),
            user_id=ENGINEER,
            title=self.scenario.title,
            participants=[ENGINEER],
            created_at=now,
            updated_at=now,
        )

    @property
    def engine(self) -> TurnEngine:
        """The real turn engine over this session's ports."""
        return TurnEngine(llm=self.llm, knowledge=self.knowledge, clock=self.clock)

    def _next_ts(self) -> str:
        self._ts += 1
        return f"{int(self.clock.now().timestamp())}.{self._ts:06d}"

    async def say(self, text: str, items: list[SharedItem]) -> TurnReply:
        """The engineer writes, sharing files; one turn of the engine."""
        files = [await self._upload(item) for item in items]
        message = InputMessage(
            ts=self._next_ts(), author=ENGINEER, text=text, file_ids=[f.file.file_id for f in files]
        )
        tools = list(self.tools.catalogue()) if self.tools else []
        turn = TurnInput(
            messages=[message], files=files, conversation=self.conversation(), tools=tools
        )
        result = await self.engine.take_turn(case=self.case, turn=turn)
        self.turns += 1
        self._remember(MessageRole.USER, text, message.ts)
        self._remember(MessageRole.ASSISTANT, result.reply.text, self._next_ts())
        reply = self._keep("say", text, result.case, result.reply)
        async for later in tool_rounds(self):
            reply = later
        return reply

    def conversation(self) -> list[ConversationMessage]:
        """The recent conversation a turn reads."""
        return self.history[-HISTORY:]

    async def read_results(self, results: list[ToolRunResult], tool_round: int) -> TurnReply:
        """The turn after a round of tool runs: nobody wrote, the results are quoted."""
        turn = results_turn(self, results, tool_round, self._next_ts(), ENGINEER)
        result = await self.engine.take_turn(case=self.case, turn=turn)
        self.turns += 1
        self._remember(MessageRole.ASSISTANT, result.reply.text, self._next_ts())
        detail = ", ".join(r.citation for r in results)
        return self._keep("tools", detail, result.case, result.reply)

    async def click(self, confirmation_id: str, decision: Decision) -> TurnReply:
        """The engineer answers a question with a button."""
        result = await self.engine.answer_confirmation(
            case=self.case, confirmation_id=confirmation_id, by=ENGINEER, decision=decision
        )
        return self._keep("click", f"{confirmation_id}={decision.value}", result.case, result.reply)

    async def cannot_get(self, request_id: str, reason: str) -> TurnReply:
        """The engineer presses "Can't get this" on an evidence request."""
        result = await self.engine.report_unavailable(
            case=self.case, request_id=request_id, by=ENGINEER, reason=reason
        )
        return self._keep("unavailable", f"{request_id}: {reason}", result.case, result.reply)

    async def _upload(self, item: SharedItem) -> InputFile:
        """Ingest a shared item the way the Slack layer does before the turn."""
        data = self.scenario.content(item)
        name = item.file or f"{item.name}.txt"
        report = await self.knowledge.ingest_case_file(
            team_id=TEAM, case_id=self.case.case_id, filename=name, content=data
        )
        file = UploadedFile(filename=name, size_bytes=len(data), uploaded_by=ENGINEER)
        return InputFile(file=file, report=report)

    def _keep(self, action: str, detail: str, case: Case, reply: TurnReply) -> TurnReply:
        self.case = case
        rc = case.root_cause_conclusion
        claim = (rc.root_cause, rc.confidence_score) if rc else None
        self.steps.append(Step(action, self.turns, detail, reply, claim))
        self.clock.advance()
        return reply

    def _remember(self, role: MessageRole, text: str, ts: str) -> None:
        author = ENGINEER if role is MessageRole.USER else "bot"
        self.history.append(
            ConversationMessage(
                case_id=self.case.case_id, ts=ts, author=author, role=role, text=text
            )
        )
