"""Healthy from the first second, ready once the warm-up is done: `/healthz` and `/readyz`."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import aiohttp
from aiohttp import web

from bot.server.http_app import HEALTH_PATH, READY_PATH, build_web_app
from bot.wiring.readiness import EMBEDDING_MODEL, LLM, Readiness

Answer = tuple[int, dict[str, object]]


class Database:
    """Answers the health check's query, or not."""

    def __init__(self) -> None:
        self.up = True

    async def ok(self) -> bool:
        return self.up


@contextlib.asynccontextmanager
async def served(app: web.Application) -> AsyncIterator[str]:
    """The app on a free local port; its base URL."""
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    finally:
        await runner.cleanup()


async def get(session: aiohttp.ClientSession, url: str) -> Answer:
    async with session.get(url) as response:
        return response.status, await response.json()


async def test_a_warming_bot_is_healthy_but_not_ready_until_every_part_is_loaded() -> None:
    readiness = Readiness([LLM, EMBEDDING_MODEL])
    app = build_web_app(bolt=None, database_ok=Database().ok, readiness=readiness)

    async with served(app) as url, aiohttp.ClientSession() as session:
        health = await get(session, url + HEALTH_PATH)
        warming = await get(session, url + READY_PATH)
        readiness.done(LLM)
        half = await get(session, url + READY_PATH)
        readiness.done(EMBEDDING_MODEL)
        warm = await get(session, url + READY_PATH)

    assert health == (200, {"database": "ok", "ok": True})
    assert warming == (
        503,
        {"database": "ok", "warm_up": {LLM: "loading", EMBEDDING_MODEL: "loading"}, "ok": False},
    )
    assert half[0] == 503
    assert half[1]["warm_up"] == {LLM: "ready", EMBEDDING_MODEL: "loading"}
    assert warm == (
        200,
        {"database": "ok", "warm_up": {LLM: "ready", EMBEDDING_MODEL: "ready"}, "ok": True},
    )


async def test_a_warm_bot_without_its_database_is_not_ready() -> None:
    database = Database()
    app = build_web_app(bolt=None, database_ok=database.ok, readiness=Readiness())

    async with served(app) as url, aiohttp.ClientSession() as session:
        database.up = False
        answer = await get(session, url + READY_PATH)

    assert answer == (503, {"database": "unavailable", "warm_up": {}, "ok": False})


def test_a_part_done_twice_or_unknown_changes_nothing() -> None:
    readiness = Readiness([LLM])

    readiness.done("something else")
    assert not readiness.ready
    readiness.done(LLM)
    readiness.done(LLM)

    assert readiness.ready
    assert readiness.report() == {LLM: "ready"}
