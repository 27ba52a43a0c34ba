"""The picture: the system's Chromium, the whole page at the asked width; none, said plainly."""

from __future__ import annotations

import asyncio
import struct
from pathlib import Path

import pytest

from tests.demo.run import take_picture
from tests.demo.screenshot import find_chromium, screenshot

CHROMIUM = find_chromium()


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_without_chromium_there_is_no_picture_and_the_way_to_get_one_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    page = tmp_path / "thread.html"
    page.write_text("<p>hi</p>")

    assert take_picture(page, tmp_path / "thread.png", width=400) is None
    assert "apt-get install chromium" in capsys.readouterr().out
    assert not (tmp_path / "thread.png").exists()


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")
def test_the_picture_is_the_whole_page_at_the_asked_width(tmp_path: Path) -> None:
    assert CHROMIUM is not None
    page = tmp_path / "tall.html"
    page.write_text('<body style="margin:0"><div style="height:2345px;background:#4a154b"></div>')

    data = asyncio.run(screenshot(page.as_uri(), browser=CHROMIUM, width=320))

    assert png_size(data) == (320, 2345)
