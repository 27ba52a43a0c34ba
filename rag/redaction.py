"""Secret redaction applied to uploaded text before anything is stored, embedded or sent out."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

MARK = "[REDACTED]"

_SENSITIVE_NAMES = (
    r"password|passwd|pwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|secret[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token|credentials?"
)
# A key such as DB_PASSWORD, db.password or "api-key" (at most two name parts around the word),
# followed by = or : and a value; keys inside longer identifiers (TokenSecretManager) don't count.
_KEY_VALUE = re.compile(
    r"(?i)(?<![\w.-])(?P<key>(?:[a-z0-9]+[_.-]){0,2}(?:"
    + _SENSITIVE_NAMES
    + r")(?:[_.-][a-z0-9]+)?)"
    r"(?P<sep>[\"']?[ \t]*(?:=|:(?![ \t]*[A-Za-z]{1,7}(?:[\s,;{(]|$))(?!//))[ \t]*)"
    r"(?!\[REDACTED)(?P<value>\"[^\"\n]+\"|'[^'\n]+'|[^\s,;&\"'}{)(\]]+)"
)


@dataclass(frozen=True)
class _Rule:
    """One kind of secret: cheap lower-case needles gate the regex, so clean text costs little."""

    name: str
    needles: tuple[str, ...]
    pattern: re.Pattern[str]
    replacement: str | Callable[[re.Match[str]], str]


def _mask_value(match: re.Match[str]) -> str:
    value = match["value"]
    quote = value[0] if value[0] in "\"'" else ""
    return f"{match['key']}{match['sep']}{quote}{MARK}{quote}"


_RULES: tuple[_Rule, ...] = (
    _Rule(
        "aws-access-key",
        ("akia", "asia", "agpa", "aida", "aroa", "aipa", "anpa", "anva"),
        re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}\b"),
        MARK,
    ),
    _Rule(
        "github-token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})\b"),
        MARK,
    ),
    _Rule(
        "slack-token",
        ("xox", "xapp-", "hooks.slack.com"),
        re.compile(
            r"\bxox[abposre]-[A-Za-z0-9-]{10,}|\bxapp-\d-[A-Za-z0-9-]{10,}"
            r"|https://hooks\.slack\.com/services/[A-Za-z0-9/]+"
        ),
        MARK,
    ),
    _Rule(
        "bearer",
        ("bearer", "authorization"),
        re.compile(
            r"(?i)(?P<scheme>\bbearer[ \t]+|\bauthorization:[ \t]*basic[ \t]+)"
            r"(?=[A-Za-z0-9._~+/-]*\d)[A-Za-z0-9._~+/-]{16,}=*"
        ),
        r"\g<scheme>" + MARK,
    ),
    _Rule(
        "jwt",
        ("eyj",),
        re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        MARK,
    ),
    _Rule(
        "url-password",
        ("://",),
        re.compile(r"(?P<user>\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]+:)[^\s@/]+(?P<at>@)"),
        r"\g<user>" + MARK + r"\g<at>",
    ),
    _Rule(
        "key-value",
        (
            "pass",
            "pwd",
            "secret",
            "token",
            "key",
            "credential",
        ),
        _KEY_VALUE,
        _mask_value,
    ),
)

_PRIVATE_KEY = re.compile(
    r"-----BEGIN (?P<kind>[A-Z0-9 ]*)PRIVATE KEY-----.*?-----END (?P=kind)PRIVATE KEY-----",
    re.DOTALL,
)


@dataclass(frozen=True)
class Redacted:
    """Text with secrets replaced by a marker, and how many secrets were replaced."""

    text: str
    count: int


def redact(text: str) -> Redacted:
    """Replace secrets in `text`; the number of lines never changes, so line numbers still hold."""
    count = 0
    if "PRIVATE KEY-----" in text:
        text, found = _PRIVATE_KEY.subn(_blank_key_block, text)
        count += found
    lowered = text.lower()
    for rule in _RULES:
        spans = _lines_with(lowered, rule.needles)
        if spans:
            text, found = _apply(rule, text, spans)
            if found:
                count += found
                lowered = text.lower()
    return Redacted(text, count)


def _lines_with(lowered: str, needles: tuple[str, ...]) -> list[tuple[int, int]]:
    # str.find is a fast literal scan; the full patterns then run on the few lines it points at.
    starts: set[int] = set()
    for needle in needles:
        position = lowered.find(needle)
        while position >= 0:
            start = lowered.rfind("\n", 0, position) + 1
            end = lowered.find("\n", position)
            end = len(lowered) if end < 0 else end
            starts.add(start)
            position = lowered.find(needle, end)
    return [(start, _line_end(lowered, start)) for start in sorted(starts)]


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end < 0 else end


def _apply(rule: _Rule, text: str, spans: list[tuple[int, int]]) -> tuple[str, int]:
    parts: list[str] = []
    previous = 0
    total = 0
    for start, end in spans:
        line, found = rule.pattern.subn(rule.replacement, text[start:end])
        if found:
            parts.append(text[previous:start])
            parts.append(line)
            previous = end
            total += found
    if not total:
        return text, 0
    parts.append(text[previous:])
    return "".join(parts), total


def _blank_key_block(match: re.Match[str]) -> str:
    # Keep one line per original line so every later line keeps its number.
    lines = match.group(0).count("\n") + 1
    return "\n".join(["[REDACTED PRIVATE KEY]"] * lines)
