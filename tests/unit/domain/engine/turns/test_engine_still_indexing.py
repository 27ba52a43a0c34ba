"""A question asked while a file's vectors are still computed: answered, and said so to both."""

from __future__ import annotations

from collections.abc import Sequence

from domain.knowledge import KnowledgeResult
from tests.fakes.knowledge import FakeKnowledge
from tests.unit.domain.builders import investigating_case
from tests.unit.domain.engine.helpers import Rig, investigating, said, upload

NOTE = (
    "app.log is still being indexed for search by meaning; until then, searches cover its full "
    "text only."
)


class IndexingKnowledge(FakeKnowledge):
    """The in-memory knowledge base, its case files' vectors still being computed."""

    def __init__(self, indexing: list[str]) -> None:
        super().__init__()
        self.indexing = indexing

    async def search_case_evidence(
        self,
        *,
        team_id: str,
        case_id: str,
        query: str,
        conversation: Sequence[str] = (),
        limit: int = 8,
    ) -> KnowledgeResult:
        found = await super().search_case_evidence(
            team_id=team_id, case_id=case_id, query=query, conversation=conversation, limit=limit
        )
        return found.model_copy(update={"still_indexing": self.indexing})


async def test_a_file_still_being_indexed_is_searched_by_text_and_named_to_model_and_people() -> (
    None
):
    rig = Rig(knowledge=IndexingKnowledge(["app.log"]))
    case = investigating_case()
    case.uploaded_files.append(upload("app.log").file)
    rig.knowledge.add_case_excerpt("T1", case.case_id, "ERROR pool exhausted", line=7)

    result = await rig.turn(
        case, said("what does the pool error say?"), investigating("See app.log:7.")
    )

    newest = rig.llm.calls[0].messages[-1].content
    assert f"System note: {NOTE}" in newest
    assert '<data kind="excerpt:case" cite="app.log:7">' in rig.llm.calls[0].messages[1].content
    assert result.reply.notices == [NOTE]


async def test_nothing_is_said_once_the_vectors_are_there() -> None:
    rig = Rig(knowledge=IndexingKnowledge([]))
    case = investigating_case()
    case.uploaded_files.append(upload("app.log").file)

    result = await rig.turn(case, said("what does the pool error say?"), investigating())

    assert "still being indexed" not in rig.llm.calls[0].messages[-1].content
    assert result.reply.notices == []


async def test_a_turn_without_a_model_says_it_too() -> None:
    rig = Rig(knowledge=IndexingKnowledge(["app.log"]))
    rig.llm.enabled = False
    case = investigating_case()
    case.uploaded_files.append(upload("app.log").file)

    result = await rig.turn(case, said("pool error"))

    assert NOTE in result.reply.notices
