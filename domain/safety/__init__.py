"""Command safety: evidence is collected with read-only commands; a solution's actions are shown
with what they change; destructive commands, and commands it cannot inspect, are never shown but
named with the reason. A tool no table knows is judged by its verbs and flags, labelled "not
checked" (``domain.safety.guess``).

The validator reads a command line the way a shell would (quotes, `;`, `&&`, `|`, `$(...)`,
redirections, `sudo`/`env`/`xargs` prefixes, `sh -c '...'`), classifies every simple command against
the tables and keeps the worst verdict. It never runs anything, and it imports no other package of
the domain: it reads plain text, so anything may ask it (an evidence request's guidance is made
safe in ``domain.investigation.guidance``).

This package is the public face; the work is spread over:

- ``domain.safety.validate``: the answer for one command line, for a solution's action, and for a
  list of either;
- ``domain.safety.sanitize``: free text with every command that may not be shown replaced by a
  note;
- ``domain.safety.shell``: reading a command line (quotes, substitutions, stages, redirections);
- ``domain.safety.classify``: classifying each simple command, through wrappers and shells;
- ``domain.safety.findings``: findings, the worst of them, and walking a tool's table;
- ``domain.safety.verdicts``: the answer for evidence and the three-way answer for a solution's
  commands (read-only, changes state, withheld), and the notes that replace withheld ones;
- ``domain.safety.rules``: the tables' vocabulary and the checks that apply to every command;
- ``domain.safety.commands``: every known command, gathered from the per-area tables in
  ``domain.safety.programs`` (files, sed, network, http, interfaces, hosts, platforms,
  kubernetes, cloud, infra, databases, sql, secrets, delivery, messaging); what no table knows
  is judged by its verbs and flags (``domain.safety.guess``), else refused (it fails closed);
- ``domain.safety.text``: where commands hide in free text (``candidates``; ``blocks`` for fenced
  code, ``prose`` for prose and inline code, ``words`` for what reads like a command), and
  ``labels`` for saying next to a solution's command what it changes.
"""

from domain.safety.findings import MAX_DEPTH
from domain.safety.rules import CommandSafety
from domain.safety.sanitize import SanitizedText, sanitize_text
from domain.safety.shell import UPSTREAM_KEEP
from domain.safety.text.words import at_command_position
from domain.safety.validate import (
    classify_action,
    classify_command,
    commands_in,
    partition_commands,
    reads_as_command,
    safe_actions,
    safe_commands,
)
from domain.safety.verdicts import (
    UNKNOWN_ACTION,
    ActionKind,
    ActionVerdict,
    CommandVerdict,
    withheld_note,
    withheld_notice,
    withheld_reason,
)

__all__ = [
    "MAX_DEPTH",
    "UNKNOWN_ACTION",
    "UPSTREAM_KEEP",
    "ActionKind",
    "ActionVerdict",
    "CommandSafety",
    "CommandVerdict",
    "SanitizedText",
    "at_command_position",
    "classify_action",
    "classify_command",
    "commands_in",
    "partition_commands",
    "reads_as_command",
    "safe_actions",
    "safe_commands",
    "sanitize_text",
    "withheld_note",
    "withheld_notice",
    "withheld_reason",
]
