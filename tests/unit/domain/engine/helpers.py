"""Helpers for engine tests: inputs, replies and an engine on in-memory fakes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from domain.case import Case
from domain.engine.engine import TurnEngine, TurnResult
from domain.engine.inputs import InputFile, InputMessage, TurnInput
from domain.engine.schemas import (
    ConsultingResponse,
    ConsultingStateUpdate,
    InvestigationResponse,
    InvestigationStateUpdate,
    TerminalResponse,
)
from domain.investigation.evidence import UploadedFile
from domain.knowledge import IngestReport, ToolStatus
from domain.lifecycle.confirmations import ProblemStatementPayload
from tests.fakes.clock import FakeClock
from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.models.llm import ScriptedLLM
from tests.unit.domain.builders import OPENER, STATEMENT

_ts = iter(range(1, 1_000_000))


def said(text: str, *, by: str = OPENER, files: list[str] | None = None) -> InputMessage:
    """A message in the thread."""
    return InputMessage(
        ts=f"1700000100.{next(_ts):06d}", author=by, text=text, file_ids=files or []
    )


def upload(name: str = "app.log", *, by: str = OPENER, lines: int = 1200) -> InputFile:
    """An uploaded, ingested file."""
    file = UploadedFile(filename=name, size_bytes=lines * 80, uploaded_by=by)
    report = IngestReport(source=name, status=ToolStatus.OK, lines=lines, error_count=52)
    return InputFile(file=file, report=report)


def inputs(
    *messages: InputMessage, files: list[InputFile] | None = None, **extra: Any
) -> TurnInput:
    """A turn's input."""
    return TurnInput(messages=list(messages), files=files or [], **extra)


def consulting(text: str = "Looking into it.", **updates: Any) -> ConsultingResponse:
    """A consulting reply."""
    return ConsultingResponse(
        agent_response=text, state_updates=ConsultingStateUpdate.model_validate(updates)
    )


def investigating(
    text: str = "Noted.", *, citations: list[str] | None = None, **updates: Any
) -> InvestigationResponse:
    """An investigating reply."""
    return InvestigationResponse(
        agent_response=text,
        state_updates=InvestigationStateUpdate.model_validate(updates),
        citations=citations or [],
    )


def terminal(text: str = "It was the pool.", **updates: Any) -> TerminalResponse:
    """A terminal reply."""
    return TerminalResponse.model_validate({"agent_response": text, "state_updates": updates})


@dataclass
class Rig:
    """An engine on fakes."""

    llm: ScriptedLLM = field(default_factory=ScriptedLLM)
    knowledge: FakeKnowledge = field(default_factory=FakeKnowledge)
    clock: FakeClock = field(default_factory=FakeClock)

    @property
    def engine(self) -> TurnEngine:
        return TurnEngine(llm=self.llm, knowledge=self.knowledge, clock=self.clock)

    async def turn(self, case: Case, *items: Any, **kw: Any) -> TurnResult:
        """Script the replies and take a turn with a message (or a given TurnInput)."""
        message_items = [i for i in items if isinstance(i, InputMessage | TurnInput)]
        self.llm.then(*[i for i in items if not isinstance(i, InputMessage | TurnInput)])
        turn = next((i for i in message_items if isinstance(i, TurnInput)), None)
        if turn is None:
            turn = inputs(*[i for i in message_items if isinstance(i, InputMessage)], **kw)
        return await self.engine.take_turn(case=case, turn=turn)


def proposed_statement(text: str = STATEMENT) -> ProblemStatementPayload:
    """A problem statement to propose."""
    return ProblemStatementPayload(statement=text)
