"""Drive scenarios through the real turn engine, a few at a time, and grade each one."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

from domain.errors import DomainError
from domain.llm import LLMCallRecord, LLMPort
from domain.tools import ToolsPort
from evals.engineer import SimulatedEngineer
from evals.knowledge import MemoryKnowledge, load_runbooks
from evals.scenario import Scenario
from evals.scoring.grading import ScenarioResult, grade
from evals.scoring.judging import judge_session
from evals.session import Session, SimClock
from evals.tool_rounds import ToolsFactory

logger = logging.getLogger(__name__)

LLMFactory = Callable[[Scenario], LLMPort]
"""The LLMPort for a scenario: one shared gateway for a real model, one scripted port per case."""
Records = Callable[[], Sequence[LLMCallRecord]]
"""Every call record made so far (the recorder the caller gave its gateway)."""
DEFAULT_CONCURRENCY = 4


@dataclass(frozen=True)
class RunOptions:
    """How to run a suite."""

    concurrency: int = DEFAULT_CONCURRENCY
    judge: LLMPort | None = None
    """Run the scoring judge over each finished case with this port (costs model calls)."""
    tools: ToolsFactory | None = None
    """Serve each scenario's evidence as tools (evaluations with tools)."""


def shared(llm: LLMPort) -> LLMFactory:
    """One port for every scenario (a real model behind the gateway)."""
    return lambda _scenario: llm


def no_records() -> Sequence[LLMCallRecord]:
    """For a port that records nothing."""
    return ()


def new_session(scenario: Scenario, llm: LLMPort, tools: ToolsPort | None = None) -> Session:
    """A fresh thread for the scenario, with the runbooks in its global knowledge base."""
    knowledge = MemoryKnowledge()
    load_runbooks(knowledge)
    return Session(scenario, llm, knowledge, SimClock(scenario.situation.started_at), tools)


def _tools(
    scenario: Scenario, options: RunOptions
) -> AbstractAsyncContextManager[ToolsPort | None]:
    """The scenario's tools for this run, or none."""
    if options.tools is None:
        return contextlib.nullcontext(None)
    return options.tools(scenario)


async def play(session: Session) -> Session:
    """One scenario from the opening message until the engineer stops or the case ends."""
    scenario = session.scenario
    engineer = SimulatedEngineer(scenario)
    await session.say(engineer.opening(), [])
    while True:
        await _answer_questions(session, engineer)
        if session.case.is_terminal or session.turns >= scenario.turn_budget:
            return session
        move = engineer.next_move(session.case)
        if move is None:
            return session
        session.round_trips += 1
        for request_id, reason in move.blocked:
            await session.cannot_get(request_id, reason)
        await session.say(move.text, move.files)


async def _answer_questions(session: Session, engineer: SimulatedEngineer) -> None:
    """Every pending question, oldest first; an answer may open new ones, so look again."""
    answered: set[str] = set()
    while True:
        pending = [
            c for c in session.case.pending_confirmations() if c.confirmation_id not in answered
        ]
        if not pending or session.case.is_terminal:
            return
        question = pending[0]
        answered.add(question.confirmation_id)
        await session.click(question.confirmation_id, engineer.decide(question, session.case))


async def run_scenario(
    scenario: Scenario, llm: LLMPort, records: Records, options: RunOptions
) -> ScenarioResult:
    """Play and grade one scenario (with the judge when asked)."""
    started = time.monotonic()
    async with _tools(scenario, options) as tools:
        session = new_session(scenario, llm, tools)
        error = await _played(session)
    judged = await judge_session(options.judge, session) if options.judge and not error else None
    mine = [r for r in records() if r.case_id == session.case.case_id]
    return grade(session, mine, judged=judged, seconds=time.monotonic() - started, error=error)


async def _played(session: Session) -> str | None:
    """Play the scenario; why it stopped early, if it did."""
    try:
        await play(session)
    except DomainError as exc:
        # A case the engine refused to move on (a bad reply it could not apply) is graded as it
        # stands, with the reason, instead of ending the whole suite.
        scenario = session.scenario.id
        logger.warning("scenario stopped", extra={"scenario": scenario, "error": str(exc)})
        return f"{type(exc).__name__}: {exc}"
    return None


async def run_suite(
    scenarios: Sequence[Scenario],
    llm_for: LLMFactory,
    *,
    records: Records = no_records,
    options: RunOptions | None = None,
) -> list[ScenarioResult]:
    """Every scenario, at most ``concurrency`` at once, results in the scenarios' order."""
    options = options or RunOptions()
    gate = asyncio.Semaphore(max(1, options.concurrency))

    async def one(scenario: Scenario) -> ScenarioResult:
        async with gate:
            logger.info("scenario started", extra={"scenario": scenario.id})
            return await run_scenario(scenario, llm_for(scenario), records, options)

    return list(await asyncio.gather(*(one(s) for s in scenarios)))
