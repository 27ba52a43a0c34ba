"""Secrets over several lines: private key blocks, and names and values on different lines."""

from __future__ import annotations

import re
from collections.abc import Callable

from domain.redaction.parts import KEY_MARK, MARK, QUOTED_VALUE, no_secret, secret_key, value_group


def line_end(text: str, position: int) -> int:
    end = text.find("\n", position)
    return len(text) if end < 0 else end


_KEY_BEGIN = re.compile(r"-----BEGIN (?P<kind>[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?)-----")
_KEY_BODY = re.compile(r"[ \t]*(?:[A-Za-z0-9+/=]{8,}(?:\.\.\.|…)?|[A-Za-z-]+: \S.*|)[ \t]*")
"""A line of a key's body: base64 (perhaps cut short with …), a header (Proc-Type: …) or blank."""
_PUTTY = re.compile(r"PuTTY-User-Key-File-\d+:[^\n]*\n(?:[^\n]*\n)*?Private-Lines:[ \t]*(\d+)")


def private_keys(text: str) -> tuple[str, int]:
    """Blank every private key block, line for line, in one pass over the text."""
    if "PRIVATE KEY" not in text and "PuTTY-User-Key-File" not in text:
        return text, 0
    pieces: list[str] = []
    position = count = 0
    for begin in _KEY_BEGIN.finditer(text):
        if begin.start() < position:
            continue
        # Only up to the next BEGIN: a key cut short must not swallow the log up to another key.
        following = text.find("-----BEGIN ", begin.end())
        limit = len(text) if following < 0 else following
        end_line = f"-----END {begin['kind']}-----"
        end = text.find(end_line, begin.end(), limit)
        stop = end + len(end_line) if end >= 0 else _key_body_end(text, begin.end(), limit)
        pieces += (text[position : begin.start()], _blank(text[begin.start() : stop]))
        position, count = stop, count + 1
    for putty in _PUTTY.finditer(text, position):
        stop = putty.end()
        for _ in range(int(putty.group(1)) + 1):
            stop = line_end(text, stop + 1) if stop < len(text) else stop
        pieces += (text[position : putty.start()], _blank(text[putty.start() : stop]))
        position, count = stop, count + 1
    pieces.append(text[position:])
    return "".join(pieces), count


def _key_body_end(text: str, start: int, limit: int) -> int:
    """Where a key without its END line stops: the end of its last base64-looking line."""
    stop = line_end(text, start)
    while stop < limit:
        following = min(line_end(text, stop + 1), limit)
        if not _KEY_BODY.fullmatch(text, stop + 1, following):
            break
        stop = following
    return stop


def _blank(block: str) -> str:
    """One marker line per line of the block, so every later line keeps its number."""
    return "\n".join([KEY_MARK] * (block.count("\n") + 1))


# ---------------------------------------------------------------- across lines

ACROSS_LINES_NEEDLES = ("name:", '"name"', "kind: secret", ": |", ": >", ":|", ":>")
_ENV_NAME = re.compile(r"[ \t]*(?:-[ \t]+)?name:[ \t]*[\"']?(?P<name>[A-Za-z0-9_.-]+)[\"']?[ \t]*")
_ENV_VALUE = re.compile(rf"(?P<head>[ \t]*value:[ \t]*)(?P<value>{QUOTED_VALUE}|\S.*?)[ \t]*")
_JSON_ENV = re.compile(
    r"\"name\"[ \t]*:[ \t]*\"(?P<name>[^\"]+)\"[ \t]*,[ \t]*\"value\"[ \t]*:[ \t]*"
    r"(?P<value>\"(?:[^\"\\]|\\.)*\")"
)
_SECRET_KIND = re.compile(r"kind:[ \t]*[\"']?Secret[\"']?[ \t]*")
_DATA = re.compile(r"(?P<indent>[ \t]*)(?:data|stringData):[ \t]*")
_ENTRY = re.compile(r"(?P<head>(?P<indent>[ \t]*)[^:\s#][^:]*:[ \t]*)(?P<value>\S.*)")
_BLOCK_SCALAR = re.compile(
    r"(?P<indent>[ \t]*)(?:-[ \t]+)?[\"']?(?P<key>[A-Za-z0-9_.-]+)[\"']?:[ \t]*[|>][+-]?\d*[ \t]*"
)


def across_lines(lines: list[str]) -> int:
    """Secrets whose name and value are on different lines; ``lines`` is changed in place."""
    count = 0
    secret_document = False
    for index, line in enumerate(lines):
        if line.startswith("---"):
            secret_document = False
        elif _SECRET_KIND.fullmatch(line):
            secret_document = True
        if "name" in line:
            count += _env_entry(lines, index)
        if secret_document and (data := _DATA.fullmatch(line)):
            count += _mask_below(lines, index, len(data["indent"]), _mask_entry)
        scalar = _BLOCK_SCALAR.fullmatch(line) if "|" in line or ">" in line else None
        if scalar and secret_key(scalar["key"]):
            count += _mask_below(lines, index, len(scalar["indent"]), _mask_line)
    return count


def _env_entry(lines: list[str], index: int) -> int:
    line = lines[index]
    if '"value"' in line:
        found = [0]

        def mask(match: re.Match[str]) -> str:
            if not secret_key(match["name"]) or no_secret(match["name"], match["value"]):
                return match.group(0)
            found[0] += 1
            return value_group(match)

        lines[index] = _JSON_ENV.sub(mask, line)
        return found[0]
    name = _ENV_NAME.fullmatch(line)
    if name is None or index + 1 >= len(lines) or not secret_key(name["name"]):
        return 0
    value = _ENV_VALUE.fullmatch(lines[index + 1])
    if value is None or no_secret(name["name"], value["value"]):
        return 0
    lines[index + 1] = value_group(value)
    return 1


def _mask_below(
    lines: list[str], index: int, indent: int, mask: Callable[[str], str | None]
) -> int:
    """Mask the lines indented deeper than ``indent`` that follow line ``index``."""
    count = 0
    for below in range(index + 1, len(lines)):
        line = lines[below]
        if not line.strip():
            continue
        if len(line) - len(line.lstrip(" \t")) <= indent:
            break
        masked = mask(line)
        if masked is not None and masked != line:
            lines[below] = masked
            count += 1
    return count


def _mask_entry(line: str) -> str | None:
    """``  password: c2VjcmV0`` under a Secret's data: the value masked."""
    entry = _ENTRY.fullmatch(line)
    if entry is None or entry["value"].startswith("[REDACTED"):
        return None
    return value_group(entry)


def _mask_line(line: str) -> str | None:
    """A line of a block scalar: all of it but its indentation."""
    if line.strip().startswith("[REDACTED"):
        return None
    return line[: len(line) - len(line.lstrip(" \t"))] + MARK
