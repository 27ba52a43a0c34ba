"""Commands in fenced code (```` ``` ```` or ``~~~``): the units the validator is asked about.

The opening line is a language tag only when its first word is a language name; otherwise it is
code. A block without a closing fence runs to the end of the text. A block is read in command
units: a line, lines joined by a trailing backslash, a command with its here-document, a SQL
statement over several lines. A unit is withheld as a whole when any command in it is not
read-only, so the block keeps its shape around the note.

Shell blocks (``bash``, ``sh``…) are commands line by line. SQL and Redis blocks are read as the
statements they are. Other blocks (untagged, ``console``, ``yaml``, ``text``, logs…) mix commands
with output, so only what reads like a command is checked (``domain.safety.text.prose``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from domain.safety.text.prose import MASK, Candidate, prose_candidates
from domain.safety.text.words import SQL_START, as_redis, as_sql, at_command_position

_SHELL = "bash sh shell zsh ksh fish ash dash csh tcsh powershell pwsh ps1 bat cmd"
_SQL = "sql postgresql postgres pgsql plpgsql psql mysql mariadb sqlite sqlite3 tsql plsql"
_OTHER = (
    "console shell-session shellsession terminal session redis promql logql kql graphql "
    "yaml yml json jsonc json5 ndjson toml ini conf cfg properties env dotenv xml html css csv tsv "
    "text txt plaintext plain log logs output out diff patch python py python3 ruby rb perl go "
    "golang rust rs java kotlin scala c cpp c++ h csharp cs js javascript ts typescript jsx tsx "
    "php lua r swift hcl terraform tf dockerfile nginx apache apacheconf systemd jinja j2 groovy "
    "markdown md makefile proto protobuf regex http"
)
SHELL_LANGUAGES = frozenset(_SHELL.split())
SQL_LANGUAGES = frozenset(_SQL.split())
FENCE_LANGUAGES = SHELL_LANGUAGES | SQL_LANGUAGES | frozenset(_OTHER.split())
"""Words an opening fence line may carry as its language (compared in lower case)."""

_OPENER = re.compile(r"`{3,}|^[ \t]*~{3,}", re.M)
_PROMPT = re.compile(r"[ \t]*(?:[\w.-]+@[\w.-]+\S*?[#$%]|\[[^\]\n]+\][#$%]|[$%❯]|#+)[ \t]+")


@dataclass(frozen=True)
class Fence:
    """One fenced block: where it is, where its code is, and its language if it names one."""

    start: int
    end: int
    code_start: int
    code_end: int
    language: str | None


HEREDOC = re.compile(r"(?<!<)<<-?(?!<)[ \t]*(['\"]?)([A-Za-z_]\w*)\1")


@dataclass
class _Unit:
    start: int
    end: int
    command: str
    body: list[str] = field(default_factory=list)


def fences(text: str) -> list[Fence]:
    """The fenced blocks in text, in order; code fenced on one line is inline code, not a block."""
    found: list[Fence] = []
    position = 0
    while (opener := _OPENER.search(text, position)) is not None:
        marker = opener.group().strip()
        line_end = _line_end(text, opener.end())
        first = text[opener.end() : line_end]
        if marker in first:
            position = opener.end() + first.index(marker) + len(marker)
            continue
        close = text.find(marker, line_end)
        code_end = len(text) if close < 0 else close
        language, code_start = _opening(text, opener.end(), line_end)
        end = len(text) if close < 0 else close + len(marker)
        found.append(Fence(opener.start(), end, min(code_start, code_end), code_end, language))
        position = end
    return found


def fence_candidates(text: str, fence: Fence) -> list[Candidate]:
    """The command units of a block that contain a command, each with what to classify."""
    if fence.language in SQL_LANGUAGES:
        code = text[fence.code_start : fence.code_end].rstrip()
        if not code.strip():
            return []
        shell = [c for found in prose_candidates(code) for c in found.commands]
        commands = (as_sql(code), *shell)
        return [Candidate(fence.code_start, fence.code_start + len(code), commands)]
    found = []
    for unit in _units(text, fence.code_start, fence.code_end):
        commands = _unit_commands(unit, fence.language)
        if commands:
            found.append(Candidate(unit.start, unit.end, commands))
    return found


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end < 0 else end


def _opening(text: str, after: int, line_end: int) -> tuple[str | None, int]:
    """The language named on the opening line, and where the code starts."""
    first = text[after:line_end]
    words = first.split()
    if not words:
        return None, line_end + 1
    if words[0].lower() not in FENCE_LANGUAGES:
        return None, after + len(first) - len(first.lstrip())
    rest = first.lstrip()[len(words[0]) :]
    if not rest.strip():
        return words[0].lower(), line_end + 1
    return words[0].lower(), line_end - len(rest.lstrip())


def _lines(text: str, start: int, end: int) -> list[tuple[int, int]]:
    spans, position = [], start
    while position < end:
        stop = min(_line_end(text, position), end)
        spans.append((position, stop))
        position = stop + 1
    return spans


def _units(text: str, start: int, end: int) -> Iterator[_Unit]:
    lines = _lines(text, start, end)
    index = 0
    while index < len(lines):
        line_start, line_stop = lines[index]
        line = text[line_start:line_stop]
        if not line.strip() or MASK in line:
            index += 1
            continue
        unit, index = _unit(text, lines, index)
        yield unit
        index += 1


def _unit(text: str, lines: list[tuple[int, int]], first: int) -> tuple[_Unit, int]:
    """The unit starting at line first, and the index of its last line."""
    read = _Reader(text, lines, first)
    read.continuations()
    for heredoc in HEREDOC.finditer(read.unit.command):
        read.heredoc(heredoc.group(2))
    if not read.unit.body and SQL_START.match(_without_prompt(read.unit.command)):
        read.statement()
    leading = read.line(first)
    read.unit.start = lines[first][0] + len(leading) - len(leading.lstrip())
    read.unit.end = lines[read.last][0] + len(read.line(read.last).rstrip())
    return read.unit, read.last


class _Reader:
    """Reads one unit's lines from a block: continuations, here-documents, SQL statements."""

    def __init__(self, text: str, lines: list[tuple[int, int]], first: int) -> None:
        self.text, self.lines, self.last = text, lines, first
        self.unit = _Unit(0, 0, "")

    def line(self, index: int) -> str:
        start, end = self.lines[index]
        return self.text[start:end]

    def more(self) -> bool:
        return self.last + 1 < len(self.lines)

    def continuations(self) -> None:
        """Lines joined by a trailing backslash, as the shell reads them."""
        parts = [self.line(self.last).rstrip()]
        while parts[-1].endswith("\\") and self.more():
            self.last += 1
            parts.append(self.line(self.last).rstrip())
        self.unit.command = " ".join(p.removesuffix("\\") for p in parts).strip()

    def heredoc(self, word: str) -> None:
        """The body of a here-document, up to its terminator (or the end of the block)."""
        while self.more():
            self.last += 1
            if self.line(self.last).strip() == word:
                return
            self.unit.body.append(self.line(self.last))

    def statement(self) -> None:
        """A SQL statement continues to its semicolon (or a blank line, or the end)."""
        while not self.line(self.last).rstrip().endswith(";") and self.more():
            if not self.line(self.last + 1).strip():
                return
            self.last += 1
            self.unit.command += " " + self.line(self.last).strip()


