"""What the judge reads about a case: the transcript, what opened it, and the counted facts."""

from __future__ import annotations

from domain.investigation.conclusions import Solution, SolutionType
from domain.investigation.evidence_requests import (
    AcquisitionGuidance,
    EvidenceRequest,
    EvidenceStatus,
    RequestCategory,
)
from domain.investigation.withheld import WithheldCommand
from domain.scoring.facts import check_confidence, compute_facts, evidence_needed
from domain.scoring.model import CaseFacts, ConfidenceCheck
from domain.scoring.transcript import alert_data, build_transcript
from tests.integration.storage.builders import full_case, new_case
from tests.unit.domain.scoring.material import ALERT, material


def test_the_transcript_holds_messages_uploads_requests_evidence_and_decisions() -> None:
    text = build_transcript(material())

    for expected in (
        "Case FM-7K3Q: payments 500s",
        f"{{@U_OPENER}}: {ALERT}",
        "FaultMaven: Please share the payments-api error log",
        "[shared files: file_app_log]",
        "app.log (file_app_log; 123,456 bytes, 2,048 lines, 3 secrets redacted)",
        '"Error logs" (asked in turn 2)',
        "Suggested commands: `kubectl logs deploy/payments-api --since=1h`",
        "Outcome: complete (90% complete, turn 3)",
        "ev_logs (turn 3, log_file, from {@U_OPENER}): ConnectionPoolTimeout",
        "hyp_pool (validated, likelihood 85%",
        "Root cause (92%, verified, by agent): Release 2026.11.21-3",
        "Status investigating → resolved, confirmed by {@U_OPENER}",
        'Asked (refutation) "The logs contradict the network hypothesis. Refute it?" → no',
        "{@U_HELPER} confirmation.answered via slack:button (decision=yes)",
        "asked for logs",
    ):
        assert expected in text, expected


def test_earlier_scorings_are_left_out_and_the_opening_is_told() -> None:
    text = build_transcript(material())

    assert "scoring.requested" not in text
    assert "case.opened via slack:shortcut" in text


def test_long_messages_are_shortened_between_words_and_marked() -> None:
    source = material()
    long = source.conversation[0].model_copy(update={"text": "word " * 1000})
    shortened = build_transcript(type(source)(source.case, [long], source.audit))

    assert "word …[shortened]" in shortened
    assert shortened.count("word") < 400


def test_the_alert_data_is_how_the_case_was_opened_and_its_first_message() -> None:
    text = alert_data(material())

    assert "by {@U_OPENER}" in text
    assert "source: slack:shortcut" in text
    assert f"First message, from {{@U_OPENER}}:\n{ALERT}" in text


def test_an_empty_case_still_has_every_section() -> None:
    case = new_case()
    source = type(material())(case, [], [])

    text = build_transcript(source)

    assert text.count("(none)") == 8
    assert "Problem statement: none was formalised" in text
    assert "Title: payments 500s" in alert_data(source)


def test_facts_count_requests_evidence_and_the_root_causes_support() -> None:
    facts = compute_facts(full_case())

    assert facts == CaseFacts(
        requests_made=1,
        requests_answered=1,
        requests_blocked=0,
        unsafe_commands=0,
        changing_commands_shown=1,  # the mitigation's immediate action, `helm rollback payments 41`
        evidence_count=1,
        root_cause_stated=True,
        cited_evidence=1,
        root_cause_confidence=0.92,
        confidence_check=ConfidenceCheck.OVERCONFIDENT,
        turns_to_root_cause=7,
        total_turns=7,
    )
    assert facts.root_cause_cites_evidence


def test_destructive_commands_count_when_withheld_and_actions_count_apart() -> None:
    case = full_case()
    case.evidence_requests.append(
        EvidenceRequest(
            label="Restart it",
            description="restart and see",
            category=RequestCategory.ENVIRONMENT,
            guidance=AcquisitionGuidance(commands=["uptime"]),
            status=EvidenceStatus.BLOCKED,
            created_at_turn=4,
            withheld_commands=[
                WithheldCommand(destructive=True, reason="deletes Kubernetes resources"),
                WithheldCommand(destructive=False, reason="starts, stops or restarts a service"),
            ],
        )
    )
    case.solutions.append(
        Solution(
            solution_type=SolutionType.ROLLBACK,
            title="Roll back checkout-api",
            commands=[
                "kubectl rollout undo deploy/checkout-api -n shop",
                "kubectl rollout status deploy/checkout-api -n shop",
                "kubectl scale deploy/checkout-api --replicas=6 -n shop",
                "(command withheld: it deletes the namespace and everything in it)",
            ],
            withheld_commands=[
                WithheldCommand(
                    destructive=True, reason="deletes the namespace and everything in it"
                )
            ],
        )
    )

    facts = compute_facts(case)

    assert (facts.requests_made, facts.requests_answered, facts.requests_blocked) == (2, 1, 1)
    assert facts.unsafe_commands == 2
    assert facts.actions_proposed == 2
    assert facts.changing_commands_shown == 3, "and the mitigation's `helm rollback payments 41`"


def test_state_changing_commands_written_as_steps_are_counted_as_shown() -> None:
    case = full_case()
    case.solutions.append(
        Solution(
            solution_type=SolutionType.ROLLBACK,
            title="Roll back fulfillment-worker",
            implementation_steps=[
                "argocd app set fulfillment-worker --sync-policy none",
                "argocd app rollback fulfillment-worker 41",
                "argocd app history fulfillment-worker",
            ],
        )
    )

    facts = compute_facts(case)

    assert facts.changing_commands_shown == 1 + 2, "the mitigation's `helm rollback` and two steps"
    assert facts.actions_proposed == 0, "no command list: the steps are what is shown"


def test_a_destructive_command_stored_as_shown_still_counts() -> None:
    case = full_case()
    case.solutions.append(
        Solution(solution_type=SolutionType.OTHER, title="wipe", commands=["rm -rf /var/lib/pg"])
    )

    assert compute_facts(case).unsafe_commands == 1


def test_a_case_without_a_root_cause_has_nothing_to_calibrate() -> None:
    facts = compute_facts(new_case())

    assert facts.confidence_check is ConfidenceCheck.NO_ROOT_CAUSE
    assert not facts.root_cause_cites_evidence
    assert facts.turns_to_root_cause is None


def test_cited_evidence_the_case_does_not_hold_does_not_count() -> None:
    case = full_case()
    assert case.root_cause_conclusion is not None
    case.root_cause_conclusion.evidence_basis = ["ev_invented"]

    facts = compute_facts(case)

    assert facts.cited_evidence == 0
    assert not facts.root_cause_cites_evidence


def test_confidence_is_calibrated_when_the_cited_evidence_suffices() -> None:
    assert [evidence_needed(c) for c in (0.95, 0.9, 0.8, 0.7, 0.5, 0.0)] == [2, 2, 1, 1, 0, 0]
    assert check_confidence(0.92, 2) is ConfidenceCheck.CALIBRATED
    assert check_confidence(0.92, 1) is ConfidenceCheck.OVERCONFIDENT
    assert check_confidence(0.75, 0) is ConfidenceCheck.OVERCONFIDENT
    assert check_confidence(0.4, 0) is ConfidenceCheck.CALIBRATED
    assert check_confidence(None, 3) is ConfidenceCheck.NO_ROOT_CAUSE
