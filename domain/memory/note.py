"""What the model is told of a past case that matched: a lead to test, not a conclusion."""

from __future__ import annotations

from domain.case import Case
from domain.engine.prompting.prompts import fill, load_template
from domain.past_cases import PastCaseMatch
from domain.people import mention

SEEN_BEFORE_TEMPLATE = "seen_before"


def seen_before_note(match: PastCaseMatch) -> str:
    """What the model is told of a past case that matched: a lead to test, not a conclusion.

    The turn passes it in ``PromptContext.notes`` while the match stands.
    """
    values = {
        "past_case": match.label,
        "recurred": f" (the same incident as {', '.join(match.also_seen)})"
        if match.also_seen
        else "",
        "resolved": match.resolved_at.date().isoformat(),
        "score": f"{match.score:.2f}",
        "document": match.document.value,
        "problem": match.problem,
        "root_cause": match.root_cause or "not stated",
        "fixed_by": match.fixed_by,
    }
    return fill(load_template(SEEN_BEFORE_TEMPLATE), values)


def seen_before_notes(case: Case) -> list[str]:
    """The notes a turn passes the model about the past case this one looks like.

    The lead is told while the case looks for its root cause (not once one is stated, nor after
    the case ended); that people chose to follow its runbook, until the case ends.
    """
    kept = case.seen_before
    if kept is None or kept.match is None or case.is_terminal:
        return []
    notes = [] if case.root_cause_conclusion else [seen_before_note(kept.match)]
    if kept.runbook_followed_by:
        notes.append(
            f"{mention(kept.runbook_followed_by)} chose to follow the runbook of "
            f"{kept.match.label} (posted in the thread): take its steps as what people are "
            "doing, and ask for what each step shows here."
        )
    return notes
