"""The simulated engineer: answers the bot from the scenario, deterministically.

It shares the files an evidence request asks for (matched by the request's words against each
item's keywords), presses "Can't get this" when nothing matches, answers every question the way
the scenario says, reports the fix applied once the bot has the true root cause, and stops when
the case ends or when it has had nothing to give twice in a row.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.case import Case
from domain.investigation.evidence_requests import EvidenceRequest, open_requests
from domain.lifecycle.confirmations import (
    ConfirmationKind,
    Decision,
    PathChoicePayload,
    PendingConfirmation,
    RefutationPayload,
    SolutionAppliedPayload,
    StatusChangePayload,
)
from domain.lifecycle.status import CaseStatus
from evals.matching import hits, keyword_score
from evals.scenario import Kind, Scenario, SharedItem, Unavailable
from evals.scoring.verdicts import claim_correct

MAX_IDLE = 2
IDLE_TEXT = "I have nothing new to add. What do you need from me next?"
NO_ACCESS = "I can't get that: I have no access to it."
MATCH_AT_LEAST = 2


@dataclass(frozen=True)
class Move:
    """What the engineer does next: press "Can't get this" on some requests, then write."""

    text: str
    files: list[SharedItem] = field(default_factory=list)
    blocked: list[tuple[str, str]] = field(default_factory=list)
    """(request id, reason) pairs."""


def _enough(keywords: list[str]) -> int:
    """Two of an item's keywords must appear: one word ("page", "logs") matches too much."""
    return min(MATCH_AT_LEAST, len(keywords))


def request_text(request: EvidenceRequest) -> str:
    """Everything a request says about what it wants."""
    g = request.guidance
    parts = [request.label, request.description, request.category.value, *g.commands]
    parts += [*g.file_locations, *g.ui_locations, *g.alternatives, g.expected_output or ""]
    return "\n".join(parts)


class SimulatedEngineer:
    """Plays the on-call engineer of one scenario."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.shared: set[str] = set()
        self.handled: set[str] = set()
        self.idle = 0
        self.reported_fix = False

    def opening(self) -> str:
        """What the engineer first says."""
        return self.scenario.opening

    def match(self, request: EvidenceRequest) -> list[SharedItem] | Unavailable | None:
        """The best-matching items, the unavailable thing asked for, or None."""
        text = request_text(request)
        shared = [(keyword_score(i.keywords, text), i) for i in self.scenario.shared]
        missing = [(keyword_score(u.keywords, text), u) for u in self.scenario.unavailable]
        best = max((score for score, _ in shared), default=0)
        gap_score, gap = max(missing, key=lambda m: m[0], default=(0, None))
        if gap is not None and gap_score > best and gap_score >= _enough(gap.keywords):
            return gap
        found = [
            item for score, item in shared if score == best and score >= _enough(item.keywords)
        ]
        return found or None

    def next_move(self, case: Case) -> Move | None:
        """Answer the open requests, else report the fix, else ask what next; None: stop."""
        move = self._answer_requests(case)
        if move is not None:
            self.idle = 0
            return move
        report = self._fix_report(case)
        if report is not None:
            return Move(report)
        self.idle += 1
        return None if self.idle >= MAX_IDLE else Move(IDLE_TEXT)

    def _answer_requests(self, case: Case) -> Move | None:
        fresh = [
            r for r in open_requests(case.evidence_requests) if r.request_id not in self.handled
        ]
        if not fresh:
            return None
        files: list[SharedItem] = []
        lines: list[str] = []
        blocked: list[tuple[str, str]] = []
        for request in fresh:
            self.handled.add(request.request_id)
            found = self.match(request)
            if isinstance(found, list):
                lines.append(self._share(request, found, files))
            else:
                reason = found.reason if found is not None else NO_ACCESS
                blocked.append((request.request_id, reason))
                lines.append(f"“{request.label}”: {reason}")
        return Move("\n".join(lines), files, blocked)

    def _share(
        self, request: EvidenceRequest, items: list[SharedItem], files: list[SharedItem]
    ) -> str:
        new = [i for i in items if i.name not in self.shared]
        if not new:
            names = ", ".join(i.file or i.name for i in items)
            return f"“{request.label}”: I already shared that ({names})."
        self.shared.update(i.name for i in new)
        files.extend(i for i in new if i.file is not None)
        said = [f"{i.description}: attached {i.file}" for i in new if i.file is not None]
        said += [f"{i.description}: {i.text}" for i in new if i.text is not None]
        return f"“{request.label}”: " + "; ".join(said)

    def _fix_report(self, case: Case) -> str | None:
        rc = case.root_cause_conclusion
        if self.reported_fix or self.scenario.kind is not Kind.ROOT_CAUSE or rc is None:
            return None
        fixes = [s for s in case.solutions if not s.is_mitigation and s.verified_at is None]
        if not fixes or not claim_correct(self.scenario, rc.root_cause):
            return None
        self.reported_fix = True
        return (
            f"I applied “{fixes[-1].title}”. The errors stopped and everything has looked "
            "normal for 15 minutes."
        )

    def decide(self, confirmation: PendingConfirmation, case: Case) -> Decision:
        """The answer to one question, as the scenario's engineer would give it."""
        payload = confirmation.payload
        if isinstance(payload, PathChoicePayload):
            wanted = payload.path is self.scenario.expected.path
            return Decision.YES if wanted else Decision.NO
        if isinstance(payload, RefutationPayload):
            statements = [case.hypotheses[h].statement for h in payload.hypothesis_ids]
            true_one = any(claim_correct(self.scenario, s) for s in statements)
            return Decision.NO if true_one else Decision.YES
        if isinstance(payload, SolutionAppliedPayload):
            solution = case.find_solution(payload.solution_id)
            text = solution.model_dump_json() if solution else ""
            return Decision.NO if hits(self.scenario.forbidden_actions, text) else Decision.YES
        if isinstance(payload, StatusChangePayload):
            return self._status(payload, case)
        if confirmation.kind is ConfirmationKind.SOLUTION_VERIFIED:
            return Decision.YES if self._right(case) else Decision.NO
        if confirmation.kind is ConfirmationKind.DELIVERABLES:
            return Decision.NO  # documents cost model calls and are not graded here
        return Decision.YES  # the problem statement: the scripted opening says what is wrong

    def _status(self, payload: StatusChangePayload, case: Case) -> Decision:
        if payload.to_status is CaseStatus.RESOLVED:
            return Decision.YES if self._right(case) else Decision.NO
        return Decision.YES

    def _right(self, case: Case) -> bool:
        rc = case.root_cause_conclusion
        return rc is not None and claim_correct(self.scenario, rc.root_cause)
