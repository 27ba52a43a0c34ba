"""The console surface: the same engine, services and worker, with the terminal as the thread.

Buttons appear as numbered choices (type the number), files are given by path (`file PATH`),
`/fm …` works as in Slack. It needs no Slack credentials: `fm run --console` (`make run`).
"""

from __future__ import annotations

import asyncio
import html
import itertools
import logging
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

from slack_sdk.models.views import View

from bot.inbox.work import (
    ClickWork,
    CommandWork,
    MessageWork,
    OpenCaseWork,
    SlackFileRef,
    ThreadMessage,
    ThreadRef,
)
from bot.server.runner import GRACE_S
from bot.services.intake import Intake
from bot.settings import Settings
from bot.slack.errors import DownloadRefusedError
from bot.slack.render.message import SlackMessage
from bot.wiring.runtime import Options, build_runtime
from domain.engine.view import DocumentView

_DATE = re.compile(r"<!date\^[^|>]*\|([^>]*)>")
"""Slack's date token (shown in each reader's time zone); the terminal shows its fallback."""
TEAM = "TCONSOLE"
CHANNEL = "CCONSOLE"
USER = "UCONSOLE"
CONSOLE_WAIT_S = 600.0
INTRO = """FaultMaven console: this terminal is a case thread.
Describe the problem to open a case; every later line is a message in its thread.
Type a number to press a button, `file PATH` to share a file, `/fm help` for commands,
`quit` to leave.
"""


@dataclass(frozen=True)
class Choice:
    """A button shown in the terminal."""

    label: str
    action_id: str
    value: str
    confirm: str | None
    ts: str


class Timestamps:
    """Slack-like message timestamps, increasing."""

    def __init__(self) -> None:
        self._serial = itertools.count(1)
        self._base = int(time.time())

    def next(self) -> str:
        """The next ts."""
        return f"{self._base}.{next(self._serial):06d}"


class ConsoleSurface:
    """ChatSurface that prints to a text stream."""

    def __init__(self, out: TextIO, *, files_dir: Path, timestamps: Timestamps) -> None:
        self._out = out
        self._files_dir = files_dir
        self._timestamps = timestamps
        self.choices: dict[int, Choice] = {}
        self._numbers = itertools.count(1)

    async def post(self, *, channel: str, thread_ts: str | None, message: SlackMessage) -> str:
        """Print a new message."""
        ts = self._timestamps.next()
        self._print(message, ts, prefix="FaultMaven")
        return ts

    async def update(self, *, channel: str, ts: str, message: SlackMessage) -> None:
        """Print the new version of a message."""
        self._print(message, ts, prefix="FaultMaven (edited)")

    async def whisper(
        self,
        *,
        channel: str,
        user: str,
        message: SlackMessage,
        thread_ts: str | None = None,
        response_url: str | None = None,
    ) -> None:
        """Print a private answer."""
        self._print(message, "", prefix="FaultMaven (only you)")

    async def set_status(
        self, *, channel: str, thread_ts: str, status: str, loading: Sequence[str] = ()
    ) -> None:
        """Print what the bot is doing (nothing when it is cleared)."""
        if status:
            self._write(f"   … FaultMaven {status}\n")

    async def react(self, *, channel: str, ts: str, name: str) -> None:
        """The terminal shows the status line instead."""

    async def unreact(self, *, channel: str, ts: str, name: str) -> None:
        """The terminal shows the status line instead."""

    async def publish_home(self, *, user: str, view: View) -> None:
        """Print the home tab."""
        blocks = tuple(view.blocks or ())
        self._print(SlackMessage(text="Home", blocks=blocks), "", prefix="Home")

    async def upload(
        self, *, channel: str, thread_ts: str, filename: str, title: str, content: str
    ) -> None:
        """Write a shared document next to the data directory and say where."""
        self._files_dir.mkdir(parents=True, exist_ok=True)
        path = self._files_dir / Path(filename).name
        path.write_text(content, encoding="utf-8")
        self._write(f"FaultMaven shared {title}: {path}\n")

    async def upload_image(
        self, *, channel: str, thread_ts: str, filename: str, title: str, data: bytes, alt: str
    ) -> None:
        """Write the image next to the data directory and say where, with its description."""
        self._files_dir.mkdir(parents=True, exist_ok=True)
        path = self._files_dir / Path(filename).name
        path.write_bytes(data)
        self._write(f"FaultMaven shared {title}: {path}\n{alt}\n")

    async def share(
        self, *, channel: str, thread_ts: str, documents: Sequence[DocumentView], comment: str
    ) -> None:
        """Say ``comment``, then write each document as `upload` does."""
        self._write(f"── FaultMaven\n{comment}\n")
        for document in documents:
            await self.upload(
                channel=channel,
                thread_ts=thread_ts,
                filename=document.filename,
                title=document.title,
                content=document.markdown,
            )

    async def download(self, *, url: str, limit: int) -> bytes:
        """Read a local file given by path."""
        return await asyncio.to_thread(_read_local, Path(url.removeprefix("file://")), limit)

    async def file_info(self, *, file_id: str) -> SlackFileRef | None:
        """Files given by path are described in full already."""
        return None

    async def permalink(self, *, channel: str, ts: str) -> str | None:
        """The terminal has no links."""
        return None

    def _print(self, message: SlackMessage, ts: str, *, prefix: str) -> None:
        lines = [f"── {prefix}"]
        for block in message.block_dicts():
            lines.extend(self._block_lines(block, ts))
        if not message.blocks:
            lines.append(message.text)
        shown = html.unescape("\n".join(lines)).replace(f"<@{USER}>", "@you")
        self._write(_DATE.sub(r"\1", shown) + "\n\n")

    def _block_lines(self, block: dict[str, Any], ts: str) -> list[str]:
        kind = block["type"]
        if kind in ("section", "header"):
            return [block["text"]["text"]]
        if kind == "context":
            return ["  " + " · ".join(e.get("text", "") for e in block["elements"])]
        if kind == "divider":
            return ["  ─────"]
        if kind == "actions":
            return [self._choice_line(block["elements"], ts)]
        return []

    def _choice_line(self, elements: list[dict[str, Any]], ts: str) -> str:
        shown = []
        for element in elements:
            number = next(self._numbers)
            confirm = element.get("confirm")
            self.choices[number] = Choice(
                label=element["text"]["text"],
                action_id=element["action_id"],
                value=element.get("value", ""),
                confirm=confirm["text"]["text"] if confirm else None,
                ts=ts,
            )
            shown.append(f"[{number}] {element['text']['text']}")
        return "  " + "   ".join(shown)

    def _write(self, text: str) -> None:
        self._out.write(text)
        self._out.flush()


