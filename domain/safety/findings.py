"""What the validator concludes about a command, and the small helpers every check shares.

A ``Finding`` is one verdict and the part of the command line it is about; ``worst_of`` keeps the
riskiest. ``evaluate`` walks a tool's table (``domain.safety.rules.ToolRule``) for its arguments.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TypeVar

from domain.safety import rules
from domain.safety.guess import guess
from domain.safety.rules import Pattern, Rule, ToolRule, Verdict, rank

MAX_DEPTH = 12

T = TypeVar("T")


@dataclass(frozen=True)
class Finding:
    """One verdict and the part of the command line it is about."""

    rule: Rule
    segment: str
    privileged: bool = False


@dataclass(frozen=True)
class Ctx:
    """Where a check is: the command it is about, what feeds it, how deeply nested."""

    segment: str
    upstream: str | None = None
    """Text piped into this command, if any (None when it reads the terminal)."""
    depth: int = 0

    def deeper(self) -> Ctx:
        return replace(self, depth=self.depth + 1)


def evaluate(
    rule: Rule | ToolRule, args: list[str], name: str, upstream: str | None = None
) -> tuple[Verdict, ...]:
    """Walk a tool's table: its check, first matching pattern, else subcommand, else its default.

    A word after an option the table does not know may be that option's value or the subcommand
    (`kubectl -v 6 delete pod x`): every known subcommand among such words is followed, and the
    worst of them counts; a subcommand the table does not know is never read-only.
    """
    return _walk(rule, args, name, frozenset(), upstream)


def _walk(
    rule: Rule | ToolRule, args: list[str], path: str, options: frozenset[str], up: str | None
) -> tuple[Verdict, ...]:
    if isinstance(rule, Rule):
        return (rule,)
    checked = rule.check(args, up) if rule.check else None
    if checked is not None:
        return (checked,)
    joined = " " + " ".join(args)
    hit = next((r for pattern, r in rule.patterns if pattern.search(joined)), None)
    if hit is not None or not rule.subcommands:
        return (hit or rule.default or _unknown(path, args),)
    options = rule.value_options or options
    candidates = verb_candidates(args, options, rule.verb_index)
    if not candidates:
        return (rule.bare,)
    known = [i for i in candidates if args[i].lower() in rule.subcommands]
    if not known:
        return (rule.default or _unknown(path, [args[i] for i in candidates]),)
    return tuple(
        verdict
        for i in known
        for verdict in _walk(
            rule.subcommands[args[i].lower()],
            args[i + 1 :],
            f"{path} {args[i].lower()}",
            options,
            up,
        )
    )


def _unknown(path: str, args: list[str]) -> Rule:
    """A subcommand no table knows, judged by its verbs and flags (`fooctl app rollback`)."""
    return guess(path, args) or rules.unknown_verb(path)


def verb_candidates(args: list[str], value_options: frozenset[str], wanted: int = 0) -> list[int]:
    """Indexes that may hold the wanted-th positional word, skipping options and their values.

    A word right after an option not in value_options may be its value: it is a candidate, and
    so is the next positional word; the first word that cannot be a value ends the list.
    """
    found: list[int] = []
    seen, skip_next, maybe_value = 0, False, False
    for index, arg in enumerate(args):
        if skip_next:
            skip_next = maybe_value = False
        elif arg.startswith("-") and len(arg) > 1:
            skip_next = arg in value_options
            maybe_value = not skip_next and "=" not in arg and arg != "--"
        elif seen < wanted:
            seen, maybe_value = seen + 1, False
        else:
            found.append(index)
            if not maybe_value:
                return found
            maybe_value = False
    return found


def lookup(table: Mapping[str, T], name: str) -> T | None:
    """Find a command by name, then without a suffix or version (mkfs.ext4, python3.11, pip3)."""
    stem = name.partition(".")[0]
    for key in (name, stem, stem.rstrip("0123456789")):
        if key in table:
            return table[key]
    return None


def command_name(word: str) -> str:
    """The program name of a command word: no directory, lower case (`/usr/bin/RM` → `rm`)."""
    return word.rstrip("/").rsplit("/", 1)[-1].lower() or word


def option_index(args: list[str], letters: str) -> int | None:
    """Index of the value of the first short-option cluster containing one of letters."""
    for index, arg in enumerate(args[:-1]):
        if arg.startswith("-") and not arg.startswith("--") and set(arg[1:]) & set(letters):
            return index + 1
    return None


def has_flag(args: list[str], letters: str) -> bool:
    """Whether a short-option cluster contains one of letters."""
    return any(
        arg.startswith("-") and not arg.startswith("--") and set(arg[1:]) & set(letters)
        for arg in args
    )


def option_value(args: list[str], letters: str) -> str | None:
    """The value of the first short-option cluster containing one of letters."""
    index = option_index(args, letters)
    return None if index is None else args[index]


def option_values(
    args: list[str], shorts: str, longs: frozenset[str] = frozenset(), value_letters: str = ""
) -> list[str]:
    """Every value of some options: `-c x`, `-Atc x`, `-cx`, `--command x`, `--command=x`.

    value_letters are the tool's other one-letter options that take a value: a cluster stops at
    the first of them (`-hlocalhost` is a host, not `-c` with `alhost`).
    """
    values: list[str] = []
    for index, arg in enumerate(args):
        following = args[index + 1 : index + 2]
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            if name in longs:
                values += [value] if eq else following
        elif arg.startswith("-"):
            values += _short_value(arg[1:], shorts, value_letters, following)
    return values


def _short_value(cluster: str, shorts: str, value_letters: str, following: list[str]) -> list[str]:
    for position, letter in enumerate(cluster):
        if letter in shorts:
            return [cluster[position + 1 :]] if cluster[position + 1 :] else following
        if letter in value_letters:
            return []
    return []


_ECHOED = re.compile(r"(?:^|[;&|(]\s*)(echo|printf)((?:\s+[^\s|;&<>()$`]+)*)\s*\|\s*$")


def echoed_lines(upstream: str | None) -> list[str] | None:
    """The lines a plain `echo …|` or `printf '…'|` feeds a command, if that is what feeds it."""
    m = _ECHOED.search(upstream or "")
    if m is None:
        return None
    try:
        words = shlex.split(m.group(2))
    except ValueError:
        return None
    while words and re.fullmatch(r"-[neE]+", words[0]) and m.group(1) == "echo":
        words = words[1:]
    text = " ".join(words).replace("\\r", "").replace("\\n", "\n")
    return [line.strip() for line in text.split("\n") if line.strip()]


def positionals(args: list[str]) -> list[str]:
    """The arguments that are not options."""
    return [arg for arg in args if not arg.startswith("-")]


def matched(patterns: tuple[Pattern, ...], text: str, segment: str) -> Finding | None:
    """The first pattern matching text, as a finding about segment."""
    rule = next((r for pattern, r in patterns if pattern.search(text)), None)
    return None if rule is None else Finding(rule, segment)


def worst_of(findings: Iterable[Finding | None], segment: str) -> Finding:
    """The riskiest finding (the earliest among equals); privileged if any part is."""
    present = [f for f in findings if f is not None]
    if not present:
        return Finding(rules.UNKNOWN, segment)
    worst = max(present, key=lambda finding: rank(finding.rule))
    return replace(worst, privileged=any(f.privileged for f in present))
