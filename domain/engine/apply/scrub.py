"""Every command the model suggests passes the safety validator; what may not be shown is withheld.

Evidence is collected with read-only commands only: command lists, acquisition guidance and free
text go through ``domain.safety`` (in free text, commands hide in fenced code, code on one line
and prose). A solution's commands are what people will run themselves: its commands and text keep
the actions that change state, and only destructive commands, or ones the validator cannot
inspect, are withheld. Withheld commands are replaced by a short note with the reason, and every
verdict that removed one is kept here and logged.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field

from domain.investigation.evidence_requests import AcquisitionGuidance
from domain.investigation.guidance import sanitize_guidance
from domain.investigation.withheld import WithheldCommand
from domain.safety import (
    CommandSafety,
    CommandVerdict,
    safe_actions,
    safe_commands,
    sanitize_text,
    withheld_note,
    withheld_notice,
)

__all__ = ["SafetyLog", "withheld_note"]

logger = logging.getLogger(__name__)


@dataclass
class SafetyLog:
    """Applies the validator and remembers every verdict that removed something.

    ``removed`` is everything withheld (debug and audit); ``shown_removed`` only what was withheld
    from text people see, the one a notice may speak of (a field kept but never rendered, such as
    a consulting quick suggestion, is checked with ``shown=False``).
    """

    removed: list[CommandVerdict] = field(default_factory=list)
    shown_removed: list[CommandVerdict] = field(default_factory=list)

    def commands(self, commands: Iterable[str]) -> list[str]:
        """Only the read-only commands, in order."""
        kept, removed = safe_commands(commands)
        self._log(removed)
        return kept

    def actions(self, commands: Iterable[str]) -> list[str]:
        """A solution's commands in order, withheld ones replaced by their note."""
        entries, removed = safe_actions(commands)
        self._log(removed)
        return entries

    def guidance(self, guidance: AcquisitionGuidance) -> AcquisitionGuidance:
        """Guidance without unsafe commands or alternatives."""
        sanitized = sanitize_guidance(guidance)
        self._log(sanitized.removed)
        return sanitized.guidance

    def text(self, text: str, *, actions: bool = False, shown: bool = True) -> str:
        """Text with every command in it (code or prose) that may not be shown replaced by a note.

        With ``actions`` (a solution's text) commands that change state are kept.
        """
        sanitized = sanitize_text(text, actions=actions)
        self._log(sanitized.removed, shown=shown)
        return sanitized.text

    def optional_text(
        self, text: str | None, *, actions: bool = False, shown: bool = True
    ) -> str | None:
        """Like ``text``, keeping None."""
        return None if text is None else self.text(text, actions=actions, shown=shown)

    def texts(
        self, texts: Iterable[str], *, actions: bool = False, shown: bool = True
    ) -> list[str]:
        """``text`` applied to each item."""
        return [self.text(t, actions=actions, shown=shown) for t in texts]

    def notice(self) -> str | None:
        """What the thread is told was withheld from it, naming each command's program and why."""
        return withheld_notice(self.shown_removed)

    def mark(self) -> int:
        """A place in the log, to ask later what was withheld since (``withheld_since``)."""
        return len(self.removed)

    def withheld_since(self, mark: int) -> list[WithheldCommand]:
        """What was withheld after ``mark``: destructive or not, and why (never the command)."""
        return [
            WithheldCommand(
                destructive=verdict.safety is CommandSafety.DANGEROUS,
                reason=verdict.what_it_does,
            )
            for verdict in self.removed[mark:]
        ]

    def _log(self, verdicts: Iterable[CommandVerdict], *, shown: bool = True) -> None:
        for verdict in verdicts:
            logger.warning(
                "unsafe command withheld",
                extra={"safety": verdict.safety.value, "reason": verdict.reason},
            )
            self.removed.append(verdict)
            if shown:
                self.shown_removed.append(verdict)
