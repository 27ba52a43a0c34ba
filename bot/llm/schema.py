"""Reply schemas in the subset of JSON Schema that every provider accepts, and replies read back.

Providers refuse different parts of JSON Schema: OpenAI's strict mode refuses length limits,
``allOf`` and open objects; Anthropic's structured output refuses numeric and length limits;
Gemini and vLLM's guided decoding refuse others again. So the schema the model sees keeps only
what all of them take: every object closed (``additionalProperties: false``) with every property
required, a field with a default nullable instead of optional, references inlined, ``anyOf`` for
unions, and no length, range, pattern or format keywords. Each dropped constraint is said in the
field's description instead, and the pydantic model still enforces it when the reply is parsed
(a reply that breaks it gets the gateway's repair attempt).
"""

from __future__ import annotations

import copy
import functools
import json
import re
from typing import Any

from pydantic import BaseModel

JsonDict = dict[str, Any]

KEPT = frozenset({"type", "properties", "items", "enum", "anyOf", "description"})
"""Keywords passed on as they are (``required`` and ``additionalProperties`` are always set)."""
SAID = {
    "minLength": "at least {} characters",
    "maxLength": "at most {} characters",
    "minimum": "at least {}",
    "maximum": "at most {}",
    "exclusiveMinimum": "more than {}",
    "exclusiveMaximum": "less than {}",
    "minItems": "at least {} items",
    "maxItems": "at most {} items",
    "pattern": "matching the regular expression {}",
    "format": "format {}",
}
FORMATS = {
    "date-time": "an ISO 8601 date-time such as 2026-11-21T14:05:00Z",
    "date": "an ISO 8601 date",
}
"""Constraints no provider may see as keywords, said in the description instead."""
IGNORED = frozenset({"title", "default", "examples", "discriminator", "$defs", "required"})
"""Keywords dropped without a word: the model does not need them (defaults come back as nulls)."""
_OBJECT_KEYWORDS = frozenset({"properties", "additionalProperties", "required"})
_JSON_START = re.compile(r"{")
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)


class SchemaNotPortableError(ValueError):
    """A reply model uses something no strict provider accepts (an open object, a bare ``any``)."""


@functools.cache
def _wire_text(model: type[BaseModel]) -> str:
    schema = model.model_json_schema()
    wired = _node(schema, schema.get("$defs", {}), path=model.__name__)
    if wired.get("type") != "object":
        raise SchemaNotPortableError(f"{model.__name__}: the top level must be an object")
    return json.dumps(wired, ensure_ascii=False, separators=(",", ":"))


def wire_schema(model: type[BaseModel]) -> JsonDict:
    """The schema sent for ``model``: a fresh copy each call (providers may edit what they get)."""
    result: JsonDict = json.loads(_wire_text(model))
    return result


def wire_schema_text(model: type[BaseModel]) -> str:
    """The same schema as compact JSON, for a prompt that has to carry it."""
    return _wire_text(model)


def _node(node: JsonDict, defs: JsonDict, *, path: str) -> JsonDict:
    node = _resolved(node, defs, path)
    unknown = set(node) - KEPT - set(SAID) - IGNORED - _OBJECT_KEYWORDS - {"const"}
    if unknown:
        raise SchemaNotPortableError(f"{path}: {sorted(unknown)} cannot be sent to every provider")
    out = _shape(node, defs, path)
    if not out:
        raise SchemaNotPortableError(f"{path}: a value of any type is not portable")
    description = _description(node)
    if description:
        out["description"] = description
    return out


def _shape(node: JsonDict, defs: JsonDict, path: str) -> JsonDict:
    """The node's type, enum, union, properties and items, wired (no description yet)."""
    out: JsonDict = {}
    if "anyOf" in node:
        out["anyOf"] = _branches(node["anyOf"], defs, path)
    elif "const" in node:
        out["enum"] = [node["const"]]
    if "type" in node:
        out["type"] = node["type"]
    if "enum" in node:
        out["enum"] = list(node["enum"])
    if node.get("type") == "object" or "properties" in node:
        out.update(_object(node, defs, path))
    if "items" in node:
        out["items"] = _node(node["items"], defs, path=f"{path}[]")
    elif node.get("type") == "array":
        raise SchemaNotPortableError(f"{path}: an array needs a typed 'items'")
    return out


