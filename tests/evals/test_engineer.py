"""The simulated engineer shares what is asked for, says what it cannot get, and answers as told."""

from __future__ import annotations

from domain.case import Case
from domain.investigation.conclusions import RootCauseConclusion, Solution, SolutionType
from domain.investigation.evidence_requests import (
    AcquisitionGuidance,
    EvidenceRequest,
    RequestCategory,
)
from domain.investigation.verification import InvestigationPath
from domain.lifecycle.confirmations import (
    Decision,
    PathChoicePayload,
    PendingConfirmation,
    SolutionVerifiedPayload,
    StatusChangePayload,
)
from domain.lifecycle.status import CaseStatus
from evals.engineer import IDLE_TEXT, NO_ACCESS, SimulatedEngineer
from evals.scenario import load_scenarios

POOL, NO_DATA = load_scenarios(only=["db-pool-cut", "server-reboot-no-data"])


def request(label: str, description: str = "", *commands: str) -> EvidenceRequest:
    return EvidenceRequest(
        label=label,
        description=description,
        category=RequestCategory.SYMPTOMS,
        guidance=AcquisitionGuidance(commands=list(commands)),
        created_at_turn=1,
    )


def case_with(*requests: EvidenceRequest) -> Case:
    return Case(
        team_id="T", channel_id="C", thread_ts="1.1", user_id="U", evidence_requests=list(requests)
    )


def test_a_request_naming_the_logs_in_its_command_gets_the_log_file() -> None:
    found = SimulatedEngineer(POOL).match(
        request("Errors around 14:05", "what fails", "kubectl logs deploy/checkout --since=1h")
    )
    assert isinstance(found, list)
    assert [i.name for i in found] == ["app-log"]


def test_a_request_for_something_the_engineer_cannot_get_is_answered_with_the_reason() -> None:
    engineer = SimulatedEngineer(NO_DATA)
    ask = request("Kernel crash dump", "the vmcore from kdump, or the serial console")
    move = engineer.next_move(case_with(ask))
    assert move is not None
    assert move.blocked == [(ask.request_id, NO_DATA.unavailable[0].reason)]
    assert move.files == []


def test_a_request_matching_nothing_is_answered_i_cannot_get_that() -> None:
    ask = request("Office coffee machine status", "is it working")
    move = SimulatedEngineer(POOL).next_move(case_with(ask))
    assert move is not None
    assert move.blocked == [(ask.request_id, NO_ACCESS)]


def test_a_file_is_shared_once_and_the_same_request_is_not_answered_twice() -> None:
    engineer = SimulatedEngineer(POOL)
    first = request("Checkout application logs", "errors and exceptions")
    move = engineer.next_move(case_with(first))
    assert move is not None
    assert [i.name for i in move.files] == ["app-log"]
    again = request("More checkout logs", "application errors")
    second = engineer.next_move(case_with(first, again))
    assert second is not None
    assert second.files == []
    assert "already shared" in second.text


def test_with_nothing_asked_the_engineer_asks_what_next_once_then_stops() -> None:
    engineer = SimulatedEngineer(POOL)
    move = engineer.next_move(case_with())
    assert move is not None
    assert move.text == IDLE_TEXT
    assert engineer.next_move(case_with()) is None


def test_the_fix_is_reported_applied_only_when_the_stated_cause_is_true() -> None:
    fix = Solution(solution_type=SolutionType.CONFIG_CHANGE, title="Restore pool to 50")
    wrong = case_with().model_copy(
        update={
            "solutions": [fix],
            "root_cause_conclusion": RootCauseConclusion(
                root_cause="DNS lookups fail", confidence_score=0.9, mechanism="m"
            ),
        }
    )
    assert SimulatedEngineer(POOL).next_move(wrong) == SimulatedEngineer(POOL).next_move(
        case_with()
    )
    right = wrong.model_copy(
        update={
            "root_cause_conclusion": RootCauseConclusion(
                root_cause="The pool max was cut from 50 to 10", confidence_score=0.9, mechanism="m"
            )
        }
    )
    move = SimulatedEngineer(POOL).next_move(right)
    assert move is not None
    assert "I applied “Restore pool to 50”" in move.text


def test_resolution_and_verification_are_confirmed_only_for_the_true_cause() -> None:
    engineer = SimulatedEngineer(POOL)
    resolve = PendingConfirmation(payload=StatusChangePayload(to_status=CaseStatus.RESOLVED))
    verify = PendingConfirmation(payload=SolutionVerifiedPayload(solution_id="sol_1"))
    case = case_with()
    assert engineer.decide(resolve, case) is Decision.NO
    case.root_cause_conclusion = RootCauseConclusion(
        root_cause="Pool maximum lowered to 10", confidence_score=0.9, mechanism="m"
    )
    assert engineer.decide(resolve, case) is Decision.YES
    assert engineer.decide(verify, case) is Decision.YES


def test_a_path_question_is_answered_with_the_scenarios_expected_path() -> None:
    question = PendingConfirmation(
        payload=PathChoicePayload(
            path=InvestigationPath.MITIGATION_FIRST, alternate=InvestigationPath.ROOT_CAUSE
        )
    )
    assert SimulatedEngineer(POOL).decide(question, case_with()) is Decision.YES
    assert SimulatedEngineer(NO_DATA).decide(question, case_with()) is Decision.NO
