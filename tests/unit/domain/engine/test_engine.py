"""The turn loop on in-memory fakes: copies, typed answers, faults, no-LLM mode, buttons."""

from __future__ import annotations

import pytest

from domain.engine.summary import Phase
from domain.engine.view import ReplyKind
from domain.errors import NotAllowedToAnswerError, NotFoundError
from domain.investigation.evidence import EvidenceSourceType
from domain.investigation.evidence_requests import EvidenceStatus
from domain.knowledge import KnowledgeBaseKind
from domain.lifecycle.confirmations import (
    ConfirmationKind,
    ConfirmationState,
    Decision,
    SolutionAppliedPayload,
    StatusChangePayload,
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
    NOW,
    OPENER,
    STATEMENT,
    add_request,
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
    propose(case, _statement(), now=rig.clock.now())

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
    propose(case, _statement(), now=rig.clock.now())

    result = await rig.turn(
        case, inputs(said("yes", by="U_STRANGER"), responders=ON_CALL), consulting("Hm.")
    )

    assert result.case.status is CaseStatus.CONSULTING
    assert result.reply.notices == ["Only the case's participants can answer: {@U_STRANGER}."]


async def test_not_sure_is_only_an_answer_to_a_refutation() -> None:
    rig = Rig()
    case = triaged_case()
    propose(case, _statement(), now=rig.clock.now())

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
    propose(case, _statement(), now=rig.clock.now())

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


@pytest.mark.parametrize(
    ("text", "status", "summary"),
    [
        ("close this", CaseStatus.CLOSED, None),
        ("resolved: rolled back to v2.1.2", CaseStatus.RESOLVED, "rolled back to v2.1.2"),
    ],
)
async def test_without_a_model_status_changes_are_asked_for_when_requested(
    text: str, status: CaseStatus, summary: str | None
) -> None:
    rig = Rig()
    rig.llm.enabled = False

    result = await rig.turn(investigating_case(), said(text))

    (confirmation,) = result.reply.confirmations
    payload = result.case.find_confirmation(confirmation.confirmation_id).payload  # type: ignore[union-attr]
    assert payload == StatusChangePayload(
        to_status=status, reason="asked by {@U_OPENER}", resolution_summary=summary
    )
    assert result.case.status is CaseStatus.INVESTIGATING
    assert result.case.evidence == []


async def test_without_a_model_investigate_proposes_the_statement() -> None:
    rig = Rig()
    rig.llm.enabled = False

    result = await rig.turn(new_case(), said("investigate: Checkout 502s since 09:00"))

    (confirmation,) = result.reply.confirmations
    assert confirmation.kind is ConfirmationKind.PROBLEM_STATEMENT
    assert "Checkout 502s since 09:00" in confirmation.prompt
    accepted = await rig.engine.answer_confirmation(
        case=result.case,
        confirmation_id=confirmation.confirmation_id,
        by=OPENER,
        decision=Decision.YES,
    )
    assert accepted.case.status is CaseStatus.INVESTIGATING


async def test_without_a_model_investigate_needs_a_problem() -> None:
    rig = Rig()
    rig.llm.enabled = False

    untitled = await rig.turn(new_case(title=""), said("investigate"))
    already = await rig.turn(investigating_case(), said("investigate"))

    assert untitled.reply.notices == [
        "Tell me the problem first: `investigate: <one-line problem>`."
    ]
    assert already.reply.notices[0].startswith("I can't ask for that yet:")


async def test_without_a_model_a_typed_answer_is_applied_and_not_evidence() -> None:
    rig = Rig()
    rig.llm.enabled = False
    case = triaged_case()
    propose(case, _statement(), now=rig.clock.now())

    result = await rig.turn(case, said("yes"))

    assert result.case.status is CaseStatus.INVESTIGATING
    assert result.case.evidence == []
    assert "answered yes: " in result.reply.text


async def test_without_a_model_a_finished_case_records_nothing() -> None:
    rig = Rig()
    rig.llm.enabled = False
    case = investigating_case()
    case.status = CaseStatus.CLOSED

    result = await rig.turn(case, said("one more thing: the pool was 10"))

    assert result.case.evidence == []


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


async def test_files_alone_are_searched_by_name_and_registered_once() -> None:
    rig = Rig()
    file = upload("db.log")
    case = investigating_case()
    case.uploaded_files.append(file.file)

    result = await rig.turn(case, inputs(files=[file]), investigating("Reading db.log."))

    assert rig.knowledge.queries[0][1] == "db.log"
    assert result.case.uploaded_files == [file.file]


async def test_a_terminal_case_uses_the_terminal_template() -> None:
    rig = Rig()
    case = investigating_case()
    case.status = CaseStatus.RESOLVED

    result = await rig.turn(case, said("what was it?"), terminal("The pool."))

    assert rig.llm.calls[0].template == "terminal"
    assert result.reply.text == "The pool."


async def test_a_button_applies_once_and_says_what_happened() -> None:
    rig = Rig()
    case = triaged_case()
    cf = propose(case, _statement(), now=rig.clock.now())

    first = await rig.engine.answer_confirmation(
        case=case, confirmation_id=cf.confirmation_id, by=OPENER, decision=Decision.NO
    )
    again = await rig.engine.answer_confirmation(
        case=first.case, confirmation_id=cf.confirmation_id, by=OPENER, decision=Decision.YES
    )

    assert case.find_confirmation(cf.confirmation_id).is_pending  # type: ignore[union-attr]
    assert first.reply.kind is ReplyKind.DECISION
    assert "answered no: " in first.reply.text
    assert again.reply.text == "{@U_OPENER} already answered that question."
    assert again.case.status is CaseStatus.CONSULTING


@pytest.mark.parametrize(
    ("prompt", "said"),
    [
        ("Fix: roll back", "Fix: roll back. The case is now investigating."),
        ("Shall I start?", "Shall I start? The case is now investigating."),
    ],
)
async def test_what_a_yes_did_reads_as_sentences(prompt: str, said: str) -> None:
    rig = Rig()
    case = triaged_case()
    cf = propose(case, _statement(), now=rig.clock.now(), prompt=prompt)

    result = await rig.engine.answer_confirmation(
        case=case, confirmation_id=cf.confirmation_id, by=OPENER, decision=Decision.YES
    )

    assert result.reply.text == f"{{@U_OPENER}} answered yes: {said}"


async def test_a_superseded_question_says_so() -> None:
    rig = Rig()
    case = triaged_case()
    old = propose(case, _statement(), now=rig.clock.now())
    propose(case, _statement("A sharper statement"), now=rig.clock.now())

    result = await rig.engine.answer_confirmation(
        case=case, confirmation_id=old.confirmation_id, by=OPENER, decision=Decision.YES
    )

    assert result.reply.text == "That question no longer applies; a newer one replaced it."


async def test_buttons_from_strangers_are_refused() -> None:
    rig = Rig()
    case = triaged_case()
    cf = propose(case, _statement(), now=rig.clock.now())

    with pytest.raises(NotAllowedToAnswerError) as refused:
        await rig.engine.answer_confirmation(
            case=case, confirmation_id=cf.confirmation_id, by="U_STRANGER", decision=Decision.YES
        )

    assert refused.value.named == ()
    assert refused.value.responders is None, "the case's participants may: anyone can join"


async def test_cant_get_this_blocks_the_request_and_offers_alternatives() -> None:
    rig = Rig()
    case = investigating_case()
    requests = [add_request(case, label=f"Data {i}") for i in range(3)]
    requests[0].guidance.alternatives = ["Ask the DBA for pg_stat_activity output"]

    result = case
    for request in requests:
        result = (
            await rig.engine.report_unavailable(
                case=result, request_id=request.request_id, by="U_SRE", reason="no access"
            )
        ).case
    first = await rig.engine.report_unavailable(
        case=case, request_id=requests[0].request_id, by="U_SRE", reason="no access"
    )

    assert "Another way: Ask the DBA for pg_stat_activity output" in first.reply.text
    assert case.evidence_requests[0].status is EvidenceStatus.PENDING
    assert all(r.status is EvidenceStatus.BLOCKED for r in result.evidence_requests)
    assert result.degraded_mode is not None
    assert result.degraded_mode.escalation_recommended
    with pytest.raises(NotFoundError):
        await rig.engine.report_unavailable(case=case, request_id="req_x", by="U", reason="r")


def _statement(text: str = STATEMENT):  # type: ignore[no-untyped-def]
    from domain.lifecycle.confirmations import ProblemStatementPayload

    return ProblemStatementPayload(statement=text)


async def test_the_newest_question_is_the_one_answered() -> None:
    rig = Rig()
    case = investigating_case()
    first = add_solution(case, title="first")
    second = add_solution(case, title="second")
    propose(case, SolutionAppliedPayload(solution_id=first.solution_id), now=rig.clock.now())
    newest = propose(
        case, SolutionAppliedPayload(solution_id=second.solution_id), now=rig.clock.now()
    )

    result = await rig.turn(case, said("yes"), investigating("Great."))

    answered = result.case.find_confirmation(newest.confirmation_id)
    assert answered is not None
    assert answered.state is ConfirmationState.ACCEPTED
    assert result.case.find_solution(second.solution_id).applied_by == OPENER  # type: ignore[union-attr]


async def test_without_a_model_uploads_are_summarised_from_their_ingest_report() -> None:
    rig = Rig()
    rig.llm.enabled = False
    timed = upload("app.log")
    assert timed.report is not None
    timed = timed.model_copy(
        update={
            "report": timed.report.model_copy(
                update={"first_timestamp": NOW, "last_timestamp": NOW}
            )
        }
    )
    bare = upload("shot.png").model_copy(update={"report": None})

    result = await rig.turn(investigating_case(), inputs(files=[timed, bare]))

    first, second = (e.summary for e in result.case.evidence)
    assert first.endswith(f", {NOW.isoformat()} to {NOW.isoformat()}")
    assert second == "Uploaded shot.png"


async def test_a_typed_correction_refines_the_statement_and_asks_again() -> None:
    rig = Rig()
    case = triaged_case()
    old = propose(case, _statement(), now=rig.clock.now())

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
