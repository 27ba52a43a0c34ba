"""Every command the model suggests passes the safety validator; unsafe ones are withheld.

Command lists and acquisition guidance go through ``domain.safety``; so does free text, where
commands hide in fenced code, code on one line and prose (``domain.safety.sanitize_text``).
Withheld commands are replaced by a short note, and every verdict that removed one is kept here
and logged.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field

from domain.investigation.evidence_requests import AcquisitionGuidance
from domain.safety import (
    CommandVerdict,
    safe_commands,
    sanitize_guidance,
    sanitize_text,
    withheld_note,
)

__all__ = ["SafetyLog", "withheld_note"]

logger = logging.getLogger(__name__)


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
        """Text with every unsafe command in it (code or prose) replaced by a note."""
        sanitized = sanitize_text(text)
        self._log(sanitized.removed)
        return sanitized.text

    def optional_text(self, text: str | None) -> str | None:
        """Like ``text``, keeping None."""
        return None if text is None else self.text(text)

    def texts(self, texts: Iterable[str]) -> list[str]:
        """``text`` applied to each item."""
        return [self.text(t) for t in texts]

    def _log(self, verdicts: Iterable[CommandVerdict]) -> None:
        for verdict in verdicts:
            logger.warning(
                "unsafe command withheld",
                extra={"safety": verdict.safety.value, "reason": verdict.reason},
            )
            self.removed.append(verdict)
