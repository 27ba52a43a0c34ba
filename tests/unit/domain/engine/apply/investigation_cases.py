"""Shared helpers for the tests of applying an investigating reply."""

from __future__ import annotations

from domain.case import Case
from domain.engine.context import TurnContext
from domain.engine.inputs import TurnInput
from domain.investigation.verification import InvestigationPath, PathSelection
from tests.unit.domain.builders import NOW, investigating_case

VERIFIED = {
    "symptom_verified": True,
    "scope_assessed": True,
    "timeline_established": True,
    "changes_identified": True,
}


def ctx_for(case: Case, *messages, files=None) -> TurnContext:  # type: ignore[no-untyped-def]
    turn = TurnInput(messages=list(messages), files=files or [])
    return TurnContext(case=case, now=NOW, turn=turn)


def evidence(ref: str = "E1", **fields) -> dict:  # type: ignore[no-untyped-def]
    return {"ref": ref, "summary": "500s from PaymentService at 14:05", **fields}


def verified_case() -> Case:
    """Verification done and the root-cause path chosen."""
    case = investigating_case()
    for name in VERIFIED:
        setattr(case.progress, name, True)
    case.path_selection = PathSelection(
        path=InvestigationPath.ROOT_CAUSE, auto_selected=True, rationale="matrix"
    )
    return case
