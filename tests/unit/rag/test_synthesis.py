"""Follow-up questions are made self-contained; answers are synthesised only with an LLM."""

from __future__ import annotations

from datetime import UTC, datetime

from domain.knowledge import Citation, KnowledgeBaseKind, RetrievedChunk
from domain.llm import ModelTier
from rag.strategies import CASE_EVIDENCE
from rag.synthesis import deterministic_rewrite, needs_context, rewrite_query, synthesize
from tests.fakes.rag import FakeLLM

CONVERSATION = ["What errors are in app.log?", "347 ERROR entries, mostly connection timeouts"]


def chunk(line: int, minute: int) -> RetrievedChunk:
    citation = Citation(
        kb=KnowledgeBaseKind.CASE,
        source="app.log",
        line_start=line,
        line_end=line,
        timestamp=datetime(2025, 10, 21, 14, minute, tzinfo=UTC),
    )
    return RetrievedChunk(text=f"ERROR timeout {line}", citation=citation, score=0.5)


def test_a_follow_up_borrows_the_conversations_key_terms() -> None:
    rewritten = deterministic_rewrite("When did they start?", CONVERSATION)

    assert rewritten.startswith("When did they start? ")
    for term in ("ERROR", "connection", "timeouts", "app.log", "errors"):
        assert term in rewritten


def test_a_self_contained_question_is_left_alone() -> None:
    question = "Which pods restarted with OOMKilled in payments namespace?"

    assert not needs_context(question)
    assert deterministic_rewrite(question, CONVERSATION) == question


async def test_without_an_llm_the_rewrite_is_deterministic() -> None:
    assert await rewrite_query(None, "When did they start?", CONVERSATION) == (
        deterministic_rewrite("When did they start?", CONVERSATION)
    )


async def test_with_an_llm_the_rewrite_is_the_models_first_line() -> None:
    llm = FakeLLM(["When did the connection timeout errors in app.log start?\nextra"])

    rewritten = await rewrite_query(llm, "When did they start?", CONVERSATION)

    assert rewritten == "When did the connection timeout errors in app.log start?"
    assert llm.calls[0]["tier"] is ModelTier.FAST


async def test_a_failing_llm_falls_back_to_the_deterministic_rewrite() -> None:
    rewritten = await rewrite_query(FakeLLM([]), "When did they start?", CONVERSATION)

    assert rewritten == deterministic_rewrite("When did they start?", CONVERSATION)


async def test_no_llm_or_a_disabled_one_means_no_synthesised_answer() -> None:
    chunks = [chunk(10, 5)]

    assert await synthesize(None, CASE_EVIDENCE, "q", chunks) is None
    assert await synthesize(FakeLLM(["x"], enabled=False), CASE_EVIDENCE, "q", chunks) is None
    assert await synthesize(FakeLLM([]), CASE_EVIDENCE, "q", chunks) is None


async def test_evidence_reaches_the_model_in_time_order_with_citations() -> None:
    llm = FakeLLM(["Errors began at app.log:10 (14:05:00Z)."])

    answer = await synthesize(llm, CASE_EVIDENCE, "when?", [chunk(20, 9), chunk(10, 5)])

    assert answer == "Errors began at app.log:10 (14:05:00Z)."
    prompt = str(llm.calls[0]["messages"][1].content)  # type: ignore[index]
    assert prompt.index("app.log:10 (14:05:00Z)") < prompt.index("app.log:20 (14:09:00Z)")
    assert "forensic" in str(llm.calls[0]["messages"][0].content)  # type: ignore[index]
