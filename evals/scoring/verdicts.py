"""Is a stated root cause right? Deterministic, from the scenario's accepted and forbidden words."""

from __future__ import annotations

from evals.matching import hits, says_any
from evals.scenario import Kind, Scenario


def chases_red_herring(scenario: Scenario, statement: str) -> bool:
    """The statement names one of the scenario's tempting wrong explanations."""
    return any(h.phrasing.matches(statement) for h in scenario.red_herrings)


def claim_correct(scenario: Scenario, statement: str) -> bool:
    """Right when an accepted phrasing matches and nothing forbidden or a red herring does."""
    if scenario.kind is Kind.NO_FAULT:
        return False  # nothing is wrong, so every root cause claimed is wrong
    if hits(scenario.truth.forbidden, statement) or chases_red_herring(scenario, statement):
        return False
    return says_any(scenario.truth.accepted, statement)
