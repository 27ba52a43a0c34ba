"""Commands the model suggested that were not shown: counted for scoring, never repeated."""

from __future__ import annotations

from domain.base import DomainModel


class WithheldCommand(DomainModel):
    """A suggested command the safety validator withheld: why, never the command itself."""

    destructive: bool
    """It destroys or exposes something (not merely unknown, or not read-only for evidence)."""
    reason: str
    """What it would do, as the validator says it ("deletes the namespace and everything in it")."""