def _resolved(node: JsonDict, defs: JsonDict, path: str) -> JsonDict:
    """The node with ``$ref`` and one-item ``allOf`` merged in, and ``oneOf`` read as ``anyOf``."""
    node = dict(node)
    if "$ref" in node:
        name = node.pop("$ref").rsplit("/", 1)[-1]
        if name not in defs:
            raise SchemaNotPortableError(f"{path}: unknown reference {name}")
        node = {**copy.deepcopy(defs[name]), **node}
    if "allOf" in node:
        parts = node.pop("allOf")
        if len(parts) != 1:
            raise SchemaNotPortableError(f"{path}: 'allOf' with several parts")
        node = {**_resolved(parts[0], defs, path), **node}
    if "oneOf" in node:
        node["anyOf"] = node.pop("oneOf")
    return node


def _branches(branches: list[JsonDict], defs: JsonDict, path: str) -> list[JsonDict]:
    flat: list[JsonDict] = []
    for branch in branches:
        wired = _node(branch, defs, path=path)
        flat.extend(wired["anyOf"] if set(wired) <= {"anyOf", "description"} else [wired])
    return flat


def _object(node: JsonDict, defs: JsonDict, path: str) -> JsonDict:
    properties: JsonDict = node.get("properties", {})
    extra = node.get("additionalProperties", False)
    if extra is not False or not properties:
        raise SchemaNotPortableError(
            f"{path}: an open object (free-form keys) cannot be sent to every provider"
        )
    required = set(node.get("required", []))
    wired = {}
    for name, child in properties.items():
        schema = _node(child, defs, path=f"{path}.{name}")
        wired[name] = schema if name in required else _nullable(schema)
    return {"properties": wired, "required": list(wired), "additionalProperties": False}


def _nullable(schema: JsonDict) -> JsonDict:
    """``schema`` or null: a field the model may leave out, when every field is required."""
    branches = schema.get("anyOf", [schema])
    if any(branch.get("type") == "null" for branch in branches):
        return schema
    description = schema.get("description")
    inner = {key: value for key, value in schema.items() if key != "description"}
    result: JsonDict = {"anyOf": [*inner.get("anyOf", [inner]), {"type": "null"}]}
    if description:
        result["description"] = f"{description} (null if not applicable)"
    return result


def _description(node: JsonDict) -> str:
    said = [_said(key, node[key]) for key in SAID if key in node]
    text = str(node.get("description", "")).strip()
    if said:
        text = f"{text} ({'; '.join(said)})" if text else "; ".join(said).capitalize()
    return text


def _said(keyword: str, value: Any) -> str:
    if keyword == "format" and value in FORMATS:
        return FORMATS[value]
    return SAID[keyword].format(value)


# ---------------------------------------------------------------- reading a reply back


def parse_reply(content: str) -> Any:
    """The JSON value in a reply: bare, fenced, or after a line of prose (ValueError if none)."""
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        start = _JSON_START.search(text)
        if start is None:
            raise ValueError("the reply holds no JSON") from None
        value, _ = json.JSONDecoder().raw_decode(text, start.start())
        return value


def without_null_defaults(value: Any, model: type[BaseModel]) -> Any:
    """``value`` with the nulls a strict schema forces into fields that have a default removed.

    In the wire schema a field with a default is required but nullable; a null there means "use the
    default", unless the model's own type allows null.
    """
    schema = model.model_json_schema()
    return _clean(value, schema, schema.get("$defs", {}))


def _clean(value: Any, node: JsonDict, defs: JsonDict) -> Any:
    node = _resolved(node, defs, "")
    if isinstance(value, list) and "items" in node:
        return [_clean(item, node["items"], defs) for item in value]
    if not isinstance(value, dict):
        return value
    if "anyOf" in node:
        objects = [b for b in node["anyOf"] if _resolved(b, defs, "").get("type") == "object"]
        return _clean(value, objects[0], defs) if len(objects) == 1 else value
    properties: JsonDict = node.get("properties", {})
    required = set(node.get("required", []))
    cleaned = {}
    for key, item in value.items():
        child = properties.get(key)
        if child is None:
            cleaned[key] = item
        elif item is None and key not in required and not _allows_null(child, defs):
            continue
        else:
            cleaned[key] = _clean(item, child, defs)
    return cleaned


def _allows_null(node: JsonDict, defs: JsonDict) -> bool:
    node = _resolved(node, defs, "")
    branches = node.get("anyOf", [node])
    return any(_resolved(b, defs, "").get("type") == "null" for b in branches)
