"""A reply's content blocks as text, and the configuration file's failures in one sentence."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.types import (
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from bot.mcp import load_tools_config
from bot.mcp.replies import reply_text
from domain.tools import ToolConfigError


def test_text_blocks_are_joined_in_order() -> None:
    reply = CallToolResult(content=[TextContent(text="first"), TextContent(text="second")])

    assert reply_text(reply) == "first\nsecond"


def test_structured_content_is_read_when_there_are_no_blocks() -> None:
    reply = CallToolResult(content=[], structured_content={"resultType": "vector", "result": []})

    assert reply_text(reply) == '{\n "resultType": "vector",\n "result": []\n}'


def test_resources_and_media_are_named_not_inlined() -> None:
    reply = CallToolResult(
        content=[
            EmbeddedResource(
                type="resource",
                resource=TextResourceContents(uri="file:///notes.txt", text="disk 91% full"),
            ),
            EmbeddedResource(
                type="resource",
                resource=BlobResourceContents(uri="file:///core.dump", blob="AAAA"),
            ),
            ResourceLink(type="resource_link", uri="https://grafana/d/abc", name="dashboard"),
            ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png"),
        ]
    )

    assert reply_text(reply).splitlines() == [
        "disk 91% full",
        "[binary resource file:///core.dump left out]",
        "[resource link: https://grafana/d/abc]",
        "[image/png content left out]",
    ]


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b'{"mcpServers": ', "is not valid JSON (line 1: Expecting value)"),
        (b"\xff\xfe\x00", "cannot be read (UnicodeDecodeError)"),
        (b'{"servers": {}}', ': expected a JSON object with an "mcpServers" object in it'),
        (b" " * (1024 * 1024 + 1), "is larger than 1 MB"),
    ],
)
def test_a_file_that_cannot_be_used_is_one_sentence_naming_it(
    tmp_path: Path, content: bytes, reason: str
) -> None:
    path = tmp_path / "mcp.json"
    path.write_bytes(content)

    with pytest.raises(ToolConfigError) as raised:
        load_tools_config(path, {})

    assert str(raised.value).startswith(str(path))
    assert reason in str(raised.value)


def test_a_missing_file_names_the_setting(tmp_path: Path) -> None:
    with pytest.raises(ToolConfigError, match=r"does not exist \(FM_MCP_CONFIG\)"):
        load_tools_config(tmp_path / "absent.json", {})
