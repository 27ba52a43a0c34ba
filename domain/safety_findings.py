"""What the validator concludes about a command, and the small helpers every check shares.

A ``Finding`` is one verdict and the part of the command line it is about; ``worst_of`` keeps the
riskiest. ``evaluate`` walks a tool's table (``domain.safety_rules.ToolRule``) for its arguments.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TypeVar

from domain import safety_rules as rules
from domain.safety_rules import CommandSafety, Pattern, Rule, ToolRule

MAX_DEPTH = 12
_SEVERITY = {CommandSafety.READ_ONLY: 0, CommandSafety.MUTATING: 2, CommandSafety.DANGEROUS: 3}

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


def evaluate(rule: Rule | ToolRule, args: list[str]) -> Rule:
    """Walk a tool's table: first matching pattern, else subcommand, else its default."""
    options: frozenset[str] = frozenset()
    while isinstance(rule, ToolRule):
        joined = " " + " ".join(args)
        hit = next((r for pattern, r in rule.patterns if pattern.search(joined)), None)
        if hit is not None:
            return hit
        if not rule.subcommands:
            return rule.default
        options = rule.value_options or options
        index = _positional(args, options, rule.verb_index)
        if index is None:
            return rule.bare
        found = rule.subcommands.get(args[index].lower())
        if found is None:
            return rule.default
        rule, args = found, args[index + 1 :]
    return rule


def _positional(args: list[str], value_options: frozenset[str], wanted: int) -> int | None:
    """Index of the wanted-th positional word, skipping options and their values."""
    skip_next, seen = False, 0
    for index, arg in enumerate(args):
        if skip_next or arg.startswith("-"):
            skip_next = not skip_next and arg in value_options
            continue
        if seen == wanted:
            return index
        seen += 1
    return None


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


def positionals(args: list[str]) -> list[str]:
    """The arguments that are not options."""
    return [arg for arg in args if not arg.startswith("-")]


def matched(patterns: tuple[Pattern, ...], text: str, segment: str) -> Finding | None:
    """The first pattern matching text, as a finding about segment."""
    rule = next((r for pattern, r in patterns if pattern.search(text)), None)
    return None if rule is None else Finding(rule, segment)


def _rank(finding: Finding) -> tuple[int, bool]:
    return _SEVERITY[finding.rule.safety], finding.rule.review


def worst_of(findings: Iterable[Finding | None], segment: str) -> Finding:
    """The riskiest finding (the earliest among equals); privileged if any part is."""
    present = [f for f in findings if f is not None]
    if not present:
        return Finding(rules.UNKNOWN, segment)
    worst = max(present, key=_rank)
    return replace(worst, privileged=any(f.privileged for f in present))
