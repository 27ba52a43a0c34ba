"""The engine under many turns at once: retrieval a few at a time, first come first served."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

from domain.engine.engine import TurnEngine
from domain.engine.retrieval import RetrievalSettings
from domain.knowledge import KnowledgeResult
from tests.fakes.clock import FakeClock
from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.models.llm import ScriptedLLM
from tests.unit.domain.builders import new_case
from tests.unit.domain.engine.helpers import consulting, inputs, said


@dataclass
class GatedKnowledge(FakeKnowledge):
    """Global searches wait for the gate; remembers their order and how many ran at once."""

    gate: asyncio.Event = field(default_factory=asyncio.Event)
    searched: list[str] = field(default_factory=list)
    searching: int = 0
    most_at_once: int = 0

    async def search_global(
        self, *, team_id: str, query: str, conversation: Sequence[str] = (), limit: int = 5
    ) -> KnowledgeResult:
        self.searched.append(query)
        self.searching += 1
        self.most_at_once = max(self.most_at_once, self.searching)
        try:
            await self.gate.wait()
            return await super().search_global(team_id=team_id, query=query, limit=limit)
        finally:
            self.searching -= 1


async def test_a_burst_of_turns_retrieves_a_few_at_a_time_first_come_first_served() -> None:
    knowledge, llm = GatedKnowledge(), ScriptedLLM()
    llm.then(*(consulting("Looking.") for _ in range(10)))
    engine = TurnEngine(llm=llm, knowledge=knowledge, clock=FakeClock())
    subjects = [f"service {n} is down" for n in range(10)]
    turns = [
        asyncio.create_task(
            engine.take_turn(case=new_case(thread_ts=f"1.{n}"), turn=inputs(said(subject)))
        )
        for n, subject in enumerate(subjects)
    ]
    await asyncio.sleep(0.05)

    assert knowledge.searching == RetrievalSettings().turns_at_once == 4
    knowledge.gate.set()
    await asyncio.gather(*turns)
    assert knowledge.most_at_once == 4
    assert [
        query[: len(subject)] for query, subject in zip(knowledge.searched, subjects, strict=True)
    ] == subjects
    assert len(llm.calls) == 10
