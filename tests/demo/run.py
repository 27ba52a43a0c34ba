"""The demo's steps: run the incident, write the page, the numbers and the picture (Chromium's
screenshot of the page when Chromium is installed, otherwise drawn with Pillow)."""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
from pathlib import Path

from tests.demo.page import ThreadView, render_page
from tests.demo.picture import write_picture
from tests.demo.scenario import Transcript, record_incident
from tests.demo.screenshot import INSTALL_HINT, ScreenshotError, find_chromium, screenshot
from tests.demo.summary import count, report
from tests.fakes.slack.state import BOT_USER_ID
from tests.paths import REPO_ROOT

DOCS = REPO_ROOT / "docs"
NOTES = {
    "checkout": (
        "FaultMaven for Slack, `make demo`: the checkout-api incident run through the bot against "
        "FakeSlack and a scripted model. Messages show their final state; times follow the story."
    ),
    "kafka": (
        "FaultMaven for Slack, `make demo`: a Kafka consumer dropped from its group after a config "
        "change, run through the bot against FakeSlack and a scripted model. Messages show their "
        "final state; times follow the story."
    ),
    "alert": (
        "FaultMaven for Slack, `make demo`: Alertmanager's KubePodCrashLooping for payments-api, "
        "approved and resolved by the paged on-call, run through the bot against FakeSlack and a "
        "scripted model. Messages show their final state; times follow the story."
    ),
}
"""Each story's note under its picture; the checkout story writes into the output folder, the
others into a folder of their own in it (``kafka/``, ``alert/``)."""


def make_demo(
    out: Path, *, width: int = 900, update_docs: bool = False, pillow: bool = False
) -> int:
    """Everything `make demo` does, for each story; 1 if one stopped before its end. ``pillow``
    draws the pictures with Pillow even when Chromium is installed."""
    failed = 0
    for story, note in NOTES.items():
        folder = out if story == "checkout" else out / story
        folder.mkdir(parents=True, exist_ok=True)
        print(f"— the {story} story —")
        with tempfile.TemporaryDirectory(prefix="fm-demo-") as data_dir:
            transcript = asyncio.run(record_incident(Path(data_dir), story))
        page = write_outputs(transcript, folder, note=note)
        print(f"Wrote {page}")
        print((folder / "summary.txt").read_text(encoding="utf-8"), end="")
        view = thread_view(transcript, note=note)
        picture = make_picture(view, page, folder / "thread.png", width=width, pillow=pillow)
        if update_docs:
            suffix = "" if story == "checkout" else f"-{story}"
            copy_to_docs(page, picture, name=f"demo{suffix}")
        if transcript.error:
            print(f"The {story} incident stopped early: {transcript.error}")
            failed = 1
    return failed


def thread_view(transcript: Transcript, *, note: str = NOTES["checkout"]) -> ThreadView:
    """The page's input: Slack's record of the thread, shown at the story's times."""
    return ThreadView(
        messages=transcript.thread,
        people=transcript.people,
        bot_user=BOT_USER_ID,
        ephemerals=transcript.ephemerals,
        shown_at=lambda ts: transcript.clock.story_at(float(ts)),
        note=note,
    )


def write_outputs(transcript: Transcript, out: Path, *, note: str = NOTES["checkout"]) -> Path:
    """thread.html, thread.json and summary.txt; returns the page's path."""
    page = out / "thread.html"
    page.write_text(render_page(thread_view(transcript, note=note)), encoding="utf-8")
    record = {"thread": transcript.thread, "ephemerals": transcript.ephemerals}
    (out / "thread.json").write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    actions = [(a.step.name, a.real) for a in transcript.actions]
    numbers = count(
        transcript.thread, actions, ephemerals=transcript.ephemerals, edits=transcript.edits
    )
    (out / "summary.txt").write_text(report(numbers) + "\n", encoding="utf-8")
    return page


def make_picture(
    view: ThreadView, page: Path, png: Path, *, width: int, pillow: bool = False
) -> Path:
    """thread.png, always: Chromium's screenshot of the page when Chromium is installed and
    works (and ``pillow`` is false), otherwise drawn with Pillow from the same messages."""
    if not pillow and take_picture(page, png, width=width) is not None:
        return png
    write_picture(view, png, width=width)
    print(f"Wrote {png} (drawn with Pillow from the thread's messages)")
    return png


def take_picture(page: Path, png: Path, *, width: int) -> Path | None:
    """Chromium's screenshot of the page, or None (and why) when Chromium is missing or fails."""
    browser = find_chromium()
    if browser is None:
        print(f"No Chromium for a screenshot of the page; for one: {INSTALL_HINT}.")
        return None
    url = page.resolve().as_uri()
    try:
        png.write_bytes(asyncio.run(screenshot(url, browser=browser, width=width)))
    except (ScreenshotError, OSError, TimeoutError) as failed:
        print(f"Chromium could not take a screenshot of the page ({failed}).")
        return None
    print(f"Wrote {png} (Chromium's screenshot of the page)")
    return png


def copy_to_docs(page: Path, picture: Path | None, *, name: str = "demo") -> None:
    """docs/<name>.html always; docs/<name>.png when there is a picture."""
    shutil.copyfile(page, DOCS / f"{name}.html")
    print(f"Copied the page to {DOCS / f'{name}.html'}")
    if picture is not None:
        shutil.copyfile(picture, DOCS / f"{name}.png")
        print(f"Copied the picture to {DOCS / f'{name}.png'}")
