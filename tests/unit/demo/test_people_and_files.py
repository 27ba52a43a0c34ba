"""Avatars and file chips: initials on a steady colour; sizes and types as Slack writes them."""

from __future__ import annotations

import pytest

from tests.demo.files import file_chip, human_size
from tests.demo.people import avatar_html, colour, initials


@pytest.mark.parametrize(
    ("name", "expected"),
    [("Maya Chen", "MC"), ("FaultMaven", "FM"), ("priya", "PR"), ("Ana María López", "AM")],
)
def test_initials_come_from_the_first_two_words_or_capitals(name: str, expected: str) -> None:
    assert initials(name) == expected


def test_a_person_keeps_their_colour_and_the_app_has_its_own() -> None:
    assert colour("W222") == colour("W222")
    assert "background:#4a154b" in avatar_html("U0BOT", "FaultMaven", bot=True)
    assert f"background:{colour('W222')}" in avatar_html("W222", "Maya Chen")


@pytest.mark.parametrize(
    ("size", "expected"),
    [(812, "812 B"), (24_310, "24 KB"), (2_516_582, "2.4 MB"), (None, "")],
)
def test_sizes_are_written_as_slack_writes_them(size: int | None, expected: str) -> None:
    assert human_size(size) == expected


def test_a_file_without_a_preview_is_just_its_chip() -> None:
    chip = file_chip({"name": "runbook.md", "filetype": "markdown", "pretty_type": "Markdown"})

    assert chip == (
        '<div class="file"><div class="file-icon ft-markdown">MD</div><div class="file-info">'
        '<div class="file-name">runbook.md</div><div class="file-meta">Markdown</div></div></div>'
    )


def test_a_long_preview_shows_its_first_lines_and_says_there_is_more() -> None:
    preview = "\n".join(f"line {n}" for n in range(1, 20))

    chip = file_chip({"name": "a.log", "filetype": "text", "preview": preview})

    assert "line 6</pre>" in chip
    assert "line 7" not in chip
    assert '<div class="file-more">…</div>' in chip
