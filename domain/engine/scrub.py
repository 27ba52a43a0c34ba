"""Every command the model suggests passes the safety validator; unsafe ones are withheld.

Command lists and acquisition guidance go through ``domain.safety``. Free text is checked where
commands hide: fenced code blocks, code on one line, and lines that read like a command (a lowercase
first word, after any bullet or prompt sign). Withheld commands are replaced by a short note.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from domain.evidence_requests import AcquisitionGuidance
from domain.safety import CommandVerdict, classify_command, safe_commands, sanitize_guidance

logger = logging.getLogger(__name__)

_FENCED = re.compile(r"```[^\n]*\n(.*?)```", re.S)
# Code on one line between runs of backticks: `x`, ``x``, ```x``` (a code block in Slack too).
_INLINE = re.compile(r"(?<!`)(`+)([^`\n]+)\1(?!`)")
_LEAD = re.compile(r"^(\s*(?:[-*•]|\d+[.)]|\$|#)?\s*)(.*)$")
_COMMAND_START = re.compile(r"^[a-z][\w.-]*(\s|$)")


def withheld_note(verdict: CommandVerdict) -> str:
    """What people see instead of an unsafe command."""
    return f"(command withheld: it {verdict.reason})"


@dataclass
class SafetyLog:
    """Applies the validator and remembers every verdict that removed something."""

    removed: list[CommandVerdict] = field(default_factory=list)

    def commands(self, commands: Iterable[str]) -> list[str]:
        """Only the read-only commands, in order."""
        kept, removed = safe_commands(commands)
        self._log(removed)
        return kept

    def guidance(self, guidance: AcquisitionGuidance) -> AcquisitionGuidance:
        """Guidance without unsafe commands or alternatives."""
        sanitized = sanitize_guidance(guidance)
        self._log(sanitized.removed)
        return sanitized.guidance

    def text(self, text: str) -> str:
        """Text with unsafe commands in code and command-like lines replaced by a note."""
        text = _FENCED.sub(self._fenced_block, text)
        text = _INLINE.sub(self._inline, text)
        return "\n".join(self._line(line) for line in text.split("\n"))

    def optional_text(self, text: str | None) -> str | None:
        """Like ``text``, keeping None."""
        return None if text is None else self.text(text)

    def texts(self, texts: Iterable[str]) -> list[str]:
        """``text`` applied to each item."""
        return [self.text(t) for t in texts]

    def _fenced_block(self, match: re.Match[str]) -> str:
        lines = [self._check(line) or line for line in match.group(1).split("\n")]
        return match.group(0).replace(match.group(1), "\n".join(lines))

    def _inline(self, match: re.Match[str]) -> str:
        note = self._check(match.group(2))
        return note if note else match.group(0)

    def _line(self, line: str) -> str:
        lead = _LEAD.match(line)
        assert lead is not None  # the pattern matches every line
        prefix, body = lead.groups()
        if not _COMMAND_START.match(body):
            return line
        note = self._check(body)
        return prefix + note if note else line

    def _check(self, command: str) -> str | None:
        """A note if the command is unsafe (and log it), else None."""
        command = command.strip()
        if not command or command.startswith("(command withheld"):
            return None
        verdict = classify_command(command)
        if verdict.is_safe:
            return None
        self._log([verdict])
        return withheld_note(verdict)

    def _log(self, verdicts: Iterable[CommandVerdict]) -> None:
        for verdict in verdicts:
            logger.warning(
                "unsafe command withheld",
                extra={"safety": verdict.safety.value, "reason": verdict.reason},
            )
            self.removed.append(verdict)
