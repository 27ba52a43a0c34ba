"""Properties no sequence of operations may break (hypothesis state machine)."""

from __future__ import annotations

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from domain.case import Case
from domain.errors import DomainError
from domain.investigation.conclusions import Solution, SolutionType
from domain.investigation.evidence_requests import (
    AcquisitionGuidance,
    EvidenceRequest,
    RequestCategory,
    block_request,
)
from domain.investigation.hypotheses import HypothesisCategory, HypothesisStatus
from domain.investigation.progress import MILESTONES, MilestoneUpdates, advance_milestones
from domain.investigation.verification import InvestigationPath, ProblemConfirmation
from domain.lifecycle.confirmations import (
    ConfirmationState,
    Decision,
    DeliverablesPayload,
    PathChoicePayload,
    ProblemStatementPayload,
    RefutationPayload,
    SolutionAppliedPayload,
    SolutionVerifiedPayload,
    StatusChangePayload,
)
from domain.lifecycle.decisions import AnswerOutcome, answer
from domain.lifecycle.proposals import propose
from domain.lifecycle.special_states import DocumentType
from domain.lifecycle.status import CaseStatus, ClosureReason
from domain.lifecycle.turn_tracking import record_turn, snapshot
from tests.unit.domain.builders import NOW, OPENER, add_evidence, add_hypothesis, later, new_case

USERS = st.sampled_from([OPENER, OPENER, "U_PARTICIPANT", "U_STRANGER"])
DECISIONS = st.sampled_from([Decision.YES, Decision.YES, Decision.NO, Decision.UNSURE])
MF, RC = InvestigationPath.MITIGATION_FIRST, InvestigationPath.ROOT_CAUSE


def _payloads(case: Case) -> st.SearchStrategy[object]:
    solutions = [s.solution_id for s in case.solutions] or ["sol_missing"]
    hypotheses = list(case.hypotheses) or ["hyp_missing"]
    evidence = [e.evidence_id for e in case.evidence] or ["ev_missing"]
    return st.one_of(
        st.builds(
            StatusChangePayload,
            to_status=st.sampled_from([*CaseStatus, CaseStatus.INVESTIGATING, CaseStatus.RESOLVED]),
            closure_reason=st.none() | st.sampled_from(list(ClosureReason)),
            resolution_summary=st.none() | st.just("rolled back"),
        ),
        st.builds(
            ProblemStatementPayload, statement=st.just("API 500s"), and_investigate=st.booleans()
        ),
        st.builds(PathChoicePayload, path=st.just(MF), alternate=st.just(RC)),
        st.builds(
            RefutationPayload,
            hypothesis_ids=st.lists(st.sampled_from(hypotheses), min_size=1, max_size=2),
            evidence_id=st.sampled_from(evidence),
        ),
        st.builds(SolutionAppliedPayload, solution_id=st.sampled_from(solutions)),
        st.builds(SolutionVerifiedPayload, solution_id=st.sampled_from(solutions)),
        st.builds(DeliverablesPayload, documents=st.just([DocumentType.RUNBOOK])),
    )