def _unit_commands(unit: _Unit, language: str | None) -> tuple[str, ...]:
    """What to classify for a unit; empty when nothing in it reads like a command."""
    found = [c for candidate in prose_candidates(unit.command) for c in candidate.commands]
    command = _without_prompt(unit.command)
    if language == "redis":
        found.insert(0, as_redis(command))
    elif SQL_START.match(command):
        found.insert(0, as_sql(command))
    elif language in SHELL_LANGUAGES and command and not _is_comment(unit.command):
        found.insert(0, command)
    # A here-document is what its command reads: `redis-cli <<EOF` + `FLUSHALL` runs both.
    feeders = [HEREDOC.sub("", c).strip() for c in found if HEREDOC.search(c)]
    body = [line.strip() for line in unit.body if line.strip()]
    found += [f"{feeder} {line}" for feeder in feeders for line in body]
    found += [c for line in body for found_in in prose_candidates(line) for c in found_in.commands]
    return tuple(dict.fromkeys(found))


def _without_prompt(command: str) -> str:
    prompt = _PROMPT.match(command)
    return command[prompt.end() :].strip() if prompt else command.strip()


def _is_comment(command: str) -> bool:
    """A `#` line whose words do not read like a command (a root prompt's would), or `#!`."""
    if command.startswith("#!"):
        return True
    return command.startswith("#") and not at_command_position(command.lstrip("#").split())
