"""The vocabulary of the command-safety tables: verdicts, rule shapes and cross-cutting checks.

The validator fails closed: a command, subcommand or piece of code it does not know is never
read-only by the tables; at most it looks read-only by its verbs (``domain.safety.guess``), which
is shown labelled "not checked" and never run unattended (``CommandVerdict.is_safe``). The
per-area tables (``domain.safety.programs``: files, network, interfaces, http, cloud, hosts,
kubernetes, platforms, infra, sql, databases, delivery, messaging) are built from these and
gathered in ``domain.safety.commands``; ``programs.secrets`` knows which files hold secrets and
``programs.sed`` reads sed scripts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum


class CommandSafety(StrEnum):
    """How risky a command is: it reads, it changes state, or it destroys or exposes something.

    Evidence is collected with read-only commands only; a solution's state-changing commands are
    shown as actions for people to run; dangerous ones are never shown.
    """

    READ_ONLY = "read_only"
    MUTATING = "mutating"
    DANGEROUS = "dangerous"


R, M, D = CommandSafety.READ_ONLY, CommandSafety.MUTATING, CommandSafety.DANGEROUS
SEVERITY = {R: 0, M: 2, D: 3}


@dataclass(frozen=True)
class Rule:
    """A verdict from the tables: how risky, and why, in words an SRE understands.

    A reason reads after "it": "(command withheld: it deletes files recursively)".
    """

    safety: CommandSafety
    reason: str
    opaque: bool = False
    """The validator cannot see what it will do (an unknown program or subcommand, a script,
    inline code, a prompt, commands read from input): never shown as an action to take."""
    guessed: bool = False
    """Judged from its verbs and flags, not from a table (``domain.safety.guess``): shown
    labelled "not checked", never as a checked command."""


def rank(rule: Rule) -> tuple[int, bool, bool]:
    """How bad a verdict is: by safety, what cannot be inspected, then what is only guessed."""
    return SEVERITY[rule.safety], rule.opaque, rule.guessed


def opaque(reason: str) -> Rule:
    """A verdict for what the validator cannot inspect: never read-only, never an action."""
    return Rule(M, reason, opaque=True)


@dataclass(frozen=True)
class Runs:
    """A tool that runs another command line (`ip netns exec NS cmd`): that command decides too."""

    words: tuple[str, ...] = ()
    text: str = ""
    """A command line to read again (`psql -c '\\! ls'`), when there are no words."""
    also: Rule | None = None
    """The tool's own verdict, kept if it is worse than the command's."""
    privileged: bool = False


Verdict = Rule | Runs


def worst(rules: Iterable[Rule]) -> Rule:
    """The riskiest of some rules (the first among equals); READS if there are none."""
    return max(rules, key=rank, default=READS)


READS = Rule(R, "reads without changing anything")
UNKNOWN = opaque("is not a command known to be read-only")
RUNS_SCRIPT = opaque("runs a script the validator cannot inspect")
RUNS_INLINE = opaque("runs inline code the validator cannot inspect")
OPENS_SHELL = opaque("starts an interactive shell or prompt, where anything can be typed")
PRIVILEGED_SHELL = Rule(D, "opens a shell with root or another user's rights, where anything runs")
REMOTE_SHELL = opaque("opens an interactive shell on another host")
REMOTE_INPUT = opaque("runs its input as commands on another host, which cannot be checked")
REVEALS_SECRETS = Rule(D, "reveals secret values, printing them into the channel")
CHANGES_CODE = opaque("runs inline code that changes files or processes")
EDITS_IN_PLACE = Rule(M, "edits files in place")
WRITES_FILE = Rule(M, "writes to a file")
WRITES_DEVICE = Rule(D, "writes directly to a device")
RUNS_OUTPUT = Rule(D, "runs the output of another command as code")
TOO_DEEP = Rule(D, "nests commands too deeply to check")
PIPE_DOWNLOAD = Rule(D, "pipes a download into a shell")
PIPE_TEXT = Rule(D, "pipes text into a shell to run it")
VARIABLE_COMMAND = Rule(D, "runs a command whose name is only known when it runs")
HISTORY = Rule(D, "re-runs a command from the shell history")
HOOK_VARIABLE = opaque("sets a variable that makes programs run another command")
NETWORK = Rule(M, "changes network configuration")
STOPS = Rule(M, "stops processes")
SERVICE = Rule(M, "starts, stops or restarts a service")
KUBECONFIG = Rule(M, "changes the local kubeconfig")
DISK = Rule(M, "changes disk partitions or mounts")


def unknown_verb(path: str) -> Rule:
    """The verdict for a subcommand the tables do not know (`kubectl frobnicate`)."""
    return opaque(f"is not a known read-only {path} subcommand")


Pattern = tuple[re.Pattern[str], Rule]
Check = Callable[[list[str], str | None], Verdict | None]
"""A tool's own reading of its arguments and of what is piped into it; None: use the table."""


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
    """A command whose risk depends on its arguments: a check, patterns, then its subcommand."""

    patterns: tuple[Pattern, ...] = ()
    subcommands: Mapping[str, Rule | ToolRule] = field(default_factory=dict)
    default: Rule | None = None
    """Verdict when no pattern matches and the subcommand is unknown: None says it is unknown."""
    bare: Rule = READS
    """Verdict when a command with subcommands is given none (it prints help or a listing)."""
    verb_index: int = 0
    """Which positional word is the subcommand (`service NAME restart` → 1)."""
    value_options: frozenset[str] = frozenset()
    """Options whose next word is their value, skipped when looking for the subcommand."""
    check: Check | None = None


