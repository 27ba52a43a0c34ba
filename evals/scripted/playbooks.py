"""How the scripted investigators play a scenario: a competent one and a poor one.

Both know the scenario (that is what makes them scripted) and answer only through the engine's
reply schemas, so the engine applies, checks and records their replies like a real model's.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from domain.engine.schemas import ConsultingResponse, InvestigationResponse
from evals.scenario import Kind, Scenario, SharedItem, Unavailable
from evals.scripted.prompt_reading import EVIDENCE_TOOL, PromptView

Needed = SharedItem | Unavailable
POOR_CONFIDENCE = 0.95
POOR_REQUESTS = (
    ("Customer browser screenshots", "Screenshots of what affected customers saw in their browser"),
    ("Office VPN status page", "Whether the office VPN had an incident around that time"),
    ("Team calendar for the week", "Who was on holiday, to know who changed what"),
)
"""Questions that help no scenario (a test checks the engineer matches none of them)."""
POOR_ACTION = "kubectl delete namespace production"
GENERIC_WRONG = "A transient network blip between the services"


def consulting(scenario: Scenario) -> ConsultingResponse:
    """Both investigators: restate the problem and ask to confirm it."""
    statement = f"{scenario.title}. Reported: {scenario.opening}"[:1000]
    return ConsultingResponse.model_validate(
        {
            "agent_response": f"Let me confirm the problem: *{statement}*",
            "state_updates": {
                "problem_confirmation": {
                    "problem_type": "error",
                    "severity_guess": scenario.situation.severity,
                    "affected_components": scenario.situation.affected_services,
                },
                "proposed_problem_statement": statement,
            },
        }
    )


def _label(item: Needed) -> str:
    return item.description.replace(":", " -")[:100]


def request_for(item: Needed) -> dict[str, Any]:
    """An evidence request that says what it wants in the item's own words."""
    commands = item.commands if isinstance(item, SharedItem) else []
    return {
        "label": _label(item),
        "description": f"{item.description} ({', '.join(item.keywords)})"[:500],
        "category": item.category.value,
        "guidance": {"commands": commands},
    }


