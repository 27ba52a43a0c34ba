"""One turn's working state while a reply is applied: the case copy, the time, what happened."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime

from domain.case import Case
from domain.engine.apply.claims import Refusal
from domain.engine.apply.scrub import SafetyLog
from domain.engine.inputs import TurnInput
from domain.errors import DomainError
from domain.lifecycle.confirmations import (
    ConfirmationPayload,
    PendingConfirmation,
    StatusChangePayload,
)
from domain.lifecycle.proposals import propose

logger = logging.getLogger(__name__)


@dataclass
class TurnLog:
    """What applying a reply did besides changing the case: for the reply view and the logs."""

    safety: SafetyLog = field(default_factory=SafetyLog)
    ignored: list[str] = field(default_factory=list)
    """Things the model referred to that do not exist (unknown ids), or asked for and may not."""
    notes: list[str] = field(default_factory=list)
    """Plain sentences for the people (e.g. why a requested status change cannot be asked yet)."""
    still_indexing: list[str] = field(default_factory=list)
    """Files the turn's search covered by their full text only, their vectors still to come."""
    proposed: list[PendingConfirmation] = field(default_factory=list)
    recorded: list[PendingConfirmation] = field(default_factory=list)
    """Solution steps a person's own words recorded this turn (answered in their name)."""
    refused: list[Refusal] = field(default_factory=list)
    """Status changes the model asked for that the rules would not put to people, and why."""
    evidence_refs: dict[str, str] = field(default_factory=dict)
    """The model's refs for evidence added this turn → evidence ids."""
    hypothesis_refs: dict[str, str] = field(default_factory=dict)
    """The model's refs for hypotheses added this turn → hypothesis ids."""


@dataclass
class TurnContext:
    """The case being changed (always a copy), the time, the inputs, and the log."""

    case: Case
    now: datetime
    turn: TurnInput = field(default_factory=TurnInput)
    log: TurnLog = field(default_factory=TurnLog)

    @property
    def actor(self) -> str:
        """Who drove the turn (the case opener if nobody in particular)."""
        return self.turn.actor or self.case.user_id

    def ignore(self, what: str) -> None:
        """Record and log something from the reply that was ignored."""
        logger.info("ignored from model reply", extra={"case_id": self.case.case_id, "what": what})
        self.log.ignored.append(what)

    def propose(self, payload: ConfirmationPayload, prompt: str) -> PendingConfirmation | None:
        """Ask the people to confirm a change; if the rules forbid it, say why instead.

        Prompts quote the model (reasons, summaries): they pass the safety validator like any
        text it wrote, whatever they were assembled from.
        """
        prompt = self.log.safety.text(prompt)
        try:
            confirmation = propose(self.case, payload, now=self.now, prompt=prompt)
        except DomainError as error:
            note = f"I can't ask for that yet: {error}."
            self.log.notes.append(note)
            if isinstance(payload, StatusChangePayload):
                self.log.refused.append(Refusal(payload.to_status, str(error), note))
            return None
        self.log.proposed.append(confirmation)
        return confirmation

    def evidence_id(self, ref: str | None) -> str | None:
        """Resolve an evidence id or a ref from this reply; None if it matches nothing."""
        if ref is None:
            return None
        resolved = self.log.evidence_refs.get(ref, ref)
        return resolved if self.case.find_evidence(resolved) is not None else None

    def hypothesis_id(self, ref: str | None) -> str | None:
        """Resolve a hypothesis id or a ref from this reply; None if it matches nothing."""
        if ref is None:
            return None
        resolved = self.log.hypothesis_refs.get(ref, ref)
        return resolved if resolved in self.case.hypotheses else None
