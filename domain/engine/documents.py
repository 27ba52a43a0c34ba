"""Deterministic case report and runbook, written from the case alone (used without a model)."""

from __future__ import annotations

from collections.abc import Iterable

from domain.case import Case
from domain.investigation.conclusions import rubric_band
from domain.investigation.evidence_requests import EvidenceStatus
from domain.investigation.hypotheses import HypothesisStatus

UNKNOWN = "_unknown_"


def problem_of(case: Case) -> str:
    """The problem in one line."""
    if case.problem_verification is not None:
        return case.problem_verification.symptom_statement
    return case.consulting.proposed_problem_statement or case.title or "Untitled case"


def _bullets(items: Iterable[str], empty: str = "_none recorded_") -> list[str]:
    lines = [f"- {item}" for item in items]
    return lines or [empty]


def _section(title: str, lines: list[str]) -> list[str]:
    return [f"## {title}", *lines, ""]


def _root_cause(case: Case) -> list[str]:
    rc = case.root_cause_conclusion
    if rc is None:
        return ["Not identified."]
    return [
        rc.root_cause,
        "",
        f"*Mechanism:* {rc.mechanism}",
        f"*Confidence:* {rc.confidence_score:.0%} ({rc.confidence_level.value}: "
        f"{rubric_band(rc.confidence_score).lower()})",
        *(f"*Missing evidence:* {m}" for m in rc.missing_evidence),
    ]


def _solutions(case: Case, *, applied_only: bool) -> list[str]:
    lines: list[str] = []
    for s in case.solutions:
        if applied_only and s.applied_at is None:
            continue
        kind = "Mitigation" if s.is_mitigation else "Fix"
        lines.append(f"- **{kind}: {s.title}** ({s.state})")
        lines.extend(f"  - {step}" for step in s.implementation_steps)
        lines.extend(f"  - `{command}`" for command in s.commands)
    return lines or ["_none recorded_"]


def _timeline(case: Case) -> list[str]:
    events = [(case.created_at, "Case opened")]
    pv = case.problem_verification
    if pv is not None and pv.started_at is not None:
        events.append((pv.started_at, "Problem started"))
    if pv is not None:
        events.extend((c.occurred_at, f"Change: {c.description}") for c in pv.recent_changes)
    events.extend((t.triggered_at, f"Status → {t.to_status.value}") for t in case.status_history)
    events.extend((s.applied_at, f"Applied: {s.title}") for s in case.solutions if s.applied_at)
    return [f"- {when.isoformat(timespec='minutes')} — {what}" for when, what in sorted(events)]


def _summary(case: Case) -> list[str]:
    """Status (with why it ended, when that says more), and when it was opened and ended."""
    status = case.status.value
    if case.closure_reason and case.closure_reason != status:
        status += f" ({case.closure_reason.replace('_', ' ')})"
    lines = [f"Status: {status}", f"Opened: {case.created_at.isoformat(timespec='minutes')}"]
    ended = case.closed_at or case.resolved_at
    if ended is not None:
        minutes = max(0, round((ended - case.created_at).total_seconds() / 60))
        lines.append(f"Ended: {ended.isoformat(timespec='minutes')} (after {_duration(minutes)})")
    return [f"- {line}" for line in lines]


def _duration(minutes: int) -> str:
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"


def fallback_report(case: Case) -> str:
    """A case report built only from recorded facts."""
    ruled_out = [f"{d.hypothesis}: {d.why_ruled_out}" for d in case.dead_ends]
    ruled_out += [
        h.statement for h in case.hypotheses.values() if h.status is HypothesisStatus.REFUTED
    ]
    documentation = case.documentation
    lines = [f"# Case report: {problem_of(case)}", ""]
    lines += _section("Summary", _summary(case))
    lines += _section("Timeline", _timeline(case))
    lines += _section(
        "Evidence collected",
        _bullets(f"`{e.evidence_id}` {e.summary}" for e in case.evidence),
    )
    lines += _section("Root cause", _root_cause(case))
    lines += _section("Solution", _solutions(case, applied_only=False))
    lines += _section("Ruled out", _bullets(dict.fromkeys(ruled_out)))
    lines += _section("Lessons learned", _bullets(documentation.lessons_learned))
    follow_ups = [*documentation.preventive_measures, *documentation.monitoring_recommendations]
    lines += _section("Follow-ups", _bullets(follow_ups))
    return "\n".join(lines).rstrip() + "\n"


def fallback_runbook(case: Case) -> str:
    """A runbook built only from recorded facts."""
    pv = case.problem_verification
    symptoms = [problem_of(case), *(pv.symptom_indicators if pv else [])]
    diagnosis = [
        f"{r.label}: {r.description}" + "".join(f" `{c}`" for c in r.guidance.commands)
        for r in case.evidence_requests
        if r.status is EvidenceStatus.COMPLETE
    ]
    lines = [f"# Runbook: {problem_of(case)}", ""]
    lines += _section("When to use this", _bullets(symptoms))
    lines += _section("Quick diagnosis", _bullets(diagnosis))
    lines += _section("Root cause seen before", _root_cause(case))
    lines += _section("Resolution", _solutions(case, applied_only=True))
    lines += _section("Prevention", _bullets(case.documentation.preventive_measures))
    lines += _section(
        "Escalation",
        ["Share the symptoms, when it started, what was tried, and this case's thread."],
    )
    return "\n".join(lines).rstrip() + "\n"
