"""The thread page: parent then replies, people and the app told apart, final states, files,
and what only the viewer sees; self-contained."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.demo.page import ThreadView, render_page

BOT = "U0BOT"
MAYA = "W1"
PEOPLE = {BOT: "FaultMaven", MAYA: "Maya Chen"}
START = 1_741_788_540.0  # 2025-03-12 14:09:00 UTC


def ts(seconds: float) -> str:
    return f"{START + seconds:.6f}"


def person(text: str, at: float, **fields: Any) -> dict[str, Any]:
    return {"type": "message", "user": MAYA, "text": text, "ts": ts(at), **fields}


def bot(text: str, at: float, **fields: Any) -> dict[str, Any]:
    return {"type": "message", "user": BOT, "bot_id": "B0BOT", "text": text, "ts": ts(at), **fields}


def page(*messages: dict[str, Any], **view: Any) -> str:
    return render_page(ThreadView(messages=list(messages), people=PEOPLE, bot_user=BOT, **view))


def articles(html: str) -> list[str]:
    return re.findall(r"<article.*?</article>", html, re.DOTALL)


def test_the_parent_comes_first_then_the_count_of_replies() -> None:
    html = page(person("<@U0BOT> 502s", 0), bot("On it", 5), person("thanks", 60))

    first, *_ = articles(html)
    assert "502s" in first
    assert '<div class="replies"><span>2 replies</span></div>' in html
    assert html.index("502s") < html.index("2 replies") < html.index("On it")


def test_people_and_the_app_are_told_apart_by_name_avatar_and_badge() -> None:
    human, app = articles(page(person("hello", 0), bot("hi", 5)))

    assert '<span class="name">Maya Chen</span><time class="time">14:09</time>' in human
    assert ">MC</div>" in human
    assert '<span class="name">FaultMaven</span><span class="badge">APP</span>' in app
    assert ">FM</div>" in app


def test_an_edited_message_shows_its_final_text_marked_edited() -> None:
    edited = bot("Root cause: the pool", 5, edited={"user": BOT, "ts": ts(9)})

    _, reply = articles(page(person("go", 0), edited))

    assert 'Root cause: the pool <span class="edited">(edited)</span>' in reply


def test_files_are_chips_with_name_type_size_and_an_escaped_preview() -> None:
    log = {
        "id": "F1",
        "name": "checkout-api.log",
        "title": "checkout-api.log",
        "filetype": "text",
        "pretty_type": "Plain Text",
        "size": 24_310,
        "preview": "line <1>\nline 2",
    }

    _, upload = articles(page(person("go", 0), person("the log", 30, files=[log])))

    assert '<div class="file-name">checkout-api.log</div>' in upload
    assert '<div class="file-meta">Plain Text · 24 KB</div>' in upload
    assert "<pre>line &lt;1&gt;\nline 2</pre>" in upload


def test_an_ephemeral_is_placed_by_time_and_marked_only_visible_to_you() -> None:
    whisper = {"channel": "C1", "user": MAYA, "ts": ts(20), "text": "Only people on the case"}

    html = page(person("go", 0), bot("first", 10), bot("second", 400), ephemerals=[whisper])

    _, first, private, second = articles(html)
    assert "first" in first
    assert "second" in second
    assert 'class="msg ephemeral"' in private
    assert "👁 Only visible to you" in private
    assert '<div class="replies"><span>2 replies</span></div>' in html


def test_messages_from_one_author_within_five_minutes_share_one_name() -> None:
    html = page(person("go", 0), bot("one", 5), bot("two", 65), bot("later", 65 + 301))

    _, one, two, later = articles(html)
    assert "FaultMaven" in one
    assert "FaultMaven" not in two
    assert '<time class="gutter-time">14:10</time>' in two
    assert "FaultMaven" in later


def test_times_are_shown_as_the_view_says() -> None:
    story = datetime(2025, 3, 12, 16, 0, tzinfo=UTC)

    html = page(person("go", 0), shown_at=lambda t: story + timedelta(seconds=float(t) - START))

    assert '<time class="time">16:00</time>' in html


def test_reactions_and_attachments_are_shown() -> None:
    message = bot(
        "",
        5,
        reactions=[{"name": "eyes", "count": 2, "users": [MAYA]}],
        attachments=[{"color": "d00000", "title": "Alert", "text": "*firing*"}],
    )

    _, reply = articles(page(person("go", 0), message))

    assert '<span class="reaction">👀 <b>2</b></span>' in reply
    assert 'style="border-left-color:#d00000"' in reply
    assert "<b>firing</b>" in reply


def test_names_and_text_are_escaped() -> None:
    html = render_page(
        ThreadView(
            messages=[person("&lt;img src=x&gt;", 0)],
            people={MAYA: "<Maya>"},
            bot_user=BOT,
        )
    )

    assert "<img" not in html
    assert "&lt;Maya&gt;" in html


def test_the_page_is_self_contained() -> None:
    html = page(person("see <https://grafana.example/d/1|the dashboard>", 0), bot("ok", 5))

    assert html.startswith("<!doctype html>")
    assert "<style>" in html
    assert not re.search(r"<(script|link|img|iframe)\b", html)
    assert "@import" not in html
    assert "url(" not in html