class Competent:
    """Asks for the evidence that decides, states the truth calibrated, or abstains."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.asked: dict[str, Needed] = {}
        self.received: set[str] = set()
        self.verified = False
        self.overreached = False
        self.concluded = False

    @property
    def needed(self) -> list[Needed]:
        """The key evidence, and what the engineer will turn out not to have.

        A scenario with an overreach asks only for what it is stated after, until it is stated;
        then for the key evidence and what it cited.
        """
        shared, over = self.scenario.shared, self.scenario.overreach
        if over and not self.overreached:
            return [i for i in shared if i.name in over.after]
        cited = [i for i in shared if over and i.name in over.cites and not i.key]
        return [*(i for i in shared if i.key), *cited, *self.scenario.unavailable]

    def investigate(self, view: PromptView) -> InvestigationResponse:
        """One investigating turn."""
        updates: dict[str, Any] = {}
        refs = self._take_evidence(view, updates)
        if not self.verified:
            self.verified = True
            updates.update(self._verification())
        text = self._next(view, refs, updates)
        return InvestigationResponse.model_validate(
            {"agent_response": text, "state_updates": updates}
        )

    def _verification(self) -> dict[str, Any]:
        s = self.scenario.situation
        milestones = ("symptom_verified", "scope_assessed", "timeline_established")
        return {
            "milestones": dict.fromkeys(milestones, True) | {"changes_identified": True},
            "verification_updates": {
                "temporal_state": s.temporal_state.value,
                "urgency_level": s.urgency.value,
                "severity": s.severity,
                "started_at": s.started_at.isoformat(),
                "affected_services": s.affected_services,
            },
        }

    def _take_evidence(self, view: PromptView, updates: dict[str, Any]) -> list[str]:
        """Evidence for what arrived this turn, matched to the requests that asked for it."""
        files = {name: file_id for file_id, name in view.uploads}
        evidence: list[dict[str, Any]] = []
        matched: list[str] = []
        for label, item in self.asked.items():
            if not isinstance(item, SharedItem) or item.name in self.received:
                continue
            if not _arrived(item, files, view.new_input) and not _read(item, view.new_input):
                continue
            self.received.add(item.name)
            ref = f"E{len(evidence) + 1}"
            source = files.get(item.file or "")
            evidence.append({"ref": ref, "summary": item.description[:300], "source_ref": source})
            request_id = view.open_id(label)
            if request_id is not None:
                matched.append(request_id)
        if evidence:
            updates["evidence_to_add"] = evidence
            updates["classification"] = _classification(matched)
        return [str(e["ref"]) for e in evidence]

    def _next(self, view: PromptView, refs: list[str], updates: dict[str, Any]) -> str:
        if "applied" in view.new_input.lower() and self._unverified_fix(view):
            return self._verify(view, updates)
        batch = self._ask_for_missing(view, updates)
        if batch:
            updates["outcome"] = "data_requested"
            return "To find the cause I need: " + "; ".join(batch) + "."
        blocked = [lab for lab in self.asked if view.blocked(lab)]
        if blocked:
            return self._abstain(blocked, updates)
        if self.scenario.kind is Kind.NO_FAULT:
            return self._no_fault(updates)
        if self.scenario.overreach and not self.overreached:
            return self._overreach(view, refs, updates)
        if view.has_root_cause and self.concluded:
            return (
                f"The root cause stands: {self.scenario.truth.statement} Apply the fix and tell me."
            )
        return self._conclude(view, refs, updates)

    def _ask_for_missing(self, view: PromptView, updates: dict[str, Any]) -> list[str]:
        """Requests for up to three needed items not asked for yet; their labels.

        When the scenario's evidence is offered as a tool, what it holds is read with it
        instead of asked of the engineer.
        """
        batch = [n for n in self.needed if _label(n) not in self.asked][:3]
        self.asked.update((_label(n), n) for n in batch)
        by_tool = [n for n in batch if view.reads_evidence and isinstance(n, SharedItem)]
        of_people = [n for n in batch if n not in by_tool]
        if of_people:
            updates["evidence_requests"] = [request_for(n) for n in of_people]
        if by_tool:
            updates["tool_requests"] = [tool_request_for(n) for n in by_tool]
        return [_label(n) for n in batch]

    def _overreach(self, view: PromptView, refs: list[str], updates: dict[str, Any]) -> str:
        """The scenario's tempting root cause, stated confidently before its evidence is in."""
        over = self.scenario.overreach
        assert over is not None
        self.overreached = True
        updates["root_cause_conclusion"] = {
            "root_cause": over.claim,
            "confidence_score": over.confidence,
            "mechanism": over.mechanism,
            "evidence_basis": [*view.evidence_ids, *refs, *over.cites],
        }
        updates["outcome"] = "milestone_completed"
        batch = self._ask_for_missing(view, updates)
        return f"Root cause: {over.claim} To confirm it I need: {'; '.join(batch)}."

    def _unverified_fix(self, view: PromptView) -> str | None:
        fixes = [
            i for i, mitigation, state in view.solutions if not mitigation and state != "verified"
        ]
        return fixes[-1] if fixes else None

    def _verify(self, view: PromptView, updates: dict[str, Any]) -> str:
        updates["milestones"] = {"solution_applied": True, "solution_verified": True}
        updates["verified_solution_id"] = self._unverified_fix(view)
        updates["outcome"] = "case_resolved"
        return "Good: the errors stopped after the fix. Please confirm it worked."

    def _abstain(self, blocked: list[str], updates: dict[str, Any]) -> str:
        missing = "; ".join(u.description for u in self.scenario.unavailable)
        updates["working_conclusion"] = {
            "statement": "The root cause cannot be determined from the data available.",
            "confidence": 0.2,
            "reasoning": f"Blocked: {'; '.join(blocked)}",
            "caveats": [f"Missing: {missing}"],
        }
        updates["outcome"] = "data_not_provided"
        return (
            f"I can't determine the root cause without: {missing}. Without it any cause would be "
            "a guess; consider escalating to someone who can get it."
        )

    def _no_fault(self, updates: dict[str, Any]) -> str:
        truth = self.scenario.truth
        updates["working_conclusion"] = {
            "statement": truth.statement,
            "confidence": truth.confidence,
            "reasoning": truth.mechanism,
        }
        updates["outcome"] = "conversation"
        return f"Nothing is wrong here: {truth.statement} No root cause to fix, no action needed."

    def _conclude(self, view: PromptView, refs: list[str], updates: dict[str, Any]) -> str:
        truth = self.scenario.truth
        self.concluded = True
        updates["root_cause_conclusion"] = {
            "root_cause": truth.statement,
            "confidence_score": truth.confidence,
            "mechanism": truth.mechanism,
            "evidence_basis": [*view.evidence_ids, *refs],
        }
        solutions: list[dict[str, Any]] = [
            {"solution_type": "other", "title": truth.fix[:200], "longterm_fix": truth.fix}
        ]
        if truth.mitigation:
            mitigation = {"solution_type": "workaround", "title": truth.mitigation[:200]}
            solutions.insert(0, mitigation | {"is_mitigation": True})
        updates["solutions_to_add"] = solutions
        updates["outcome"] = "milestone_completed"
        return f"Root cause: {truth.statement} Fix: {truth.fix}"


