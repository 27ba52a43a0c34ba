"""Several `fm run --http` processes on one PostgreSQL database and one LanceDB store.

Each replica has its own data directory (its name in the inbox is host + data directory) and its
own model name, so the fake model can tell them apart. `LoadBalancer` sends Slack's signed
requests to the replica of the caller's choice, or to a live one when that replica is dead, as a
load balancer that health-checks its backends does.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from sqlalchemy import Executable, func, select
from sqlalchemy.engine import make_url

from bot.settings import load_settings
from bot.wiring.runtime import instance_name
from storage.database.engine import create_engine
from storage.schema.tables import InboxRow
from tests.fakes.bot_process import SIGNING_SECRET, BotProcess, bot_process
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.slack.payloads import SlackRequest
from tests.fakes.slack.server import FakeSlack

POSTGRES_URL = os.environ.get("FM_TEST_DATABASE_URL", "")


def replica_name(index: int) -> str:
    """The model name replica ``index`` asks for: how the fake model tells replicas apart."""
    return f"replica-{index}"


@contextlib.asynccontextmanager
async def scratch_database() -> AsyncIterator[str]:
    """A new, empty database on the FM_TEST_DATABASE_URL server, dropped afterwards."""
    import asyncpg  # only the PostgreSQL runs need the optional driver

    name = f"fm_replicas_{uuid.uuid4().hex[:12]}"
    server = make_url(POSTGRES_URL)
    admin = server.set(drivername="postgresql").render_as_string(hide_password=False)
    connection = await asyncpg.connect(admin)
    try:
        await connection.execute(f'CREATE DATABASE "{name}"')
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await connection.close()


@contextlib.asynccontextmanager
async def replicas(
    slack: FakeSlack, model: FakeLLMServer, root: Path, envs: Sequence[dict[str, str]]
) -> AsyncIterator[list[BotProcess]]:
    """Start one `fm run --http` per environment, all at once, as a deployment does."""
    managers = [
        bot_process(
            slack, model, data_dir(root, i), FM_LLM_MODEL=f"openai/{replica_name(i)}", **env
        )
        for i, env in enumerate(envs)
    ]
    started = await asyncio.gather(*(m.__aenter__() for m in managers), return_exceptions=True)
    try:
        for outcome in started:
            if isinstance(outcome, BaseException):
                raise outcome
        yield [outcome for outcome in started if isinstance(outcome, BotProcess)]
    finally:
        for manager, outcome in zip(managers, started, strict=True):
            if isinstance(outcome, BotProcess):
                await manager.__aexit__(None, None, None)


@dataclass
class LoadBalancer:
    """Routes Slack's requests to a chosen replica, or to a live one if it is dead."""

    backends: list[BotProcess]
    session: aiohttp.ClientSession
    killed_at: dict[int, float] = field(default_factory=dict)

    def alive(self, index: int) -> bool:
        """Whether replica ``index`` still runs (what the health check would see)."""
        return self.backends[index].process.returncode is None

    async def send(self, request: SlackRequest, prefer: int) -> int:
        """POST the signed request to the preferred replica if alive, else to the next live one."""
        order = [prefer, *(i for i in range(len(self.backends)) if i != prefer)]
        for index in order:
            if not self.alive(index):
                continue
            url = f"{self.backends[index].url}/slack/events"
            async with self.session.post(
                url, data=request.body, headers=request.headers(SIGNING_SECRET)
            ) as response:
                assert response.status == 200, await response.text()
                return index
        raise AssertionError("no replica is alive")

    async def kill(self, index: int) -> float:
        """SIGKILL replica ``index`` (nothing finishes or is released); its time of death."""
        process = self.backends[index].process
        process.kill()
        await process.wait()
        self.killed_at[index] = time.monotonic()
        return self.killed_at[index]


def owner_name(root: Path, index: int) -> str:
    """The name replica ``index`` holds inbox items under (as `fm run` names itself)."""
    return instance_name(load_settings({"FM_DATA_DIR": str(data_dir(root, index))}, env_file=None))


def data_dir(root: Path, index: int) -> Path:
    """Replica ``index``'s own data directory."""
    return root / f"replica-{index}"


class Inbox:
    """The shared inbox, read as the test needs it (one engine for all the reads)."""

    def __init__(self, url: str) -> None:
        self._engine = create_engine(url)

    async def close(self) -> None:
        """Release the engine's connections."""
        await self._engine.dispose()

    async def statuses(self) -> Counter[str]:
        """How many items are in each status."""
        query = select(InboxRow.status, func.count()).group_by(InboxRow.status)
        return Counter({str(row[0]): int(row[1]) for row in await self._rows(query)})

    async def held_by(self, owner: str) -> set[int]:
        """The items ``owner`` is processing."""
        query = select(InboxRow.item_id).where(
            InboxRow.status == "processing", InboxRow.locked_by == owner
        )
        return {int(row[0]) for row in await self._rows(query)}

    async def pickups(
        self, owner: str, items: set[int], since: float, within_s: float
    ) -> dict[int, float]:
        """When each of ``owner``'s items was taken from it: seconds after ``since``."""
        taken: dict[int, float] = {}
        while len(taken) < len(items) and time.monotonic() - since < within_s:
            still = await self.held_by(owner)
            now = time.monotonic() - since
            taken.update({item: now for item in items - still if item not in taken})
            await asyncio.sleep(0.1)
        return taken

    async def _rows(self, query: Executable) -> list[tuple[Any, ...]]:
        async with self._engine.connect() as connection:
            return [tuple(row) for row in await connection.execute(query)]
