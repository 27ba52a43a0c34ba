"""The turn log keeps each turn's knowledge searches and citations (the scoring judge reads it)."""

from __future__ import annotations

from domain.engine.retrieval import search_actions
from tests.unit.domain.builders import investigating_case
from tests.unit.domain.engine.helpers import Rig, investigating, said, upload


async def test_a_turn_records_what_it_searched_for_and_what_it_cited() -> None:
    rig = Rig()
    case = investigating_case()
    case.uploaded_files.append(upload("app.log").file)
    rig.knowledge.add_case_excerpt("T1", case.case_id, "ERROR pool exhausted", line=7)
    rig.knowledge.add_article("T1", "Postgres pooling", "Raise the pool when it is exhausted")

    result = await rig.turn(
        case,
        said("is the pool exhausted?"),
        investigating("See app.log:7.", citations=["app.log:7"]),
    )

    searched, cites = result.case.turn_history[-1].actions_taken
    # The person's words first, then what the case is about (its confirmed problem).
    assert searched.startswith('searched the knowledge for "is the pool exhausted? Payments API')
    assert searched.endswith('": 1 case, 0 personal, 1 global excerpt(s)')
    assert cites == "cited app.log:7"


async def test_without_a_model_the_search_is_recorded_too() -> None:
    rig = Rig()
    rig.llm.enabled = False
    case = investigating_case()

    result = await rig.turn(case, said("what about dns?"))

    (action,) = result.case.turn_history[-1].actions_taken
    assert action.startswith('searched the knowledge for "what about dns?": 0 case')


def test_a_turn_without_a_query_searched_nothing() -> None:
    assert search_actions("", [], []) == []
