"""What the model is told of a past case that matched: a lead to test, not a conclusion."""

from __future__ import annotations

from domain.engine.prompts import fill, load_template
from domain.memory.match import PastCaseMatch

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
