"""A local automation endpoint over real HTTP: records every request, answers as scripted."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass
class Received:
    """One request the endpoint got."""

    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class FakeAutomation:
    """``async with FakeAutomation() as hook``; ``hook.url`` is what the executor POSTs to."""

    status: int = 202
    answer: str = '{"run_id": "run-42", "state": "queued"}'
    delay_s: float = 0.0
    received: list[Received] = field(default_factory=list)
    _runner: web.AppRunner | None = None
    _port: int = 0

    @property
    def url(self) -> str:
        """The endpoint's URL."""
        return f"http://127.0.0.1:{self._port}/hooks/faultmaven"

    async def __aenter__(self) -> FakeAutomation:
        app = web.Application()
        app.router.add_post("/hooks/faultmaven", self._handle)
        self._runner = web.AppRunner(app, shutdown_timeout=0.1, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        assert self._runner.addresses
        self._port = int(self._runner.addresses[0][1])
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._runner is not None
        await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.Response:
        self.received.append(Received(dict(request.headers), json.loads(await request.read())))
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        return web.Response(status=self.status, text=self.answer, content_type="application/json")
