"""A real Alertmanager (the Debian package `prometheus-alertmanager`) whose receiver is the bot.

`.ci/run` installs the package when it is missing. Outside CI a test without it is skipped and says
why; in CI (CI=true) a missing binary fails the test, so the check cannot quietly vanish.
Grouping waits are a second, so a notification follows an alert within about a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

import aiohttp

from tests.binaries import binary as require

BINARY = "prometheus-alertmanager"
CONFIG = """\
route:
  receiver: faultmaven
  group_by: [alertname]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: faultmaven
    webhook_configs:
      - url: {url}
        send_resolved: true
        max_alerts: 0
        http_config:
          authorization:
            type: Bearer
            credentials: {token}
"""
READY_S = 20.0


def binary() -> str:
    """The Alertmanager binary: skipped outside CI, failed in CI, when it is not installed."""
    return require(BINARY, package=BINARY)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Alertmanager:
    """One running Alertmanager: fire and resolve alerts through its v2 API."""

    def __init__(self, url: str, session: aiohttp.ClientSession) -> None:
        self.url = url
        self._session = session

    async def fire(self, *alerts: dict[str, Any]) -> None:
        """POST alerts (``labels`` and ``annotations``) as firing now."""
        now = _iso(datetime.now(UTC))
        await self._post([{"startsAt": now, **alert} for alert in alerts])

    async def resolve(self, *alerts: dict[str, Any]) -> None:
        """POST the same alerts as ended now."""
        now = _iso(datetime.now(UTC))
        await self._post([{**alert, "endsAt": now} for alert in alerts])

    async def _post(self, body: list[dict[str, Any]]) -> None:
        async with self._session.post(f"{self.url}/api/v2/alerts", json=body) as response:
            assert response.status == 200, await response.text()


@contextlib.asynccontextmanager
async def alertmanager(workdir: Path, *, receiver: str, token: str) -> AsyncIterator[Alertmanager]:
    """Alertmanager on a free port, sending every group to ``receiver`` with ``token``."""
    path = binary()
    config, log = _prepare(workdir, receiver, token)
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        path,
        f"--config.file={config}",
        f"--storage.path={workdir / 'data'}",
        f"--web.listen-address=127.0.0.1:{port}",
        "--cluster.listen-address=",
        stdout=log,
        stderr=log,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        async with aiohttp.ClientSession() as session:
            await _ready(session, url, process, workdir)
            yield Alertmanager(url, session)
    finally:
        if process.returncode is None:
            process.terminate()
            try:
                async with asyncio.timeout(10):
                    await process.wait()
            except TimeoutError:
                process.kill()
                await process.wait()
        log.close()


async def _ready(
    session: aiohttp.ClientSession, url: str, process: asyncio.subprocess.Process, workdir: Path
) -> None:
    async with asyncio.timeout(READY_S):
        while True:
            if process.returncode is not None:
                raise AssertionError(f"Alertmanager exited at start:\n{_log_tail(workdir)}")
            with contextlib.suppress(aiohttp.ClientError):
                async with session.get(f"{url}/-/ready") as response:
                    if response.status == 200:
                        return
            await asyncio.sleep(0.1)


def _prepare(workdir: Path, receiver: str, token: str) -> tuple[Path, BinaryIO]:
    """The configuration file and the open log file."""
    workdir.mkdir(parents=True, exist_ok=True)
    config = workdir / "alertmanager.yml"
    config.write_text(CONFIG.format(url=receiver, token=token))
    return config, (workdir / "alertmanager.log").open("wb")


def _log_tail(workdir: Path) -> str:
    return (workdir / "alertmanager.log").read_text(errors="replace")[-2000:]


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")
