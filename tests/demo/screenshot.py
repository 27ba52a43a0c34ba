"""A full-page PNG of an HTML file, taken by headless Chromium (the system's own; nothing is
downloaded). Chromium's ``--screenshot`` flag only captures the window, so the page is opened
over the DevTools protocol, measured, and captured at its full height."""

from __future__ import annotations

import asyncio
import base64
import math
import shutil
import tempfile
from pathlib import Path
from typing import Any

import aiohttp

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
INSTALL_HINT = "apt-get install chromium (Debian/Ubuntu), then run make demo again"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--remote-debugging-port=0",
)
JsonDict = dict[str, Any]


class ScreenshotError(RuntimeError):
    """Chromium did not start or did not answer."""


def find_chromium() -> str | None:
    """The first Chromium-like browser on PATH."""
    return next((found for name in CANDIDATES if (found := shutil.which(name))), None)


async def screenshot(url: str, *, browser: str, width: int = 900, scale: float = 1.0) -> bytes:
    """A PNG of the page at ``url``, ``width`` CSS pixels wide and its full height."""
    with tempfile.TemporaryDirectory(prefix="fm-demo-chromium-") as profile:
        process = await asyncio.create_subprocess_exec(
            browser,
            *FLAGS,
            f"--user-data-dir={profile}",
            f"--window-size={width},800",
            "about:blank",
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        try:
            port = await _devtools_port(Path(profile), process)
            async with aiohttp.ClientSession() as http:
                return await _capture(http, port, url, width=width, scale=scale)
        finally:
            if process.returncode is None:
                process.terminate()
            await process.wait()


async def _devtools_port(profile: Path, process: asyncio.subprocess.Process) -> int:
    """The port Chromium chose (it writes it into the profile once listening)."""
    marker = profile / "DevToolsActivePort"
    for _ in range(300):
        if marker.is_file() and marker.read_text().strip():
            return int(marker.read_text().split()[0])
        if process.returncode is not None:
            raise ScreenshotError(f"Chromium exited with status {process.returncode}")
        await asyncio.sleep(0.1)
    raise ScreenshotError("Chromium did not open its DevTools port within 30 s")


async def _capture(
    http: aiohttp.ClientSession, port: int, url: str, *, width: int, scale: float
) -> bytes:
    async with http.get(f"http://127.0.0.1:{port}/json/list") as listed:
        targets = await listed.json()
    target = next(t for t in targets if t.get("type") == "page")
    async with http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
        devtools = DevTools(ws)
        await devtools.call("Page.enable")
        await devtools.call("Page.navigate", url=url)
        await devtools.event("Page.loadEventFired")
        metrics = await devtools.call("Page.getLayoutMetrics")
        height = math.ceil(metrics["cssContentSize"]["height"])
        await devtools.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=scale,
            mobile=False,
        )
        shot = await devtools.call("Page.captureScreenshot", format="png")
    return base64.b64decode(shot["data"])


class DevTools:
    """Just enough of the DevTools protocol: calls, and waiting for one event."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse, *, timeout_s: float = 30) -> None:
        self._ws = ws
        self._timeout_s = timeout_s
        self._next_id = 0
        self._events: list[str] = []

    async def call(self, method: str, **params: Any) -> JsonDict:
        """Send one command and return its result (events that arrive meanwhile are kept)."""
        self._next_id += 1
        await self._ws.send_json({"id": self._next_id, "method": method, "params": params})
        while True:
            message = await self._receive()
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise ScreenshotError(f"{method}: {message['error'].get('message')}")
                result: JsonDict = message.get("result", {})
                return result

    async def event(self, name: str) -> None:
        """Wait for event ``name`` (or return at once if it already came)."""
        while name not in self._events:
            await self._receive()

    async def _receive(self) -> JsonDict:
        message: JsonDict = await asyncio.wait_for(self._ws.receive_json(), self._timeout_s)
        if "method" in message:
            self._events.append(str(message["method"]))
        return message
