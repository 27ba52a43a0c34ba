"""The part of JSON Schema that tools' input schemas use, checked without a library.

Types, `properties`/`required`/`additionalProperties`, `items`, `enum`/`const`, `anyOf`/`oneOf`/
`allOf`, local `$ref`s, and the length, size and range limits. Keywords that only describe
(`title`, `description`, `default`, `format`, `examples`) are not checks. Each problem is one short
phrase with the path of the argument.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

MAX_DEPTH = 32
_TYPES: dict[str, Callable[[object], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer())
    ),
}


def schema_problems(value: object, schema: Mapping[str, Any]) -> list[str]:
    """What in `value` breaks `schema`; empty when it fits."""
    return _check(value, schema, schema, "arguments", 0)


def _check(
    value: object, schema: object, root: Mapping[str, Any], path: str, depth: int
) -> list[str]:
    if schema is True or schema == {}:
        return []
    if schema is False:
        return [f"{path} is not allowed"]
    if not isinstance(schema, Mapping) or depth > MAX_DEPTH:
        return [f"{path}: the tool's schema cannot be read"]
    if "$ref" in schema:
        return _check(value, _resolve(str(schema["$ref"]), root), root, path, depth + 1)
    problems = _type_problems(value, schema, path)
    if problems:
        return problems
    for check in (_choice_problems, _combined_problems, _object_problems, _array_problems):
        problems += check(value, schema, root, path, depth)
    return problems + _limit_problems(value, schema, path)


def _resolve(ref: str, root: Mapping[str, Any]) -> object:
    if not ref.startswith("#/"):
        return None  # a remote schema is never fetched: the argument cannot be checked
    node: object = root
    for part in ref[2:].split("/"):
        node = (
            node.get(part.replace("~1", "/").replace("~0", "~"))
            if isinstance(node, Mapping)
            else None
        )
    return node


def _type_problems(value: object, schema: Mapping[str, Any], path: str) -> list[str]:
    declared = schema.get("type")
    if declared is None:
        return []
    names = declared if isinstance(declared, list) else [declared]
    if any(_TYPES.get(str(name), _never)(value) for name in names):
        return []
    return [f"{path} must be {' or '.join(str(name) for name in names)}"]


def _never(value: object) -> bool:
    return False


def _choice_problems(
    value: object, schema: Mapping[str, Any], root: Mapping[str, Any], path: str, depth: int
) -> list[str]:
    if "const" in schema and value != schema["const"]:
        return [f"{path} must be {schema['const']!r}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{path} must be one of {', '.join(repr(v) for v in schema['enum'])}"]
    return []


def _combined_problems(
    value: object, schema: Mapping[str, Any], root: Mapping[str, Any], path: str, depth: int
) -> list[str]:
    problems: list[str] = []
    for part in schema.get("allOf", []):
        problems += _check(value, part, root, path, depth + 1)
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if options and not any(not _check(value, o, root, path, depth + 1) for o in options):
            problems.append(f"{path} matches none of the forms the tool accepts")
    return problems


def _object_problems(
    value: object, schema: Mapping[str, Any], root: Mapping[str, Any], path: str, depth: int
) -> list[str]:
    if not isinstance(value, dict):
        return []
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    problems = [
        f"{path}.{name} is required" for name in schema.get("required", []) if name not in value
    ]
    for name, item in value.items():
        where = f"{path}.{name}"
        if name in properties:
            problems += _check(item, properties[name], root, where, depth + 1)
        elif extra is False:
            problems.append(f"{where} is not an argument of this tool")
        else:
            problems += _check(item, extra, root, where, depth + 1)
    return problems


def _array_problems(
    value: object, schema: Mapping[str, Any], root: Mapping[str, Any], path: str, depth: int
) -> list[str]:
    if not isinstance(value, list) or "items" not in schema:
        return []
    problems: list[str] = []
    for index, item in enumerate(value):
        problems += _check(item, schema["items"], root, f"{path}[{index}]", depth + 1)
    return problems


_LIMITS: dict[str, tuple[Callable[[object], float | None], Callable[[float, float], bool], str]] = {
    "minLength": (
        lambda v: len(v) if isinstance(v, str) else None,
        lambda n, x: n >= x,
        "at least {} characters",
    ),
    "maxLength": (
        lambda v: len(v) if isinstance(v, str) else None,
        lambda n, x: n <= x,
        "at most {} characters",
    ),
    "minItems": (
        lambda v: len(v) if isinstance(v, list) else None,
        lambda n, x: n >= x,
        "at least {} items",
    ),
    "maxItems": (
        lambda v: len(v) if isinstance(v, list) else None,
        lambda n, x: n <= x,
        "at most {} items",
    ),
    "minimum": (lambda v: _number(v), lambda n, x: n >= x, "at least {}"),
    "maximum": (lambda v: _number(v), lambda n, x: n <= x, "at most {}"),
    "exclusiveMinimum": (lambda v: _number(v), lambda n, x: n > x, "more than {}"),
    "exclusiveMaximum": (lambda v: _number(v), lambda n, x: n < x, "less than {}"),
}


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _limit_problems(value: object, schema: Mapping[str, Any], path: str) -> list[str]:
    problems = []
    for keyword, (measure, holds, words) in _LIMITS.items():
        limit, size = schema.get(keyword), measure(value)
        if isinstance(limit, int | float) and size is not None and not holds(size, limit):
            problems.append(f"{path} must be {words.format(limit)}")
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and isinstance(value, str) and not _matches(pattern, value):
        problems.append(f"{path} must match {pattern}")
    return problems


def _matches(pattern: str, value: str) -> bool:
    try:
        return re.search(pattern, value) is not None
    except re.error:
        return False  # a pattern Python cannot read: the argument is not sent (fail closed)
