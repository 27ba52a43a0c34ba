"""Evaluations with tools: the runs a turn approved are called and read by the next turn.

As the bot does it (`bot/services/tools.py`), with the engine and a `ToolsPort` only: the
scenario's server is trusted, so the runs a reply asks for are approved at once; they are called
(at most three), marked ran, kept as case evidence, and a turn follows that quotes their results,
with nobody writing. Rounds stop after `MAX_ROUNDS`, as the engine then waits for a person.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING

from domain.engine.apply.tools import MAX_ROUNDS
from domain.engine.inputs import InputMessage, ToolRunResult, TurnInput
from domain.engine.view import TurnReply
from domain.tools import ToolsPort
from domain.tools.runs import ToolRunStatus, citation_of, ran
from evals.scenario import Scenario

if TYPE_CHECKING:
    from evals.session import Session

ToolsFactory = Callable[[Scenario], AbstractAsyncContextManager[ToolsPort]]
"""The scenario's tools, started for one run and stopped after (built by the caller)."""
MAX_CALLS = 3
SAID = "The tool runs above have finished; their results are quoted. Read them and go on."


async def tool_rounds(session: Session) -> AsyncIterator[TurnReply]:
    """Each round of approved runs and the turn that reads it, until none is approved."""
    for tool_round in range(1, MAX_ROUNDS + 1):
        runs = [r for r in session.case.tool_runs if r.status is ToolRunStatus.APPROVED]
        if session.tools is None or not runs or session.case.is_terminal:
            return
        results = [await _call(session, run.run_id) for run in runs[:MAX_CALLS]]
        yield await session.read_results(results, tool_round)


async def _call(session: Session, run_id: str) -> ToolRunResult:
    assert session.tools is not None
    run = session.case.find_tool_run(run_id)
    assert run is not None
    result = await session.tools.call(
        server=run.server, tool=run.tool, arguments=json.loads(run.arguments)
    )
    ran(run, outcome=result.outcome, sentence=result.sentence, record=result.record)
    text = result.text if result.answered else ""
    if text:
        await session.knowledge.ingest_case_file(
            team_id=session.case.team_id,
            case_id=session.case.case_id,
            filename=f"{run.server}-{run.tool}-{run.number}.txt",
            content=text.encode(),
        )
    return ToolRunResult(
        run_id=run.run_id,
        citation=citation_of(run.server, run.tool, run.number, run.arguments),
        label=run.label,
        arguments=run.arguments,
        outcome=result.outcome,
        sentence=result.sentence,
        text=text,
    )


def results_turn(
    session: Session, results: list[ToolRunResult], tool_round: int, ts: str, author: str
) -> TurnInput:
    """The turn after a round: the results quoted, the tools offered again."""
    message = InputMessage(ts=ts, author=author, text=SAID)
    return TurnInput(
        messages=[message],
        conversation=session.conversation(),
        tools=list(session.tools.catalogue()) if session.tools else [],
        tool_results=results,
        tool_round=tool_round,
    )
