"""The picture drawn without a browser: a PNG of the thread at the asked width, as tall as its
messages, with their text, buttons, code and files, whatever the messages hold."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.demo.emoji import EMOJI
from tests.demo.page import ThreadView
from tests.demo.picture import MARKS, Picture, Written, covered, draw_thread, lay_out_thread
from tests.demo.run import make_picture

BOT = "U0BOT"
MAYA = "W1"
PEOPLE = {BOT: "FaultMaven", MAYA: "Maya Chen"}
START = 1_741_788_540.0  # 2025-03-12 14:09:00 UTC
JsonDict = dict[str, Any]


def ts(seconds: float) -> str:
    return f"{START + seconds:.6f}"


def person(text: str, at: float, **fields: Any) -> JsonDict:
    return {"type": "message", "user": MAYA, "text": text, "ts": ts(at), **fields}


def bot(at: float, *blocks: JsonDict, text: str = "", **fields: Any) -> JsonDict:
    message = {"type": "message", "user": BOT, "bot_id": "B0BOT", "text": text, "ts": ts(at)}
    return {**message, "blocks": list(blocks), **fields}


def section(text: str, **fields: Any) -> JsonDict:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}, **fields}


def button(label: str, style: str | None = None) -> JsonDict:
    element = {"type": "button", "text": {"type": "plain_text", "text": label, "emoji": True}}
    return {**element, "style": style} if style else element


def view(*messages: JsonDict, **options: Any) -> ThreadView:
    return ThreadView(messages=list(messages), people=PEOPLE, bot_user=BOT, **options)


def picture(*messages: JsonDict, width: int = 900, **options: Any) -> Picture:
    return lay_out_thread(view(*messages, **options), width=width)


def texts(drawn: Picture) -> list[str]:
    return [written.text for written in drawn.canvas.written]


def written(drawn: Picture, text: str) -> Written:
    return next(w for w in drawn.canvas.written if w.text == text)


def image(data: bytes) -> Image.Image:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return Image.open(io.BytesIO(data)).convert("RGB")


def pixels_near(picture_: Image.Image, colour: tuple[int, int, int], within: int = 12) -> int:
    """How many pixels are within ``within`` of ``colour`` on each channel."""
    data = picture_.tobytes()
    return sum(
        1
        for at in range(0, len(data), 3)
        if all(abs(data[at + i] - colour[i]) <= within for i in range(3))
    )


def test_the_picture_is_a_png_of_the_asked_width() -> None:
    for width in (900, 640):
        data = draw_thread(view(person("<@U0BOT> checkout-api 502s", 0)), width=width)

        assert image(data).width == width


def test_more_messages_make_a_taller_picture() -> None:
    one = picture(person("502s on checkout", 0))
    three = picture(person("502s on checkout", 0), bot(5, section("On it")), person("the log", 400))
    long_reply = picture(person("502s on checkout", 0), person("word " * 400, 60))

    assert one.height < three.height
    assert one.height + 150 < long_reply.height
    assert image(three.png()).height == three.height


def test_people_and_the_app_get_their_names_initials_and_times() -> None:
    drawn = picture(person("hello", 0), bot(5, section("hi")))

    assert {"Maya", "Chen", "MC", "FaultMaven", "FM", "APP", "14:09"} <= set(texts(drawn))
    assert written(drawn, "Chen").style.bold
    assert "1 reply" in texts(drawn)


def test_buttons_are_drawn_with_their_labels_primary_green_and_danger_red() -> None:
    actions = {
        "type": "actions",
        "elements": [button("Yes, resolved", "primary"), button("No", "danger"), button("Later")],
    }
    drawn = picture(person("go", 0), bot(5, section("Mark it resolved?"), actions))

    assert {"Yes,", "resolved", "No", "Later"} <= set(texts(drawn))
    assert written(drawn, "resolved").style.bold
    pixels = image(drawn.png())
    assert pixels_near(pixels, (0x00, 0x7A, 0x5A)) > 500  # a green button
    assert pixels_near(pixels, (0xE0, 0x1E, 0x5A)) > 300  # a red one
    assert written(drawn, "Yes,").right < written(drawn, "No").left


def test_bold_is_bold_and_code_is_monospace_on_its_own_background() -> None:
    text = "*Root cause:* the pool `maximumPoolSize=10`\n```kubectl rollout undo```"
    drawn = picture(person("go", 0), bot(5, section(text)))

    assert written(drawn, "cause:").style.bold
    assert written(drawn, "maximumPoolSize=10").style.mono
    assert written(drawn, "kubectl").style.mono
    assert not written(drawn, "the").style.mono


def test_long_text_wraps_inside_the_picture() -> None:
    word = "x" * 300
    drawn = picture(person("go", 0), bot(5, section(f"{'checkout ' * 200} {word}")), width=700)

    assert texts(drawn).count("checkout") == 200
    assert max(w.right for w in drawn.canvas.written) <= 700 - 20
    assert min(w.left for w in drawn.canvas.written) >= 20


def test_context_lines_are_small_and_grey() -> None:
    context = {"type": "context", "elements": [{"type": "mrkdwn", "text": "148 lines"}]}
    drawn = picture(person("go", 0), bot(5, section("Read the log"), context))

    lines = written(drawn, "lines")
    assert lines.style.size < written(drawn, "log").style.size
    assert lines.style.color == "#616061"


def test_every_emoji_the_bot_uses_and_unknown_ones_are_drawn_as_marks_not_tofu() -> None:
    everything = " ".join([*EMOJI.values(), *MARKS, "🦄", "🧑‍💻", "👍🏽", "漢字"])
    drawn = picture(
        person(everything, 0),
        bot(
            5,
            {
                "type": "header",
                "text": {
                    "type": "plain_text",
                    "text": ":white_check_mark: Resolved :unknown_code:",
                },
            },
        ),
    )

    lacking = [
        w.text
        for w in drawn.canvas.written
        if any(ord(c) not in covered(w.style.face) for c in w.text)
    ]
    assert lacking == []
    assert "✔" in texts(drawn)  # the check in ✅'s green badge
    assert ":unknown_code:" in texts(drawn)
    assert image(drawn.png()).height == drawn.height


def test_unknown_blocks_and_elements_are_named_not_dropped() -> None:
    odd = {"type": "table", "rows": []}
    actions = {"type": "actions", "elements": [{"type": "rocket_launcher"}]}
    drawn = picture(person("go", 0), bot(5, odd, actions, section("after")))

    assert {"[table", "block]", "[rocket_launcher]", "after"} <= set(texts(drawn))


def test_empty_messages_and_an_empty_thread_still_draw() -> None:
    empty = picture(person("", 0), bot(5), bot(9, text="", blocks=[]))
    nothing = picture()

    assert image(empty.png()).width == 900
    assert image(nothing.png()).height == nothing.height < empty.height


def test_the_rest_of_what_a_message_can_hold_is_drawn() -> None:
    log = {
        "id": "F1",
        "name": "checkout-api.log",
        "filetype": "text",
        "size": 24_310,
        "pretty_type": "Plain Text",
        "preview": "line 1\nline 2",
    }
    fields = section(
        "*Status*",
        fields=[
            {"type": "mrkdwn", "text": "*Severity*\nHIGH"},
            {"type": "plain_text", "text": "18 min"},
        ],
        accessory=button("Open"),
    )
    rich = {
        "type": "rich_text",
        "elements": [
            {
                "type": "rich_text_list",
                "style": "ordered",
                "elements": [
                    {
                        "type": "rich_text_section",
                        "elements": [{"type": "text", "text": "roll back"}],
                    }
                ],
            },
            {"type": "rich_text_quote", "elements": [{"type": "text", "text": "quoted"}]},
        ],
    }
    drawn = picture(
        person("the log", 0, files=[log], reactions=[{"name": "eyes", "count": 2}]),
        bot(
            5,
            fields,
            {"type": "divider"},
            rich,
            {"type": "image", "alt_text": "graph"},
            attachments=[{"color": "#e01e5a", "title": "Alert", "text": "fired"}],
        ),
        person("edited", 60, edited={"user": MAYA, "ts": ts(70)}),
        ephemerals=[{"ts": ts(8), "text": "Only you see this"}],
        note="Made by make demo",
    )

    expected = {
        "checkout-api.log",
        "Plain Text · 24 KB",
        "line 1",
        "2",
        "Severity",
        "HIGH",
        "Open",
        "1.",
        "roll",
        "quoted",
        "graph",
        "Alert",
        "fired",
        "(edited)",
        "Only",
        "visible",
        "Made",
    }
    assert expected <= set(texts(drawn))


def test_the_same_thread_draws_the_same_picture() -> None:
    thread = (person("go", 0), bot(5, section("*Root cause* `pool`")))

    assert draw_thread(view(*thread)) == draw_thread(view(*thread))


def test_without_chromium_the_demo_draws_the_picture_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    page = tmp_path / "thread.html"
    page.write_text("<p>hi</p>")

    png = make_picture(view(person("hi", 0)), page, tmp_path / "thread.png", width=500)

    assert image(png.read_bytes()).width == 500
    said = capsys.readouterr().out
    assert "No Chromium" in said
    assert "drawn with Pillow" in said
