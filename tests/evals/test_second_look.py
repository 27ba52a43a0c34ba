"""The scripted second look reads the check's prompt as the engine writes it."""

from __future__ import annotations

from domain.engine.schemas import RootCauseConclusionUpdate
from domain.engine.second_look import Held, messages
from evals.scenario import load_scenarios
from evals.scripted.second_look import check

(SCENARIO,) = load_scenarios(only=["session-evictions-overreach"])


def stated(*cites: str) -> RootCauseConclusionUpdate:
    return RootCauseConclusionUpdate(
        root_cause="The deploy shortened the session lifetime",
        confidence_score=0.9,
        mechanism="sessions expire early",
        evidence_basis=list(cites),
    )


def test_a_cited_item_the_case_does_not_hold_is_a_link_not_shown_named_after_the_item() -> None:
    held = [Held("E1", "session not found warnings from 10:20 (from web.log)")]

    reply = check(SCENARIO, messages(stated("E1", "deploy-diff"), held))

    assert [(link.claim, link.shown) for link in reply.links] == [
        ("what E1 shows", True),
        ("diff of the web v3.2.0 deploy values", False),
    ]
    assert reply.supported_confidence == 0.9


def test_a_root_cause_citing_nothing_is_one_link_not_shown() -> None:
    (link,) = check(SCENARIO, messages(stated(), [])).links

    assert (link.claim, link.shown) == ("The deploy shortened the session lifetime", False)