class CaseMachine(RuleBasedStateMachine):
    """Drive a case through random proposals, answers, milestones and turns."""

    def __init__(self) -> None:
        super().__init__()
        self.case = new_case(participants=["U_PARTICIPANT"])
        self.completed: frozenset[str] = frozenset()
        self.terminal_status: CaseStatus | None = None
        self.answers: dict[str, tuple[object, object]] = {}
        self.accepted_answers = 0
        self.minute = 0

    def _now(self):
        self.minute += 1
        return later(self.minute)

    @initialize(triaged=st.booleans())
    def start(self, triaged: bool) -> None:
        if triaged:
            self.triage()

    @rule()
    def triage(self) -> None:
        self.case.consulting.problem_confirmation = ProblemConfirmation(
            problem_type="error", severity_guess="HIGH", created_at=NOW
        )
        if not self.case.consulting.problem_statement_confirmed:
            self.case.consulting.proposed_problem_statement = "API 500s"

    @rule(data=st.data(), user=USERS, decision=DECISIONS, answer_now=st.booleans())
    def propose_something(
        self, data: st.DataObject, user: str, decision: Decision, answer_now: bool
    ) -> None:
        payload = data.draw(_payloads(self.case))
        try:
            proposed = propose(self.case, payload, now=self._now())  # type: ignore[arg-type]
        except DomainError:
            return
        if answer_now:
            self._answer(proposed.confirmation_id, user, decision)

    @rule(and_investigate=st.booleans())
    def confirm_statement(self, and_investigate: bool) -> None:
        payload = ProblemStatementPayload(statement="API 500s", and_investigate=and_investigate)
        try:
            proposed = propose(self.case, payload, now=self._now())
        except DomainError:
            return
        self._answer(proposed.confirmation_id, OPENER, Decision.YES)

    @precondition(lambda self: bool(self.case.solutions))
    @rule(data=st.data(), verified=st.booleans())
    def confirm_solution(self, data: st.DataObject, verified: bool) -> None:
        solution_id = data.draw(st.sampled_from([s.solution_id for s in self.case.solutions]))
        kind = SolutionVerifiedPayload if verified else SolutionAppliedPayload
        try:
            proposed = propose(self.case, kind(solution_id=solution_id), now=self._now())
        except DomainError:
            return
        self._answer(proposed.confirmation_id, "U_PARTICIPANT", Decision.YES)

    @precondition(lambda self: bool(self.case.confirmations))
    @rule(data=st.data(), user=USERS, decision=DECISIONS)
    def answer_something(self, data: st.DataObject, user: str, decision: Decision) -> None:
        target = data.draw(st.sampled_from(self.case.confirmations))
        self._answer(target.confirmation_id, user, decision)

    def _answer(self, confirmation_id: str, user: str, decision: Decision) -> None:
        history = len(self.case.status_history)
        try:
            result = answer(self.case, confirmation_id, by=user, decision=decision, now=self._now())
        except DomainError:
            assert len(self.case.status_history) == history
            return
        if len(self.case.status_history) > history:
            assert result.outcome is AnswerOutcome.APPLIED
            assert result.confirmation.state is ConfirmationState.ACCEPTED

    @rule(names=st.sets(st.sampled_from(MILESTONES)))
    def report_milestones(self, names: set[str]) -> None:
        if not self.case.is_terminal:
            advance_milestones(self.case.progress, MilestoneUpdates(**{n: True for n in names}))

    @rule(names=st.sets(st.sampled_from(MILESTONES)))
    def model_says_false(self, names: set[str]) -> None:
        advance_milestones(self.case.progress, MilestoneUpdates(**{n: False for n in names}))

    @rule(mitigation=st.booleans())
    def add_material(self, mitigation: bool) -> None:
        if self.case.is_terminal:
            return
        self.case.solutions.append(
            Solution(
                solution_type=SolutionType.ROLLBACK, title="roll back", is_mitigation=mitigation
            )
        )
        add_evidence(self.case)
        add_hypothesis(
            self.case, category=HypothesisCategory.NETWORK, status=HypothesisStatus.INCONCLUSIVE
        )

    @rule()
    def block_evidence(self) -> None:
        request = EvidenceRequest(
            label="logs",
            description="why",
            category=RequestCategory.SYMPTOMS,
            guidance=AcquisitionGuidance(),
            created_at_turn=self.case.current_turn,
        )
        self.case.evidence_requests.append(request)
        block_request(request, reason="no access", turn=self.case.current_turn)

    @rule()
    def turn(self) -> None:
        record_turn(self.case, snapshot(self.case), now=self._now())

    @invariant()
    def milestones_never_regress(self) -> None:
        now_completed = self.case.progress.completed()
        assert self.completed <= now_completed
        self.completed = now_completed

    @invariant()
    def terminal_is_final(self) -> None:
        event(f"status: {self.case.status}")
        if self.terminal_status is not None:
            assert self.case.status is self.terminal_status
        if self.case.is_terminal:
            self.terminal_status = self.case.status

    @invariant()
    def every_status_change_was_accepted_by_a_person(self) -> None:
        for entry in self.case.status_history:
            confirmation = self.case.find_confirmation(entry.confirmation_id)
            assert confirmation is not None
            assert confirmation.state is ConfirmationState.ACCEPTED
            assert confirmation.answered_by == entry.triggered_by
        statuses = [CaseStatus.CONSULTING, *(e.to_status for e in self.case.status_history)]
        assert statuses[-1] is self.case.status

    @invariant()
    def answers_are_never_rewritten(self) -> None:
        for c in self.case.confirmations:
            if c.answered_at is not None:
                seen = self.answers.setdefault(c.confirmation_id, (c.answered_at, c.decision))
                assert seen == (c.answered_at, c.decision)


CaseMachine.TestCase.settings = settings(
    max_examples=300,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestCaseProperties = CaseMachine.TestCase
