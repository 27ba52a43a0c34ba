"""The turn loop on in-memory fakes: copies, typed answers, faults, what reaches the model."""

from __future__ import annotations

import pytest

from domain.engine.summary import Phase
from domain.engine.view import ReplyKind
from domain.investigation.evidence import EvidenceSourceType
from domain.knowledge import KnowledgeBaseKind
from domain.lifecycle.confirmations import (
    Decision,
    SolutionAppliedPayload,
)
from domain.lifecycle.proposals import propose
from domain.lifecycle.responders import ResponderSet, ResponderSource
from domain.lifecycle.status import CaseStatus
from domain.llm import (
    LLMRateLimitedError,
    LLMReplyInvalidError,
    LLMTimeoutError,
    LLMUnavailableError,
)
from tests.unit.domain.builders import (
    OPENER,
    add_solution,
    investigating_case,
    new_case,
    triaged_case,
)
from tests.unit.domain.engine.helpers import (
    Rig,
    consulting,
    inputs,
    investigating,
    proposed_statement,
    said,
    terminal,
    upload,
)

TRIAGE = {"problem_type": "error", "severity_guess": "HIGH"}
ON_CALL = ResponderSet(
    members=frozenset({"U_ONCALL"}), source=ResponderSource.CONFIRMERS, group="S_ONCALL"
)


async def test_the_input_case_is_never_mutated() -> None:
    rig = Rig()
    case = triaged_case()
    before = case.model_dump()

    result = await rig.turn(
        case,
        said("here is the log", by="U_OTHER"),
        consulting("Thanks", problem_confirmation=TRIAGE, proposed_problem_statement="Other"),
    )

    assert case.model_dump() == before
    assert result.case is not case
    assert result.case.current_turn == 1
    assert "U_OTHER" in result.case.participants
    assert result.reply.kind is ReplyKind.ANSWER


async def test_a_typed_yes_confirms_the_statement_and_the_model_hears_of_it() -> None:
    rig = Rig()
    case = triaged_case()
    propose(case, proposed_statement(), now=rig.clock.now())

    result = await rig.turn(
        case, said("Yes, exactly."), investigating("Starting the investigation.")
    )

    assert result.case.status is CaseStatus.INVESTIGATING
    assert result.case.consulting.problem_statement_confirmed
    (call,) = rig.llm.calls
    assert call.template == "investigating"
    assert "System note: {@U_OPENER} answered yes: " in call.messages[-1].content
    assert result.reply.text == "Starting the investigation."
    assert result.reply.summary.phase is Phase.ONGOING


async def test_only_allowed_people_answer_by_typing() -> None:
    rig = Rig()
    case = triaged_case()
    propose(case, proposed_statement(), now=rig.clock.now())

    result = await rig.turn(
        case, inputs(said("yes", by="U_STRANGER"), responders=ON_CALL), consulting("Hm.")
    )

    assert result.case.status is CaseStatus.CONSULTING
    assert result.reply.notices == ["Only the case's participants can answer: {@U_STRANGER}."]


async def test_not_sure_is_only_an_answer_to_a_refutation() -> None:
    rig = Rig()
    case = triaged_case()
    propose(case, proposed_statement(), now=rig.clock.now())

    result = await rig.turn(case, said("not sure"), consulting("What part is unclear?"))

    assert result.case.pending_confirmations()
    assert "answered" not in rig.llm.calls[0].messages[-1].content


async def test_an_answer_the_rules_reject_is_reported() -> None:
    rig = Rig()
    case = investigating_case()
    solution = add_solution(case)
    propose(case, SolutionAppliedPayload(solution_id=solution.solution_id), now=rig.clock.now())
    case.solutions.clear()

    result = await rig.turn(case, said("yes"), investigating("OK"))

    assert result.reply.notices[0].startswith("I couldn't apply that answer:")
    assert result.case.pending_confirmations()


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (LLMTimeoutError("slow"), "did not answer in time"),
        (LLMRateLimitedError("429"), "rate-limiting"),
        (LLMReplyInvalidError("junk"), "could not use, twice"),
    ],
)
async def test_a_failed_model_leaves_the_case_unchanged(error: Exception, words: str) -> None:
    rig = Rig()
    case = investigating_case()
    file = upload()

    result = await rig.turn(case, inputs(said("logs attached"), files=[file]), error)

    assert result.case is case
    assert result.reply.kind is ReplyKind.FAULT
    assert words in result.reply.text
    assert result.reply.text.count(".") == 1
    assert result.reply.debug.llm_outcome == type(error).__name__
    again = await rig.turn(case, said("logs attached"), investigating("Got them."))
    assert again.reply.kind is ReplyKind.ANSWER
    assert again.case.current_turn == 1


async def test_who_wrote_takes_part_even_when_the_model_fails() -> None:
    rig = Rig()
    case = investigating_case()

    result = await rig.turn(case, said("I'm on call, looking", by="U_NEW"), LLMTimeoutError("x"))

    assert result.reply.kind is ReplyKind.FAULT
    assert "U_NEW" in result.case.participants
    assert "U_NEW" not in case.participants, "the input case is never mutated"
    unchanged = result.case.model_copy(update={"participants": case.participants})
    assert unchanged.model_dump() == case.model_dump(), "nothing else changed"


async def test_a_typed_answer_survives_a_failed_model() -> None:
    rig = Rig()
    case = triaged_case()
    propose(case, proposed_statement(), now=rig.clock.now())

    result = await rig.turn(case, said("yes"), LLMTimeoutError("slow"))

    assert result.case.status is CaseStatus.INVESTIGATING
    assert result.reply.kind is ReplyKind.FAULT
    assert result.reply.text.startswith("{@U_OPENER} answered yes")


