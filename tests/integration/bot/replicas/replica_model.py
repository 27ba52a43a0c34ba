"""A fake model shared by several replicas: each turn is answered by the tag in its newest message.

Several bot processes talk to it at once, so a queue of scripted replies cannot say which reply
belongs to which turn: the test tags every message it sends (``[c07/s2]``: case 7, step 2) and
the model answers by the newest tag it is shown. Each replica runs with its own model name
(``FM_LLM_MODEL=openai/replica-0``), so every request says which replica sent it, and the
requests of one replica can be held unanswered, as a model that is slow to answer the turn
during which that replica dies.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from tests.fakes.models.llm_server import (
    FakeLLMServer,
    Refused,
    Scripted,
    completion,
    openai_error,
    strict_schema,
)

TAG = re.compile(r"\[c\d+/s\d+\]")
CITE = re.compile(r'cite="([^"]+:\d+(?:-\d+)?(?: \([^)]*\))?)"')

Answer = Callable[[str, str], Scripted]
"""The reply to a turn, from its tag and everything the model was sent (for citations)."""


@dataclass(frozen=True)
class Arrival:
    """One request: when it arrived (monotonic seconds), from which replica, for which turn."""

    at: float
    replica: str
    tag: str


class ReplicaModel(FakeLLMServer):
    """OpenAI chat completions answering by tag; ``hold`` keeps a replica's requests waiting."""

    def __init__(self, answer: Answer) -> None:
        super().__init__()
        self._answer = answer
        self._held: set[str] = set()
        self._release = asyncio.Event()
        self.arrivals: list[Arrival] = []
        self.answered: list[Arrival] = []
        self.holding: list[Arrival] = []

    def hold(self, replica: str) -> None:
        """From now on, leave ``replica``'s requests unanswered (until the server stops)."""
        self._held.add(replica)

    async def __aenter__(self) -> ReplicaModel:
        await super().__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._release.set()
        await super().__aexit__(*exc)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body: dict[str, Any] = await request.json()
        self.requests.append(body)
        try:
            self.check(body)
        except Refused as refused:
            return openai_error(refused.status, refused.message, **refused.fields)
        arrival = Arrival(time.monotonic(), str(body.get("model")), newest_tag(body))
        self.arrivals.append(arrival)
        if arrival.replica in self._held:
            self.holding.append(arrival)
            await self._release.wait()
            return openai_error(503, "the model server is stopping")
        self.answered.append(arrival)
        scripted = self._answer(arrival.tag, json.dumps(body["messages"]).replace('\\"', '"'))
        return web.json_response(completion(body, scripted, strict_schema(body)))


def newest_tag(body: dict[str, Any]) -> str:
    """The last tag of the last user message (the turn's new input), or "" if it has none.

    A click on Yes runs a turn whose input is the bot's own words, untagged: it is step 2 of the
    thread whose tags the conversation holds.
    """
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    found = TAG.findall(str(users[-1].get("content", ""))) if users else []
    if found:
        return found[-1]
    earlier = TAG.findall(json.dumps(body.get("messages", [])))
    return earlier[-1].replace("/s1]", "/s2]") if earlier else ""


def cite_labels(prompt: str, filename: str) -> list[str]:
    """The citation labels of ``filename``'s excerpts the bot quoted to the model."""
    return [label for label in CITE.findall(prompt) if label.startswith(f"{filename}:")]