def _read_local(path: Path, limit: int) -> bytes:
    if not path.is_file():
        raise DownloadRefusedError("there is no such file")
    if path.stat().st_size > limit:
        raise DownloadRefusedError(f"it is larger than the {limit // (1024 * 1024)} MB limit")
    return path.read_bytes()


class ConsoleSession:
    """Reads the terminal and records what the person does, like the Slack listeners do."""

    def __init__(
        self,
        *,
        intake: Intake,
        surface: ConsoleSurface,
        timestamps: Timestamps,
        stdin: TextIO,
        out: TextIO,
    ) -> None:
        self._intake = intake
        self._surface = surface
        self._timestamps = timestamps
        self._stdin = stdin
        self._out = out
        self._thread: ThreadRef | None = None
        self._serial = itertools.count(1)

    async def run(self, settle: Any) -> None:
        """Read lines until `quit` or end of input; ``settle`` waits for the worker to finish."""
        self._out.write(INTRO + "\n")
        while True:
            line = await self._read("you> ")
            if line is None or line.strip().lower() in ("quit", "exit"):
                return
            if line.strip() and await self._handle(line.strip()):
                await settle()

    async def _handle(self, line: str) -> bool:
        if line.startswith("/fm"):
            work = CommandWork(team_id=TEAM, channel_id=CHANNEL, user_id=USER, text=line[3:])
            return await self._intake.command(work, dedup_key=self._key())
        if line.isdigit():
            return await self._press(int(line))
        files: list[SlackFileRef] = []
        if line.lower().startswith("file "):
            files = [self._file(line[5:].strip())]
            line = ""
        return await self._say(line, files)

    async def _say(self, text: str, files: list[SlackFileRef]) -> bool:
        ts = self._timestamps.next()
        message = ThreadMessage(ts=ts, author=USER, text=text, files=files)
        if self._thread is None:
            self._thread = ThreadRef(team_id=TEAM, channel_id=CHANNEL, thread_ts=ts)
            work = OpenCaseWork(
                thread=self._thread, opened_by=USER, source="console", message=message
            )
            return await self._intake.open_case(work, dedup_key=self._key())
        return await self._intake.record(
            MessageWork(thread=self._thread, message=message),
            dedup_key=self._key(),
            team_id=TEAM,
            case_key=self._thread.key,
        )

    async def _press(self, number: int) -> bool:
        choice = self._surface.choices.get(number)
        if choice is None:
            self._out.write(f"There is no choice [{number}].\n")
            return False
        if choice.confirm is not None:
            answer = await self._read(f"{choice.confirm} Type yes to confirm: ")
            if (answer or "").strip().lower() not in ("y", "yes"):
                self._out.write("Cancelled.\n")
                return False
        thread_ts = self._thread.thread_ts if self._thread else None
        work = ClickWork(
            team_id=TEAM,
            channel_id=CHANNEL,
            thread_ts=thread_ts,
            message_ts=choice.ts or None,
            user_id=USER,
            action_id=choice.action_id,
            value=choice.value,
        )
        return await self._intake.click(work, dedup_key=self._key())

    def _file(self, given: str) -> SlackFileRef:
        path = Path(given).expanduser().resolve()
        size = path.stat().st_size if path.is_file() else 0
        return SlackFileRef(
            file_id=f"L{next(self._serial):06d}",
            name=path.name,
            size=size,
            download_url=f"file://{path}",
        )

    async def _read(self, prompt: str) -> str | None:
        self._out.write(prompt)
        self._out.flush()
        line = await asyncio.to_thread(self._stdin.readline)
        return line or None

    def _key(self) -> str:
        return f"console:{self._timestamps.next()}:{next(self._serial)}"


async def console(
    settings: Settings, *, stdin: TextIO, out: TextIO, options: Options | None = None
) -> None:
    """The console surface: the same runtime, the terminal as the thread."""
    timestamps = Timestamps()
    surface = ConsoleSurface(out, files_dir=settings.data_dir / "console", timestamps=timestamps)
    options = replace(options or Options(), surface=surface)
    runtime = await build_runtime(settings, options)
    session = ConsoleSession(
        intake=runtime.services.intake,
        surface=surface,
        timestamps=timestamps,
        stdin=stdin,
        out=out,
    )
    try:
        await runtime.start()
        runtime.start_warm_up()
        await session.run(lambda: runtime.worker.wait_idle(CONSOLE_WAIT_S))
    finally:
        await runtime.close(grace_s=GRACE_S)


def run_console(settings: Settings) -> int:
    """The `fm run --console` command."""
    # The terminal is the conversation: keep routine log lines out of it.
    root = logging.getLogger()
    root.setLevel(max(root.level, logging.WARNING))
    try:
        asyncio.run(console(settings, stdin=sys.stdin, out=sys.stdout))
    except KeyboardInterrupt:
        print()
    return 0
