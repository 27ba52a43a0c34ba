"""The vocabulary of the command-safety tables: verdicts, rule shapes and cross-cutting checks.

The per-area tables (``safety_files``, ``safety_network``, ``safety_hosts``, ``safety_platforms``,
``safety_databases``) are built from these and gathered in ``domain.safety_commands``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum


class CommandSafety(StrEnum):
    """How risky a suggested shell command is; only read-only commands are shown to run."""

    READ_ONLY = "read_only"
    MUTATING = "mutating"
    DANGEROUS = "dangerous"


R, M, D = CommandSafety.READ_ONLY, CommandSafety.MUTATING, CommandSafety.DANGEROUS


@dataclass(frozen=True)
class Rule:
    """A verdict from the tables: how risky, and why, in words an SRE understands."""

    safety: CommandSafety
    reason: str
    review: bool = False
    """Read-only only because nothing says otherwise: a person should still look first."""


READS = Rule(R, "reads without changing anything")
UNKNOWN = Rule(R, "not recognised as state-changing; review before running", review=True)
RUNS_SCRIPT = Rule(R, "runs a script the validator cannot inspect; review before running", True)
RUNS_INLINE = Rule(R, "runs inline code the validator cannot inspect; review before running", True)
OPENS_SHELL = Rule(R, "starts an interactive shell or interpreter; review before running", True)
CHANGES_CODE = Rule(M, "runs inline code that changes files or processes")
EDITS_IN_PLACE = Rule(M, "edits files in place")
WRITES_FILE = Rule(M, "writes to a file")
WRITES_DEVICE = Rule(D, "writes directly to a device")
RUNS_OUTPUT = Rule(D, "runs the output of another command as code")
TOO_DEEP = Rule(D, "nests commands too deeply to check")
PIPE_DOWNLOAD = Rule(D, "pipes a download into a shell")
PIPE_TEXT = Rule(D, "pipes text into a shell to run it")

Pattern = tuple[re.Pattern[str], Rule]


def pattern(regex: str, rule: Rule) -> Pattern:
    """A compiled regex and the verdict it gives when it matches."""
    return re.compile(regex), rule


def same(rule: Rule | ToolRule, names: str) -> dict[str, Rule | ToolRule]:
    """Table entries giving every space-separated name the same rule."""
    return dict.fromkeys(names.split(), rule)


def opts(names: str) -> frozenset[str]:
    """A set of option names from one space-separated string."""
    return frozenset(names.split())


@dataclass(frozen=True)
class ToolRule:
    """A command whose risk depends on its arguments (first matching pattern) or subcommand."""

    patterns: tuple[Pattern, ...] = ()
    subcommands: Mapping[str, Rule | ToolRule] = field(default_factory=dict)
    default: Rule = UNKNOWN
    """Verdict when no pattern matches and the subcommand is unknown (or there is no table)."""
    bare: Rule = READS
    """Verdict when a command with subcommands is given none (it prints help or a listing)."""
    verb_index: int = 0
    """Which positional word is the subcommand (`service NAME restart` → 1)."""
    value_options: frozenset[str] = frozenset()
    """Options whose next word is their value, skipped when looking for the subcommand."""


def flags(*patterns: Pattern, default: Rule = READS) -> ToolRule:
    """A tool judged by its arguments only: the first matching pattern, else the default."""
    return ToolRule(patterns=patterns, default=default)


def objects(rule: Rule, reads: str, changes: str) -> ToolRule:
    """A subcommand table: the reads subcommands read, the changes ones get rule."""
    return ToolRule(subcommands={**same(READS, reads), **same(rule, changes)})


@dataclass(frozen=True)
class Wrapper:
    """A prefix that runs another command: sudo, env, timeout, xargs, watch, ssh…"""

    value_options: frozenset[str] = frozenset()
    skip: int = 0
    """Positional words before the wrapped command (timeout's duration, ssh's host)."""
    text: bool = False
    """The rest is one command line parsed again (ssh and watch join their arguments)."""
    privileged: bool = False
    keeps_stdin: bool = True


@dataclass(frozen=True)
class Interpreter:
    """A language runtime: which short options carry inline code, a module, an in-place edit."""

    code_flags: str
    module_flag: bool = False
    inplace_flag: str = ""


# Where a redirection writes: a harmless device, the kernel's panic button, a disk or port, a file.
WRITE_TARGETS: tuple[Pattern, ...] = (
    pattern(r"^/dev/(?:null|zero|stdout|stderr|tty|fd/\d+)$", READS),
    pattern(
        r"^/proc/sysrq-trigger$", Rule(D, "triggers a kernel action such as an instant reboot")
    ),
    pattern(r"^/dev/", WRITES_DEVICE),
    pattern(r"", WRITES_FILE),
)
DOWNLOADER = re.compile(r"\b(?:curl|wget|fetch|aria2c|http|https)\b")
INLINE_CHANGES = re.compile(
    r"\b(?:os\.(?:system|remove|unlink|rmdir|removedirs|kill|chmod|chown|rename|replace)"
    r"|shutil\.(?:rmtree|move)|subprocess|popen|system|exec|unlink|rmtree|File\.delete"
    r"|child_process|(?:unlink|rm|rmdir|writeFile|appendFile|rename|truncate|chmod)Sync)\b"
    r"|open\([^)]{0,200},\s*['\"][wax+]"
)
SEARCHERS = frozenset({"grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack"})
VARIABLE_COMMAND = Rule(D, "runs a command whose name is only known when it runs")
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "csh", "tcsh"})
INTERPRETERS: Mapping[str, Interpreter] = {
    "python": Interpreter("c", module_flag=True),
    "perl": Interpreter("eE", inplace_flag="i"),
    "ruby": Interpreter("e", inplace_flag="i"),
    "node": Interpreter("ep"),
    "php": Interpreter("r"),
}

# Checked on the whole command line: shapes that only make sense as one piece.
TEXT_PATTERNS: tuple[Pattern, ...] = (
    pattern(
        r":\s*\(\s*\)\s*\{|\b(\w{1,40})\s*\(\s*\)\s*\{[^}]{0,200}\b\1\s*\|\s*\1\b",
        Rule(D, "is a fork bomb"),
    ),
)
# Checked on every simple command, raw and unquoted, whatever the program.
FILE_PATTERNS: tuple[Pattern, ...] = (
    pattern(r"/etc/+(?:\./+)*g?shadow\b", Rule(D, "reads password hashes")),
    pattern(r"/etc/+(?:\./+)*passwd\b", Rule(D, "reads the system account list")),
    pattern(
        r"(?i)\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?!\.pub)|(?:^|[\s/~'\"=:])\.ssh(?:/|\b)"
        r"|(?<![\w.-])[\w.-]{0,80}key[\w.-]{0,80}\.pem\b|(?:^|[\s/=:'\"])[\w-]+\.key\b|/etc/ssl/private\b",
        Rule(D, "reads private keys"),
    ),
    pattern(
        r"(?:\.aws/credentials|\.netrc|\.pgpass|\.git-credentials|\.docker/config\.json)\b",
        Rule(D, "reads stored credentials"),
    ),
)

NETWORK = Rule(M, "changes network configuration")
