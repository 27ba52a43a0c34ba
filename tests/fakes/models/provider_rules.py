"""What each provider refuses in a reply schema, as its documentation states it.

The provider fakes check every schema they receive with these rules and answer the way the
provider does when one is broken (an HTTP 400 naming the schema), so a test passes only if the
schema would pass the real provider.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

JsonDict = dict[str, Any]

OPENAI_UNSUPPORTED = frozenset(
    {
        # strings, numbers, objects and arrays: keywords strict mode does not take
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "patternProperties",
        "unevaluatedProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "unevaluatedItems",
        "contains",
        "minContains",
        "maxContains",
        "minItems",
        "maxItems",
        "uniqueItems",
        # composition other than anyOf, conditionals, and defaults
        "allOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "dependentRequired",
        "dependentSchemas",
        "default",
    }
)
OPENAI_MAX_DEPTH = 10
OPENAI_MAX_PROPERTIES = 5000
OPENAI_MAX_ENUM_VALUES = 1000

ANTHROPIC_UNSUPPORTED = frozenset(
    {
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "maxItems",
        "uniqueItems",
        "contains",
        "minContains",
        "maxContains",
        "prefixItems",
        "minProperties",
        "maxProperties",
        "patternProperties",
        "propertyNames",
        "dependentRequired",
        "dependentSchemas",
        "unevaluatedProperties",
        "oneOf",
        "if",
        "then",
        "else",
        "not",
    }
)


def openai_strict_problem(schema: Any) -> str | None:
    """The first rule of OpenAI's strict structured outputs that ``schema`` breaks, worded as
    OpenAI words it after ``In context=…``, or None."""
    if not isinstance(schema, dict) or schema.get("type") != "object" or "anyOf" in schema:
        return "In context=(), schema must be a JSON Schema of 'type: \"object\"', got 'anyOf'."
    properties = 0
    enums = 0
    for context, node, depth in _walk(schema, (), 1):
        if depth > OPENAI_MAX_DEPTH:
            return f"In context={context}, nesting depth exceeds {OPENAI_MAX_DEPTH}."
        for keyword in sorted(set(node) & OPENAI_UNSUPPORTED):
            return f"In context={context}, '{keyword}' is not permitted."
        problem = _openai_object_problem(node, context)
        if problem:
            return problem
        properties += len(node.get("properties", {}))
        enums += len(node.get("enum", []))
    if properties > OPENAI_MAX_PROPERTIES:
        return f"In context=(), the schema has {properties} properties (at most 5000)."
    if enums > OPENAI_MAX_ENUM_VALUES:
        return f"In context=(), the schema has {enums} enum values (at most 1000)."
    return None


def _openai_object_problem(node: JsonDict, context: tuple[str, ...]) -> str | None:
    if node.get("type") != "object" and "properties" not in node:
        return None
    if node.get("additionalProperties") is not False:
        return (
            f"In context={context}, 'additionalProperties' is required to be supplied and to be "
            "false."
        )
    keys = list(node.get("properties", {}))
    missing = [key for key in keys if key not in node.get("required", [])]
    if missing:
        return (
            f"In context={context}, 'required' is required to be supplied and to be an array "
            f"including every key in properties. Missing '{missing[0]}'."
        )
    return None


def anthropic_output_problem(schema: Any) -> str | None:
    """The first limit of Anthropic's structured outputs that ``schema`` breaks, or None."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return "output_format.schema: the top level must be an object"
    for context, node, _ in _walk(schema, (), 1):
        where = ".".join(context) or "(root)"
        for keyword in sorted(set(node) & ANTHROPIC_UNSUPPORTED):
            kind = node.get("type", "schema")
            return f"output_format.schema: For '{kind}' type, property '{keyword}' is not supported"
        if node.get("minItems", 0) > 1:
            return f"output_format.schema: {where}: minItems above 1 is not supported"
        is_object = node.get("type") == "object" or "properties" in node
        if is_object and node.get("additionalProperties", False) is not False:
            return f"output_format.schema: {where}: additionalProperties must be false"
    return None


def _walk(
    node: Any, context: tuple[str, ...], depth: int
) -> Iterator[tuple[tuple[str, ...], JsonDict, int]]:
    """Every schema object in ``node`` with where it is and how deep (objects count a level)."""
    if not isinstance(node, dict):
        return
    yield context, node, depth
    deeper = depth + 1 if node.get("type") == "object" else depth
    for name, child in node.get("properties", {}).items():
        yield from _walk(child, (*context, "properties", name), deeper)
    if "items" in node:
        yield from _walk(node["items"], (*context, "items"), depth)
    for key in ("anyOf", "allOf", "oneOf"):
        for index, child in enumerate(node.get(key, [])):
            yield from _walk(child, (*context, key, str(index)), depth)
    for name, child in node.get("$defs", {}).items():
        yield from _walk(child, ("$defs", name), 1)


