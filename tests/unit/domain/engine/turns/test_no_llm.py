"""Plain turns without a model: evidence recorded, excerpts quoted under the right heading."""

from __future__ import annotations

from domain.investigation.evidence import EvidenceForm
from domain.knowledge import KnowledgeBaseKind
from domain.llm import LLMUnavailableError
from tests.unit.domain.builders import investigating_case, new_case
from tests.unit.domain.engine.helpers import Rig, inputs, said, upload


async def test_without_a_model_uploads_become_evidence_and_questions_get_excerpts() -> None:
    rig = Rig()
    rig.llm.enabled = False
    case = investigating_case()
    rig.knowledge.add_case_excerpt("T1", case.case_id, "ERROR pool exhausted at db-1", line=1045)
    rig.knowledge.add_article("T1", "Postgres pooling", "Raise the pool when it is exhausted")
    file = upload("app.log")

    result = await rig.turn(
        case, inputs(said("why is the pool exhausted?"), said("  "), files=[file])
    )

    assert rig.llm.calls == []
    assert result.reply.text.startswith("No language model is configured")
    (evidence,) = result.case.evidence
    assert evidence.form is EvidenceForm.DOCUMENT
    assert evidence.summary.startswith("Uploaded app.log: 1200 lines, 52 errors")
    assert "Recorded 1 piece(s) of evidence." in result.reply.text
    assert "What this case's files and the knowledge base have on this:" in result.reply.text
    assert "> ERROR pool exhausted at db-1\n— _app.log:1045_" in result.reply.text
    assert [c.kb for c in result.reply.citations] == [
        KnowledgeBaseKind.CASE,
        KnowledgeBaseKind.GLOBAL,
    ]
    assert result.reply.debug.llm_outcome == "disabled"


async def test_a_plain_answer_cites_only_the_excerpts_it_quotes() -> None:
    rig = Rig()
    rig.llm.enabled = False
    case = investigating_case()
    for line in range(1, 6):
        rig.knowledge.add_case_excerpt(
            "T1", case.case_id, f"ERROR pool exhausted {line}", line=line
        )

    result = await rig.turn(
        case, inputs(said("why is the pool exhausted?"), files=[upload("app.log")])
    )

    assert "What this case's files show on this:" in result.reply.text
    assert "knowledge base has" not in result.reply.text
    quoted = [line for line in result.reply.text.splitlines() if line.startswith("— _")]
    assert len(quoted) == 3
    assert [f"— _{c.label()}_" for c in result.reply.citations] == quoted


async def test_excerpts_from_the_knowledge_base_alone_say_so() -> None:
    rig = Rig()
    rig.llm.enabled = False
    rig.knowledge.add_article("T1", "Postgres pooling", "Raise the pool when it is exhausted")

    result = await rig.turn(investigating_case(), said("why is the pool exhausted?"))

    assert "What the knowledge base has on this:" in result.reply.text
    assert [c.kb for c in result.reply.citations] == [KnowledgeBaseKind.GLOBAL]


async def test_a_request_quotes_nothing_and_cites_nothing() -> None:
    rig = Rig()
    rig.llm.enabled = False
    rig.knowledge.add_article("T1", "Postgres pooling", "Raise the pool when it is exhausted")

    result = await rig.turn(investigating_case(), said("resolved: raised the pool size"))

    assert len(result.reply.confirmations) == 1
    assert "on this:" not in result.reply.text
    assert result.reply.citations == []


HOW_TO = "You can still share files and findings"


async def test_what_works_without_a_model_is_said_once_not_under_every_message() -> None:
    rig = Rig()
    rig.llm.enabled = False
    rig.knowledge.add_article("T1", "Postgres pooling", "Raise the pool when it is exhausted")

    first = await rig.turn(new_case(), said("the pool is exhausted on db-1"))
    later = await rig.turn(first.case, said("the pool is exhausted on db-2"))
    request = await rig.turn(later.case, said("investigate: pool exhausted on db-1"))
    nothing = await rig.turn(request.case, said("anything else?"))

    assert HOW_TO in first.reply.text
    assert later.reply.text.startswith("No language model is configured, so this is a plain")
    assert HOW_TO not in later.reply.text
    assert "What the knowledge base has on this:" in later.reply.text
    assert HOW_TO not in request.reply.text
    assert len(request.reply.confirmations) == 1
    assert HOW_TO in nothing.reply.text  # nothing else to say: say what works


async def test_an_unreachable_model_always_says_what_still_works() -> None:
    rig = Rig()
    case = investigating_case()
    case.current_turn = 5

    result = await rig.turn(case, said("pool is at 95% on db-1"), LLMUnavailableError("down"))

    assert result.reply.text.startswith("The language model is unreachable right now")
    assert HOW_TO in result.reply.text
