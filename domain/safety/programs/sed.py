"""Reading a sed script: the `e` command and flag run shell commands, `w` writes files.

The script is parsed command by command (addresses, `s///flags`, `y///`, text and label commands);
a script the parser cannot follow is not read-only.
"""

from __future__ import annotations

from domain.safety.findings import option_values
from domain.safety.rules import EDITS_IN_PLACE, RUNS_SCRIPT, WRITES_FILE, Rule, opaque, opts

RUNS_SHELL = opaque("runs shell commands from its sed script")
UNREADABLE = opaque("has a sed script the validator cannot read")
_HARMLESS_OUTPUT = frozenset({"/dev/stdout", "/dev/stderr"})
_SIMPLE = frozenset("=dDgGhHnNpPxzF{}")
_TO_LINE_END = frozenset("aic#rRwWe")
_LABELS = frozenset(":btTqQlLv")
_S_FLAGS = frozenset("gpiImMe0123456789")
_VALUE_LETTERS = "efl"


class _Unreadable(Exception):
    """The script is not one the parser can follow."""


def sed_rule(args: list[str], upstream: str | None) -> Rule | None:
    """What a sed command does to files and processes, beyond printing; None: it only prints."""
    in_place = any(a == "--in-place" or a.startswith("--in-place=") for a in args)
    if in_place or _inplace(args):
        return EDITS_IN_PLACE
    if "--sandbox" in args:  # sed then refuses `e`, `r` and `w`
        return None
    if option_values(args, "f", opts("--file"), _VALUE_LETTERS):
        return RUNS_SCRIPT
    scripts = option_values(args, "e", opts("--expression"), _VALUE_LETTERS)
    try:
        found = [rule for script in scripts or _positionals(args)[:1] for rule in _rules(script)]
    except _Unreadable:
        return UNREADABLE
    return found[0] if found else None


def _inplace(args: list[str]) -> bool:
    """`-i`, `-i.bak`, `-ni`: a short option cluster with `i` before any option taking a value."""
    for arg in args:
        if arg.startswith("-") and not arg.startswith("--"):
            cluster = arg[1:]
            stop = min((cluster.find(v) for v in _VALUE_LETTERS if v in cluster), default=-1)
            if "i" in (cluster if stop < 0 else cluster[:stop]):
                return True
    return False


def _positionals(args: list[str]) -> list[str]:
    words, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg.startswith("-") and len(arg) > 1:
            skip = arg in ("-l", "--line-length")
        else:
            words.append(arg)
    return words


def _rules(script: str) -> list[Rule]:
    rules: list[Rule] = []
    pos = 0
    while pos < len(script):
        pos = _skip(script, pos, " \t\n;")
        if pos >= len(script):
            break
        letter, flags, target, pos = _command(script, pos)
        if letter == "e" or "e" in flags:
            rules.append(RUNS_SHELL)
        writes = letter in "wW" or "w" in flags
        if writes and target.strip() not in _HARMLESS_OUTPUT:
            rules.append(WRITES_FILE)
    return rules


def _command(script: str, pos: int) -> tuple[str, str, str, int]:
    """One command after its addresses: its letter, s's flags, its argument, where it ends."""
    pos = _address(script, _skip(script, pos, " \t"))
    if pos < len(script) and script[pos] == ",":
        pos = _address(script, _skip(script, pos + 1, " \t"), second=True)
    pos = _skip(script, _skip(script, _skip(script, pos, " \t"), "!"), " \t")
    if pos >= len(script):
        raise _Unreadable
    letter, pos = script[pos], pos + 1
    if letter in _SIMPLE:
        return letter, "", "", pos
    if letter in _TO_LINE_END:
        end = _line_end(script, pos)
        return letter, "", script[pos:end], end
    if letter in _LABELS:
        end = min(_line_end(script, pos), _find(script, ";", pos))
        return letter, "", script[pos:end], end
    if letter in "sy":
        return _substitution(script, letter, pos)
    raise _Unreadable


def _substitution(script: str, letter: str, pos: int) -> tuple[str, str, str, int]:
    if pos >= len(script) or script[pos] in "\\\n":
        raise _Unreadable
    delimiter = script[pos]
    pos = _delimited(script, _delimited(script, pos + 1, delimiter), delimiter)
    start = pos
    while letter == "s" and pos < len(script) and script[pos] in _S_FLAGS:
        pos += 1
    flags = script[start:pos]
    if letter == "s" and pos < len(script) and script[pos] == "w":
        end = _line_end(script, pos + 1)
        return letter, flags + "w", script[pos + 1 : end], end
    return letter, flags, "", pos


def _address(script: str, pos: int, *, second: bool = False) -> int:
    if pos >= len(script):
        return pos
    char = script[pos]
    if char.isdigit() or (second and char in "+~"):
        pos += 1
        while pos < len(script) and (script[pos].isdigit() or script[pos] == "~"):
            pos += 1
        return pos
    if char == "$":
        return pos + 1
    if char == "/" or (char == "\\" and pos + 1 < len(script)):
        start = pos + 1 if char == "/" else pos + 2
        pos = _delimited(script, start, script[start - 1])
        return _skip(script, pos, "IM")
    return pos


def _delimited(script: str, pos: int, delimiter: str) -> int:
    """The index just after the unescaped delimiter that closes a part starting at pos."""
    while pos < len(script):
        if script[pos] == "\\":
            pos += 2
        elif script[pos] == delimiter:
            return pos + 1
        else:
            pos += 1
    raise _Unreadable


def _line_end(script: str, pos: int) -> int:
    """The end of a text argument: the first newline not escaped by a backslash."""
    while pos < len(script) and script[pos] != "\n":
        pos += 2 if script[pos] == "\\" else 1
    return min(pos, len(script))


def _skip(script: str, pos: int, chars: str) -> int:
    while pos < len(script) and script[pos] in chars:
        pos += 1
    return pos


def _find(script: str, char: str, pos: int) -> int:
    found = script.find(char, pos)
    return len(script) if found < 0 else found
