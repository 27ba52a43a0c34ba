"""The case as the model reads it: compact, deterministic text with every id it may use."""

from __future__ import annotations

from collections.abc import Callable

from domain.case import Case
from domain.investigation.evidence_requests import EvidenceStatus, open_requests
from domain.investigation.progress import MILESTONES
from domain.lifecycle.status import CaseStatus

MAX_EVIDENCE_SHOWN = 15
MAX_TEXT = 300


def _clip(text: str, limit: int = MAX_TEXT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _problem(case: Case) -> list[str]:
    consulting = case.consulting
    lines = [f"Title: {_clip(case.title) or '(none)'}"]
    if case.problem_verification is not None:
        lines.append(f"Problem (confirmed): {_clip(case.problem_verification.symptom_statement)}")
    elif consulting.proposed_problem_statement:
        state = "confirmed" if consulting.problem_statement_confirmed else "awaiting confirmation"
        lines.append(
            f"Proposed problem statement ({state}): {consulting.proposed_problem_statement}"
        )
    if consulting.problem_confirmation is not None:
        pc = consulting.problem_confirmation
        lines.append(f"Triage: type={pc.problem_type}, severity={pc.severity_guess}")
    return lines


def _milestones(case: Case) -> list[str]:
    if case.status is CaseStatus.CONSULTING:
        return []
    done = case.progress.completed()
    marks = [f"{'✅' if name in done else '⏳'} {name}" for name in MILESTONES]
    lines = ["Milestones: " + ", ".join(marks)]
    if case.progress.root_cause_identified:
        lines.append(f"Root-cause confidence: {case.progress.root_cause_confidence:.2f}")
    return lines


def _path(case: Case) -> list[str]:
    selection = case.path_selection
    if selection is None:
        return []
    how = "auto-selected" if selection.auto_selected else f"chosen by {selection.selected_by}"
    return [f"Path: {selection.path.value} ({how}: {_clip(selection.rationale)})"]


def _verification(case: Case) -> list[str]:
    pv = case.problem_verification
    if pv is None:
        return []
    facts = {
        "temporal_state": pv.temporal_state.value if pv.temporal_state else None,
        "urgency": pv.urgency_level.value,
        "severity": pv.severity,
        "affected_services": ", ".join(pv.affected_services) or None,
        "affected_users": pv.affected_users,
        "started_at": pv.started_at.isoformat() if pv.started_at else None,
        "changes": "; ".join(_clip(c.description, 80) for c in pv.recent_changes) or None,
    }
    shown = [f"{key}={value}" for key, value in facts.items() if value]
    return ["Verification: " + ", ".join(shown)]


def _hypotheses(case: Case) -> list[str]:
    lines = ["Hypotheses:"] if case.hypotheses else []
    for hid, h in case.hypotheses.items():
        support = ", ".join(h.supporting_evidence) or "-"
        refute = ", ".join(h.refuting_evidence) or "-"
        lines.append(
            f"- {hid} [{h.status.value} · {h.category.value} · likelihood {h.likelihood:.2f}] "
            f"{_clip(h.statement)} (supporting: {support}; contradicting: {refute})"
        )
    return lines


def _evidence(case: Case) -> list[str]:
    shown = case.evidence[-MAX_EVIDENCE_SHOWN:]
    lines = [f"Evidence ({len(case.evidence)} collected, newest shown):"] if shown else []
    for e in shown:
        disputed = " (disputed by a person)" if e.disputed else ""
        lines.append(
            f"- {e.evidence_id} [{e.category.value} · turn {e.collected_at_turn} · "
            f"{e.source_type.value}] {_clip(e.summary)}{disputed}"
        )
    return lines


def _requests(case: Case) -> list[str]:
    lines: list[str] = []
    pending = open_requests(case.evidence_requests)
    if pending:
        lines.append("Open evidence requests:")
    for r in pending:
        lines.append(
            f"- {r.request_id} [{r.status.value} · {r.category.value} · {r.criticality.value} · "
            f"{r.completeness:.1f}] {r.label}: {_clip(r.description, 160)}"
        )
    blocked = [r for r in case.evidence_requests if r.status is EvidenceStatus.BLOCKED]
    if blocked:
        lines.append("Blocked evidence requests (people cannot provide):")
    for r in blocked:
        reason = _clip(str(r.metadata.get("blocked_reason", "")), 120)
        lines.append(f"- {r.request_id} {r.label} ({reason})")
    return lines


def _solutions(case: Case) -> list[str]:
    lines = ["Solutions:"] if case.solutions else []
    for s in case.solutions:
        kind = "mitigation" if s.is_mitigation else "permanent fix"
        lines.append(f"- {s.solution_id} [{kind} · {s.state}] {_clip(s.title)}")
    return lines


def _conclusions(case: Case) -> list[str]:
    lines: list[str] = []
    wc = case.working_conclusion
    if wc is not None:
        lines.append(f"Working conclusion: {_clip(wc.statement)} (confidence {wc.confidence:.2f})")
    rc = case.root_cause_conclusion
    if rc is not None:
        lines.append(
            f"Root cause: {_clip(rc.root_cause)} (confidence {rc.confidence_score:.2f}, "
            f"{rc.confidence_level.value}); mechanism: {_clip(rc.mechanism)}"
        )
    lines.extend(
        f"Ruled out: {_clip(d.hypothesis)} ({_clip(d.why_ruled_out, 120)})" for d in case.dead_ends
    )
    return lines


def _waiting(case: Case) -> list[str]:
    pending = case.pending_confirmations()
    lines = ["Waiting for the people to answer:"] if pending else []
    lines.extend(f"- {c.kind.value}: {_clip(c.prompt, 200)}" for c in pending)
    degraded = case.degraded_mode
    if degraded is not None and degraded.is_active:
        lines.append(f"Degraded mode ({degraded.mode_type.value}): {degraded.reason}")
        if degraded.chosen is not None:  # a click on one of the ways out the thread shows
            lines.append(f"Way out the people chose: {degraded.chosen.label}")
    return lines


SECTIONS: tuple[Callable[[Case], list[str]], ...] = (
    _problem,
    _milestones,
    _path,
    _verification,
    _hypotheses,
    _evidence,
    _requests,
    _solutions,
    _conclusions,
    _waiting,
)


def render_case_state(case: Case) -> str:
    """Everything the model needs to know about the case, with ids, in a stable order."""
    return "\n".join(line for section in SECTIONS for line in section(case))