def flags(*patterns: Pattern, default: Rule = READS) -> ToolRule:
    """A tool judged by its arguments only: the first matching pattern, else the default."""
    return ToolRule(patterns=patterns, default=default)


def objects(rule: Rule, reads: str, changes: str) -> ToolRule:
    """A subcommand table: the reads subcommands read, the changes ones get rule."""
    return ToolRule(subcommands={**same(READS, reads), **same(rule, changes)})


def checked(check: Check, default: Rule = READS) -> ToolRule:
    """A tool judged by its own check function; the default when the check finds nothing."""
    return ToolRule(check=check, default=default)


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
    patterns: tuple[Pattern, ...] = ()
    """Its own risky options (`sudo -e`, `strace -p`); a read-only one runs nothing."""
    alone: ToolRule | Rule | None = None
    """Verdict when it wraps nothing, from its options (`sudo -i`: a root shell); None: nothing."""


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
# Commands that only read text they are given: SQL words in their patterns are not SQL being run.
TEXT_FILTERS = frozenset(
    {"grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "awk", "gawk", "mawk", "sed"}
)
SHELLS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "mksh", "yash", "fish", "ash", "csh", "tcsh", "rbash"}
)
INTERPRETERS: Mapping[str, Interpreter] = {
    "python": Interpreter("c", module_flag=True),
    "pypy": Interpreter("c", module_flag=True),
    "ipython": Interpreter("c", module_flag=True),
    "perl": Interpreter("eE", inplace_flag="i"),
    "ruby": Interpreter("e", inplace_flag="i"),
    "irb": Interpreter(""),
    "node": Interpreter("ep"),
    "nodejs": Interpreter("ep"),
    "bun": Interpreter("e"),
    "deno": Interpreter(""),
    "php": Interpreter("r"),
    **dict.fromkeys(("lua", "luajit", "julia", "rscript", "elixir", "groovy"), Interpreter("e")),
    **dict.fromkeys(("tclsh", "wish", "jshell"), Interpreter("")),
    **dict.fromkeys(("pwsh", "powershell", "expect", "guile"), Interpreter("c")),
    "osascript": Interpreter("e"),
}

# Checked on the whole command line: shapes that only make sense as one piece.
_FORK_BOMB = Rule(D, "is a fork bomb")
_CALLS_ITSELF_TWICE = r"\s*\{[^}]{0,200}\b\1\s*(?:\|(?!\|)|&(?!&))"
TEXT_PATTERNS: tuple[Pattern, ...] = (
    pattern(r":\s*\(\s*\)\s*\{", _FORK_BOMB),
    pattern(r"\b(\w{1,40})\s*\(\s*\)" + _CALLS_ITSELF_TWICE, _FORK_BOMB),
    pattern(r"\bfunction\s+(\w{1,40})\s*(?:\(\s*\))?" + _CALLS_ITSELF_TWICE, _FORK_BOMB),
)

# A variable that names a program to run (a pager, editor, hook or preloaded library), or PATH.
HOOK_ASSIGNMENT = re.compile(
    r"^(?P<name>LESS\w*|\w*PAGER|\w*EDITOR|VISUAL|\w*SSH_COMMAND|\w*ASKPASS|BASH_ENV|ENV"
    r"|GIT_(?:SSH|EXTERNAL_DIFF|EXEC_PATH|PROXY_COMMAND|CONFIG\w*)|LD_\w+|PROMPT_COMMAND|PS[0-4]"
    r"|PATH|IFS|SHELLOPTS|BASHOPTS|PERL5\w+|RUBYOPT|NODE_OPTIONS|PYTHON(?:PATH|STARTUP|HOME)"
    r"|BROWSER|MANOPT|SYSTEMD_\w+|KUBECTL_EXTERNAL_DIFF|BASH_FUNC_\S+|HOSTALIASES|GCONV_PATH"
    r"|TERMINFO)=(?P<value>.*)$",
    re.S,
)
# Values that keep such a variable harmless: empty, a plain pager, or options (`LESS=-R`).
_PAGER = re.compile(r"(?:(?:/usr)?/bin/)?(?:cat|less|more)(?:\s+-{1,2}[\w=]+)*")
_OPTIONS = re.compile(r"-{0,2}[\w~#]*(?:\s+-{1,2}[\w~#]+)*")
_OPTION_VARIABLES = frozenset({"LESS", "SYSTEMD_LESS", "MANOPT"})


def hooks(words: Iterable[str]) -> bool:
    """Whether any word assigns a program hook (`LESSOPEN='|rm x %s'`, `GIT_PAGER=sh`)."""
    for word in words:
        m = HOOK_ASSIGNMENT.match(word)
        if m is not None and not _harmless(*m.group("name", "value")):
            return True
    return False


def _harmless(name: str, value: str) -> bool:
    if not value or _PAGER.fullmatch(value):
        return True
    options = value.startswith("-") or name in _OPTION_VARIABLES
    return options and _OPTIONS.fullmatch(value) is not None