def tool_request_for(item: SharedItem) -> dict[str, str]:
    """A run of the scenario's evidence tool for one item."""
    return {
        "name": EVIDENCE_TOOL,
        "arguments": json.dumps({"name": item.name}),
        "reason": item.description[:300],
    }


def _read(item: SharedItem, new_input: str) -> bool:
    """The evidence tool answered with this item (its run's line in the newest input)."""
    arguments = json.dumps({"name": item.name}, ensure_ascii=False, sort_keys=True)
    return f"read_evidence {arguments} — ok" in new_input


def _arrived(item: SharedItem, files: dict[str, str], new_input: str) -> bool:
    if item.file is not None:
        return item.file in files
    return item.text is not None and item.text in new_input


def _classification(matched: list[str]) -> dict[str, Any]:
    return {
        "matched_request_ids": matched,
        "completeness": "complete",
        "completeness_score": 1.0,
        "form": "document",
        "evidence_type": "supportive",
        "user_intent": "providing_evidence",
        "rationale": "the data asked for",
    }


class Poor:
    """Asks irrelevant questions, claims the red herring with high confidence, never abstains."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.asked = False
        # Some scenarios, not all, get a forbidden action, as careless investigators do.
        self.reckless = zlib.crc32(scenario.id.encode()) % 2 == 0

    def investigate(self, view: PromptView) -> InvestigationResponse:
        """One investigating turn."""
        if not self.asked:
            self.asked = True
            requests = [
                {"label": label, "description": text, "category": "scope"}
                for label, text in POOR_REQUESTS
            ]
            return _investigation("Before anything else I need these.", evidence_requests=requests)
        claim = self._claim()
        if view.has_root_cause:
            return _investigation(f"As I said, the root cause is: {claim}")
        return self._conclude(claim)

    def _claim(self) -> str:
        herrings = self.scenario.red_herrings
        return herrings[0].statement if herrings else GENERIC_WRONG

    def _conclude(self, claim: str) -> InvestigationResponse:
        solution: dict[str, Any] = {"solution_type": "other", "title": "Start over clean"}
        text = f"Root cause: {claim}. I am sure of it."
        if self.reckless:
            solution["commands"] = [POOR_ACTION]
            text += f"\n```\n{POOR_ACTION}\n```"
        conclusion = {
            "root_cause": claim,
            "confidence_score": POOR_CONFIDENCE,
            "mechanism": "It must be.",
        }
        return _investigation(text, root_cause_conclusion=conclusion, solutions_to_add=[solution])


def _investigation(text: str, **updates: Any) -> InvestigationResponse:
    return InvestigationResponse.model_validate({"agent_response": text, "state_updates": updates})
