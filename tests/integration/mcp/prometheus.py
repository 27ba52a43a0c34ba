"""A real Prometheus loaded with a made-up incident: checkout-api answering 502s for 20 minutes.

The series are written as OpenMetrics, turned into TSDB blocks with `promtool tsdb
create-blocks-from openmetrics`, and served by `prometheus` on a free local port. Both binaries
come from the Debian package (`.ci/run` installs it); without them a test is skipped, except in
CI (`CI=true`), where it fails.
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from tests.binaries import binary

STEP_S = 15
INCIDENT_MINUTES = 20


@dataclass(frozen=True)
class Incident:
    """When the made-up incident happened, in Unix seconds."""

    start: int
    end: int
    began: int
    ended: int


def binaries() -> tuple[str, str]:
    """The paths of `prometheus` and `promtool`; skipped without them (failed under CI)."""
    return binary("prometheus"), binary("promtool")


def incident_window(now: int) -> Incident:
    """Three hours of data ending an hour ago, with the incident in its middle."""
    end = now - now % 3600 - 3600
    start = end - 3 * 3600
    began = start + 90 * 60
    return Incident(start, end, began, began + INCIDENT_MINUTES * 60)


def openmetrics(incident: Incident) -> str:
    """Request counters for checkout-api by status, and its database pool in use."""
    lines = [
        "# TYPE http_requests counter",
        "# HELP http_requests Requests served by status.",
    ]
    ok = errors = 0.0
    pool: list[str] = []
    for at in range(incident.start, incident.end, STEP_S):
        failing = incident.began <= at < incident.ended
        ok += STEP_S * (20 if failing else 120)
        errors += STEP_S * (100 if failing else 0)
        lines.append(f'http_requests_total{{service="checkout-api",status="200"}} {ok} {at}')
        lines.append(f'http_requests_total{{service="checkout-api",status="502"}} {errors} {at}')
        pool.append(f'db_pool_in_use{{service="checkout-api"}} {50 if failing else 12} {at}')
    lines += ["# TYPE db_pool_in_use gauge", *pool, "# EOF"]
    return "\n".join(lines) + "\n"


@asynccontextmanager
async def running_prometheus(folder: Path, incident: Incident) -> AsyncIterator[str]:
    """Load the incident into a TSDB in `folder` and serve it; yields the base URL."""
    prometheus, promtool = binaries()
    source, data = folder / "incident.om", folder / "data"
    source.write_text(openmetrics(incident))
    config = folder / "prometheus.yml"
    config.write_text("global:\n  scrape_interval: 1m\nscrape_configs: []\n")
    created = await asyncio.to_thread(
        subprocess.run,
        [promtool, "tsdb", "create-blocks-from", "openmetrics", str(source), str(data)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert created.returncode == 0, created.stderr
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        prometheus,
        f"--storage.tsdb.path={data}",
        f"--web.listen-address=127.0.0.1:{port}",
        f"--config.file={config}",
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        await wait_until_ready(url)
        yield url
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), 30)


async def wait_until_ready(url: str, timeout_s: float = 60.0) -> None:
    async with aiohttp.ClientSession() as http:
        for _ in range(int(timeout_s / 0.2)):
            try:
                async with http.get(f"{url}/-/ready") as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.2)
    raise AssertionError(f"Prometheus at {url} did not become ready")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