async def test_an_unreachable_model_gives_a_plain_turn_that_records_evidence() -> None:
    rig = Rig()
    case = investigating_case()

    result = await rig.turn(case, said("pool is at 95% on db-1"), LLMUnavailableError("down"))

    assert result.reply.kind is ReplyKind.NO_LLM
    assert result.reply.text.startswith("The language model is unreachable right now")
    (evidence,) = result.case.evidence
    assert evidence.summary == "pool is at 95% on db-1"
    assert evidence.source_type is EvidenceSourceType.USER_REPORT
    assert result.case.current_turn == 1


async def test_excerpts_reach_the_model_and_its_citations_are_checked() -> None:
    rig = Rig()
    case = investigating_case()
    case.uploaded_files.append(upload("app.log").file)
    rig.knowledge.add_case_excerpt("T1", case.case_id, "ERROR pool exhausted", line=7)
    rig.knowledge.fail.add(KnowledgeBaseKind.PERSONAL)

    result = await rig.turn(
        case,
        said("what does the pool error say?"),
        investigating("See app.log:7.", citations=["app.log:7", "made-up.log:1"]),
    )

    assert '<data kind="excerpt:case" cite="app.log:7">' in rig.llm.calls[0].messages[1].content
    assert [c.label() for c in result.reply.citations] == ["app.log:7"]
    assert result.reply.debug.ignored == [
        "personal search failed: index down",
        "citation made-up.log:1 matches no excerpt",
    ]


async def test_nothing_to_search_for_skips_retrieval() -> None:
    rig = Rig()

    await rig.turn(new_case(title=""), consulting("Hello!"))

    assert rig.knowledge.queries == []


async def test_a_case_nothing_was_uploaded_to_has_no_evidence_to_search() -> None:
    rig = Rig()

    await rig.turn(investigating_case(), said("pool errors again"), investigating("Noted."))

    searched = [kb for kb, _ in rig.knowledge.queries]
    assert searched == [KnowledgeBaseKind.PERSONAL, KnowledgeBaseKind.GLOBAL]


async def test_files_alone_are_searched_by_what_the_case_is_about_and_registered_once() -> None:
    rig = Rig()
    file = upload("db.log")
    case = investigating_case()
    case.uploaded_files.append(file.file)

    result = await rig.turn(case, inputs(files=[file]), investigating("Reading db.log."))

    assert rig.knowledge.queries[0][1] == case.problem_verification.symptom_statement
    assert result.case.uploaded_files == [file.file]


async def test_a_case_without_a_problem_searches_a_lone_file_by_name() -> None:
    rig = Rig()
    file = upload("db.log")
    case = new_case(title="")

    await rig.turn(case, inputs(files=[file]), consulting("Reading db.log."))

    assert rig.knowledge.queries[0][1] == "db.log"


async def test_a_terminal_case_uses_the_terminal_template() -> None:
    rig = Rig()
    case = investigating_case()
    case.status = CaseStatus.RESOLVED

    result = await rig.turn(case, said("what was it?"), terminal("The pool."))

    assert rig.llm.calls[0].template == "terminal"
    assert result.reply.text == "The pool."


async def test_a_typed_correction_refines_the_statement_and_asks_again() -> None:
    rig = Rig()
    case = triaged_case()
    old = propose(case, proposed_statement(), now=rig.clock.now())

    result = await rig.turn(
        case,
        said("not quite: it's 50% of requests, and it started 3 hours ago"),
        consulting(
            "Thanks, refined.",
            proposed_problem_statement="Payments API returns 500 for 50% of requests for 3 hours",
        ),
    )

    assert result.reply.superseded_confirmation_ids == [old.confirmation_id]
    (new,) = result.reply.confirmations
    assert "50% of requests for 3 hours" in new.prompt
    assert result.case.status is CaseStatus.CONSULTING


async def test_disputed_or_uncertain_refutations_keep_the_hypothesis() -> None:
    from domain.investigation.hypotheses import HypothesisStatus
    from domain.lifecycle.confirmations import RefutationPayload
    from tests.unit.domain.builders import add_evidence, add_hypothesis

    rig = Rig()
    case = investigating_case()
    hypothesis = add_hypothesis(case)
    evidence = add_evidence(case)
    payload = RefutationPayload(
        hypothesis_ids=[hypothesis.hypothesis_id], evidence_id=evidence.evidence_id
    )
    disputed_cf = propose(case, payload, now=rig.clock.now())

    disputed = await rig.engine.answer_confirmation(
        case=case, confirmation_id=disputed_cf.confirmation_id, by=OPENER, decision=Decision.NO
    )
    unsure_cf = propose(case, payload, now=rig.clock.now())
    unsure = await rig.turn(case, said("not sure"), investigating("Let's re-check it."))

    assert disputed.case.find_evidence(evidence.evidence_id).disputed  # type: ignore[union-attr]
    assert disputed.case.hypotheses[hypothesis.hypothesis_id].status is HypothesisStatus.ACTIVE
    assert unsure.case.find_confirmation(unsure_cf.confirmation_id).decision is Decision.UNSURE  # type: ignore[union-attr]
    (card,) = unsure.reply.evidence_requests
    assert card.label == "Re-verify the contradictory data"
    assert unsure.case.hypotheses[hypothesis.hypothesis_id].status is HypothesisStatus.ACTIVE
