"""Where commands hide in prose and inline code: the spans the validator is asked about.

A span starts at a command position (a line's start after any bullet or prompt, after a label such
as "Fix:", after "run") when the words there read like a command line, or anywhere in a sentence
when a command name is followed by what only a command has (``domain.safety.text.words``). It
ends at the end of the clause. Text already replaced (and anything else masked with ``MASK``) is
skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from domain.safety.text.words import (
    at_command_position,
    in_sentence,
    query_command,
    statement_or_command,
    written_queries,
)

MASK = "\x00"
"""Stands in for text that must not be scanned again (code already handled, withheld notes)."""


@dataclass(frozen=True)
class Candidate:
    """A span of text that may be a command, and the command lines to classify for it."""

    start: int
    end: int
    commands: tuple[str, ...]
    """The span is unsafe if any of these is not read-only."""
    mention: bool = False
    """A lone program name inside a sentence (`wget`): withheld only if it does harm alone."""


_LOGICAL_LINE = re.compile(r"(?:[^\n]*\\\n)*[^\n]*")
_LEAD = re.compile(r"[ \t]*(?:(?:[-*•]|\d+[.)])[ \t]+)?")
_PROMPT = re.compile(
    r"(?:(?P<sure>[\w.-]+@[\w.-]+\S*?[#$%]|\[[^\]\n]+\][#$%]|[$%❯]|PS [^>\n]*>)"
    r"|(?P<maybe>#{1,6}|>+|\+{1,2}))[ \t]+"
)
_SURE_START = re.compile(r"^(?:[a-z(./~]|[A-Z_]\w*=)")
_LABEL = re.compile(r"(?<=[\w*_)]):[*_]*[ \t]+")
_RUN = re.compile(r"(?i)\b(?:run|execute|try|type|enter)\b[*_:]*[ \t]+")
_CLAUSE_END = re.compile(r"(?<=\S)[.!?](?=\s|$)|\s[·—–]\s|\x00|(?<!\\)\n")
_COMMA = re.compile(r",\s")
_TOKEN = re.compile(r"[^\s\x00]+")
_NAME_START = re.compile(r"[a-z/]")
_QUOTES = "\"'`"
_ENV_BEFORE = re.compile(r"(?:[A-Za-z_]\w*=\S*[ \t]+)+$")
_INLINE = re.compile(r"(?<!`)(`+)([^`\n]+)\1(?!`)")


def inline_code(text: str) -> Iterator[re.Match[str]]:
    """Code on one line between runs of backticks: `x`, ``x``, ```x```."""
    return _INLINE.finditer(text)


def code_candidate(text: str, start: int, end: int) -> Candidate | None:
    """One piece of code as a whole: a candidate if any command is found in it."""
    found = prose_candidates(text[start:end])
    commands = tuple(c for candidate in found for c in candidate.commands)
    return Candidate(start, end, commands) if commands else None


def prose_candidates(text: str) -> list[Candidate]:
    """Every candidate span in text (which holds no fenced code), in order of their start."""
    found: list[Candidate] = []
    for line in _LOGICAL_LINE.finditer(text):
        if line.group():
            found += _line_candidates(text, line.start(), line.end())
    return sorted(found, key=lambda c: (c.start, -c.end))


def _line_candidates(text: str, start: int, end: int) -> list[Candidate]:
    line = text[start:end]
    found = [*_at_positions(line), *_in_sentences(line), *_queries(line)]
    return [Candidate(s + start, e + start, commands) for s, e, commands in found]


Span = tuple[int, int, tuple[str, ...]]


def command_starts(line: str) -> list[tuple[int, bool, bool]]:
    """Where a command may start in a line: (offset, after a sure prompt, clause ends at commas).

    The line's start after any bullet or prompt, after a label such as "Fix:", after "run".
    """
    body = _LEAD.match(line)
    assert body is not None  # the pattern matches the empty string
    position, sure = body.end(), False
    prompt = _PROMPT.match(line, position)
    if prompt is not None:
        position, sure = prompt.end(), prompt.group("sure") is not None
    starts = [(position, sure, False)]
    starts += [(m.end(), False, True) for m in _LABEL.finditer(line)]
    starts += [(m.end(), False, True) for m in _RUN.finditer(line)]
    return starts


def _at_positions(line: str) -> Iterator[Span]:
    for start, sure, commas in command_starts(line):
        end = _clause_end(line, start, commas=commas)
        # Masked code after the words is still something: `at <code>` is not `at` alone.
        words = line[start:end].split() + ([MASK] if line[end : end + 1] == MASK else [])
        if (sure and _SURE_START.match(line[start:end])) or at_command_position(words):
            for span_start, span_end, commands in _span(line, start, end):
                yield span_start, span_end, tuple(statement_or_command(c) for c in commands)


def _in_sentences(line: str) -> Iterator[Span]:
    for token in _TOKEN.finditer(line):
        start = token.start() + len(token.group()) - len(token.group().lstrip(_QUOTES + "("))
        if not _NAME_START.match(line, start):
            continue  # a command name is written in lower case, or as a path
        end = _clause_end(line, start, commas=True)
        if "(" in line[token.start() : start]:  # "(exit 137) and it restarts": the aside ends
            end = min(end, _closing_bracket(line, start))
        words = line[start:end].split()
        if words and in_sentence(words):
            before = _ENV_BEFORE.search(line, 0, start)
            yield from _span(line, before.start() if before else start, end)


def _queries(line: str) -> Iterator[Span]:
    for query in written_queries(line):
        clause_end = _clause_end(line, query.start(), commas=True)
        for start, end, _ in _span(line, query.start(), clause_end):
            yield start, end, (query_command(line[start:end]),)


def _closing_bracket(line: str, start: int) -> int:
    """Where the bracket opened just before start closes (the end of the line if it does not)."""
    depth = 1
    for index in range(start, len(line)):
        depth += {"(": 1, ")": -1}.get(line[index], 0)
        if depth == 0:
            return index
    return len(line)


def _clause_end(line: str, start: int, *, commas: bool) -> int:
    ends = [m.start() for m in (_CLAUSE_END.search(line, start),) if m is not None]
    if commas:
        ends += [m.start() for m in (_COMMA.search(line, start),) if m is not None]
    return min(ends, default=len(line))


def _span(line: str, start: int, end: int) -> Iterator[Span]:
    """The span trimmed of spaces, of a remark in brackets, and of a closing bracket or quote it
    does not open."""
    text = line[start : remark_start(line, start, end)].rstrip()
    while text and (
        (text[-1] == ")" and text.count(")") > text.count("("))
        or (text[-1] in _QUOTES and text.count(text[-1]) % 2 == 1)
    ):
        text = text[:-1].rstrip()
    command = text.replace("\\\n", " ").replace(MASK, "").strip()
    if command:
        # A here-string is what the command reads: `redis-cli <<< FLUSHALL` runs FLUSHALL.
        here = command.replace("<<<", " ") if "<<<" in command else None
        yield start, start + len(text), (command, *([here] if here else []))


_RESERVED = frozenset({"if", "then", "else", "elif", "do", "while", "until", "time", "!", "{"})


def remark_start(line: str, start: int, end: int) -> int:
    """Where a remark in brackets after an argument begins ("… endpoint (api.example.com)").

    A shell reads `(` only where a command may start; after an argument it is a syntax error,
    so in text it opens an aside, not a subshell. Quoted text is skipped. Returns end if none.
    """
    quote, word, previous = "", "", ""
    for index in range(start, end):
        char = line[index]
        if quote or char in _QUOTES[:2]:
            quote = "" if char == quote else (quote or char)
        elif char.isspace():
            previous, word = word or previous, ""
            continue
        elif char == "(" and not word and _argument_before(previous):
            return index
        word += char
    return end


def _argument_before(word: str) -> bool:
    """Whether a word ends an argument: not empty, an operator or a reserved word."""
    return bool(word) and word not in _RESERVED and word[-1] not in ";&|<>(){}"
