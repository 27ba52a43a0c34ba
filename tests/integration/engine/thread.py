"""A Slack thread in miniature: people talk, the engine answers through the real litellm gateway."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from domain.case import Case
from domain.engine.engine import TurnEngine
from domain.engine.inputs import InputFile, InputMessage, TurnInput
from domain.engine.view import TurnReply
from domain.investigation.evidence import UploadedFile
from domain.knowledge import IngestReport, ToolStatus
from domain.lifecycle.confirmations import ConfirmationKind, Decision
from domain.records import ConversationMessage, MessageRole
from tests.fakes.clock import FakeClock
from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.models.gateway import GatewayKit, gateway_for
from tests.fakes.models.llm_server import FakeLLMServer, Scripted, reply

OPENER = "U_OPENER"
SRE = "U_SRE"


def json_reply(text: str, *, citations: list[str] | None = None, **state_updates: Any) -> Scripted:
    """A scripted model reply: agent_response, state updates and citations."""
    body = {"agent_response": text, "state_updates": state_updates, "citations": citations or []}
    return reply(body)


@dataclass
class Thread:
    """One case thread driven turn by turn."""

    server: FakeLLMServer
    kit: GatewayKit
    knowledge: FakeKnowledge = field(default_factory=FakeKnowledge)
    clock: FakeClock = field(default_factory=FakeClock)
    case: Case = field(init=False)
    history: list[ConversationMessage] = field(default_factory=list)
    replies: list[TurnReply] = field(default_factory=list)
    _ts: int = 100

    def __post_init__(self) -> None:
        self.case = Case(
            team_id="T1",
            channel_id="C1",
            thread_ts="1700000000.000100",
            user_id=OPENER,
            title="payments API 500s",
            participants=[OPENER],
            created_at=self.clock.now(),
            updated_at=self.clock.now(),
        )

    @property
    def engine(self) -> TurnEngine:
        return TurnEngine(llm=self.kit.gateway, knowledge=self.knowledge, clock=self.clock)

    def _next_ts(self) -> str:
        self._ts += 1
        return f"1700000000.{self._ts:06d}"

    async def upload(self, name: str, content: str, *, by: str = OPENER) -> InputFile:
        """Ingest a file the way the Slack layer will before the turn."""
        data = content.encode()
        report: IngestReport = await self.knowledge.ingest_case_file(
            team_id=self.case.team_id, case_id=self.case.case_id, filename=name, content=data
        )
        file = UploadedFile(filename=name, size_bytes=len(data), uploaded_by=by)
        return InputFile(file=file, report=report.model_copy(update={"status": ToolStatus.OK}))

    async def say(
        self,
        text: str,
        *replies: Scripted,
        by: str = OPENER,
        files: list[InputFile] | None = None,
    ) -> TurnReply:
        """A person writes; the scripted model replies are queued for this turn."""
        self.server.script(*replies)
        message = InputMessage(
            ts=self._next_ts(), author=by, text=text, file_ids=[f.file.file_id for f in files or []]
        )
        turn = TurnInput(messages=[message], files=files or [], conversation=self.history[-12:])
        result = await self.engine.take_turn(case=self.case, turn=turn)
        self._remember(message, result.reply)
        return self._keep(result.case, result.reply)

    async def click(
        self, kind: ConfirmationKind, decision: Decision = Decision.YES, *, by: str = OPENER
    ) -> TurnReply:
        """A person clicks a button on the newest pending question of this kind."""
        pending = [c for c in self.case.pending_confirmations() if c.kind is kind]
        assert pending, f"no pending {kind} question"
        result = await self.engine.answer_confirmation(
            case=self.case, confirmation_id=pending[-1].confirmation_id, by=by, decision=decision
        )
        return self._keep(result.case, result.reply)

    def _keep(self, case: Case, answer: TurnReply) -> TurnReply:
        self.case = case
        self.replies.append(answer)
        self.clock.advance(minutes=2)
        return answer

    def _remember(self, message: InputMessage, answer: TurnReply) -> None:
        case_id = self.case.case_id
        self.history.append(
            ConversationMessage(
                case_id=case_id,
                ts=message.ts,
                author=message.author,
                role=MessageRole.USER,
                text=message.text,
            )
        )
        self.history.append(
            ConversationMessage(
                case_id=case_id,
                ts=self._next_ts(),
                author="bot",
                role=MessageRole.ASSISTANT,
                text=answer.text,
            )
        )

    def prompt(self, index: int = -1) -> list[dict[str, str]]:
        """The messages the model received in one request."""
        return list(self.server.requests[index]["messages"])


def thread_on(server: FakeLLMServer, **gateway: Any) -> Thread:
    """A thread whose engine uses the real gateway against ``server``."""
    return Thread(server=server, kit=gateway_for(server, **gateway))