def fill_nullable(value: Any, schema: Any) -> Any:
    """``value`` as a strict-mode model writes it: every nullable property it left out is null.

    A model under a strict schema answers every property; scripted replies name only what matters,
    so the fakes complete them the way a real reply would look.
    """
    if not isinstance(schema, dict):
        return value
    if "anyOf" in schema:
        kind = "array" if isinstance(value, list) else "object" if isinstance(value, dict) else None
        matching = [b for b in schema["anyOf"] if isinstance(b, dict) and b.get("type") == kind]
        return fill_nullable(value, matching[0]) if len(matching) == 1 else value
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [fill_nullable(item, schema["items"]) for item in value]
    if not isinstance(value, dict):
        return value
    filled = dict(value)
    for name, child in schema.get("properties", {}).items():
        if name in filled:
            filled[name] = fill_nullable(filled[name], child)
        elif _nullable(child):
            filled[name] = None
    return filled


def _nullable(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    branches = schema.get("anyOf", [schema])
    return any(isinstance(b, dict) and b.get("type") == "null" for b in branches)


# ----------------------------------------------------------------------------- content parts
PART_TYPES = ("text", "image_url", "input_audio", "refusal", "audio", "file")
"""Content part types the chat completions API names in its refusal."""
IMAGE_FORMATS = {"image/png": "png", "image/jpeg": "jpeg", "image/gif": "gif", "image/webp": "webp"}
_MAGIC = {
    "png": (b"\x89PNG\r\n\x1a\n",),
    "jpeg": (b"\xff\xd8\xff",),
    "gif": (b"GIF87a", b"GIF89a"),
    "webp": (b"RIFF",),
}
_DATA_URL = re.compile(r"^data:(?P<mime>[^;,]*)(?P<b64>;base64)?,(?P<data>.*)$", re.DOTALL)


@dataclass(frozen=True)
class PartProblem:
    """Why OpenAI refuses a message's content parts: its words, the parameter and the code."""

    message: str
    param: str
    code: str


def openai_content_problem(messages: Any) -> PartProblem | None:
    """The first content part OpenAI would refuse (text or image parts, images only from users)."""
    for i, message in enumerate(messages if isinstance(messages, list) else []):
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        for j, part in enumerate(content):
            problem = _part_problem(part, f"messages[{i}].content[{j}]", message.get("role"))
            if problem is not None:
                return problem
    return None


def _part_problem(part: Any, where: str, role: Any) -> PartProblem | None:
    kind = part.get("type") if isinstance(part, dict) else None
    if kind not in PART_TYPES:
        allowed = ", ".join(f"'{t}'" for t in PART_TYPES[:-1]) + f", and '{PART_TYPES[-1]}'"
        message = f"Invalid value: {kind!r}. Supported values are: {allowed}."
        return PartProblem(message, f"{where}.type", "invalid_value")
    if kind == "text":
        if not isinstance(part.get("text"), str):
            message = f"Missing required parameter: '{where}.text'."
            return PartProblem(message, f"{where}.text", "missing_required_parameter")
        return None
    if kind != "image_url":
        return PartProblem(f"Invalid content type {kind!r} for this model.", where, "invalid_value")
    if role != "user":
        message = (
            "Image URLs are only allowed for messages with role 'user', but this message with "
            f"role '{role}' contains an image URL."
        )
        return PartProblem(message, where.rsplit(".content", 1)[0], "invalid_value")
    return _image_problem(part.get("image_url"), f"{where}.image_url")


def _image_problem(image: Any, where: str) -> PartProblem | None:
    url = image.get("url") if isinstance(image, dict) else None
    if not isinstance(url, str):
        return PartProblem(
            f"Missing required parameter: '{where}.url'.",
            f"{where}.url",
            "missing_required_parameter",
        )
    detail = image.get("detail", "auto")
    if detail not in ("auto", "low", "high"):
        message = f"Invalid value: {detail!r}. Supported values are: 'auto', 'low', and 'high'."
        return PartProblem(message, f"{where}.detail", "invalid_value")
    if url.startswith(("https://", "http://")):
        return None
    found = _DATA_URL.match(url)
    if found is None or not found.group("b64"):
        message = (
            f"Invalid image URL: '{where}.url'. Expected a valid URL or a base64-encoded data URL "
            "with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU=')."
        )
        return PartProblem(message, f"{where}.url", "invalid_value")
    return _image_bytes_problem(found.group("mime"), found.group("data"), where)


def _image_bytes_problem(mime: str, data: str, where: str) -> PartProblem | None:
    unsupported = PartProblem(
        "You uploaded an unsupported image. Please make sure your image has of one the following "
        "formats: ['png', 'jpeg', 'gif', 'webp'].",
        f"{where}.url",
        "invalid_image_format",
    )
    fmt = IMAGE_FORMATS.get(mime)
    if fmt is None:
        return unsupported
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return PartProblem("Invalid base64 image_url.", f"{where}.url", "invalid_value")
    if not raw.startswith(_MAGIC[fmt]) or (fmt == "webp" and raw[8:12] != b"WEBP"):
        return PartProblem(
            "You uploaded an unsupported image. Please make sure your image is valid.",
            f"{where}.url",
            "invalid_image_format",
        )
    return None
