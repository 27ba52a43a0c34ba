"""A tool's reply (`CallToolResult`) as plain text: what the tool said, in the order it said it."""

from __future__ import annotations

import json

from mcp.types import (
    AudioContent,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)


def reply_text(result: CallToolResult) -> str:
    """The text of every content block; the structured content only when there are no blocks."""
    if not result.content and result.structured_content is not None:
        return json.dumps(result.structured_content, indent=1, ensure_ascii=False, default=str)
    parts = [_block_text(block) for block in result.content]
    return "\n".join(part for part in parts if part)


def _block_text(block: object) -> str:
    if isinstance(block, TextContent):
        return block.text
    if isinstance(block, EmbeddedResource):
        resource = block.resource
        if isinstance(resource, TextResourceContents):
            return resource.text
        return f"[binary resource {resource.uri} left out]"
    if isinstance(block, ResourceLink):
        return f"[resource link: {block.uri}]"
    if isinstance(block, ImageContent | AudioContent):
        return f"[{block.mime_type} content left out]"
    return ""
